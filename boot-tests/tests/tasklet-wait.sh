#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tasklet that waits for a tasklet running on another CPU, as
# drivers/firewire/ohci.c does from its own tasklet with
# tasklet_disable_in_atomic(). On PREEMPT_RT without the softirq lock the
# wait blocks on the CPU's tasklet callback lock, which the waiting
# callback itself holds while it runs: the stack lets such a caller spin
# instead. The hook of boot-tests/series/rt-interleave (writing 1 to
# softirq.tasklet_wait_test) runs the case: a slow tasklet on CPU 1 (200
# ms) and, while it runs, a tasklet on CPU 0 that waits for it. The write
# must succeed (the waiter finished, the slow tasklet was running when
# the wait began and was done when it ended); softirq.tasklet_wait_bug=1
# brings the self-deadlock back, and then the write times out and
# lockdep reports the recursion.
. "$(dirname "$0")/val-lib.sh"

p=/sys/module/softirq/parameters/tasklet_wait_test
[[ -e $p ]] || { echo "no $p: not a kernel of boot-tests/series/rt-interleave"; exit 1; }
if ((NCPUS < 2)); then
	echo "ok - a tasklet waiting for another CPU's running tasklet # SKIP needs two CPUs"
	finish
	exit 0
fi
echo "softirq.tasklet_wait_bug=$(cat /sys/module/softirq/parameters/tasklet_wait_bug)"
for round in 1 2 3; do
	check "round $round: CPU 0's tasklet waited for CPU 1's running tasklet and finished" \
		timeout 30 sh -c "echo 1 >$p"
	dmesg | grep 'tasklet-wait:' | tail -1
done
finish
