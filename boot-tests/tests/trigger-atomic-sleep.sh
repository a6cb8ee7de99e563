#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test-only: sleep with preemption disabled through LKDTM, which makes
# DEBUG_ATOMIC_SLEEP report "sleeping function called from invalid
# context". The harness must turn this run red.
echo ATOMIC_SLEEP >/sys/kernel/debug/provoke-crash/DIRECT
