#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test-only: hit a BUG() through LKDTM (an Oops that kills this shell's
# writer, the kernel keeps running). The harness must turn this run red.
echo BUG >/sys/kernel/debug/provoke-crash/DIRECT
