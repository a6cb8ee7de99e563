#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# After a boot with softirq.bh_interleave=N or softirq.bh_interleave_us=T
# (the test-only patch of boot-tests/series/rt-interleave): the
# interleaving really happened, the per-CPU rival threads exist and woke
# up inside BH sections. A boot whose tests passed without it shows
# nothing.
. "$(dirname "$0")/val-lib.sh"

p=/sys/module/softirq/parameters
n=$(cat $p/bh_interleave 2>/dev/null || echo none)
us=$(cat $p/bh_interleave_us 2>/dev/null || echo none)
wakeups=$(cat $p/bh_interleave_wakeups 2>/dev/null || echo 0)
rivals=$(pgrep -c -x 'bh_rival/[0-9]+' || true)
echo "bh_interleave=$n bh_interleave_us=$us: $wakeups wake-ups of $rivals rival threads"
check "the kernel interleaves BH sections (softirq.bh_interleave or _us set)" \
	test "$n" != none -a "$n$us" != 00
check "one rival thread per CPU" test "$rivals" -eq "$NCPUS"
check "the rivals preempted tasks inside BH sections" test "$wakeups" -gt 0
finish
