#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test-only: provoke a real WARN() through LKDTM. The harness must turn
# this run red; boot-tests/check expects exactly that.
echo WARNING >/sys/kernel/debug/provoke-crash/DIRECT
