#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Start counting contentions of the nested-BH locks: two histograms in
# the kernel, read back by contention-check at the end of the boot. On
# PREEMPT_RT a nested-BH lock is a sleeping lock; a task that finds it
# held by a preempted task blocks in the rtmutex slow path, which fires
# lock:contention_begin with the address of the rtmutex. lock:lock_acquire
# (lockdep) gives the address and name of the lockdep map of each
# nested-BH lock taken ("bh_lock", "(bh_lock)" on PREEMPT_RT), from
# which contention-check finds the lock's rtmutex and its per-CPU
# variable.
. "$(dirname "$0")/val-lib.sh"
T=/sys/kernel/tracing
for e in contention_begin lock_acquire; do
	[[ -f $T/events/lock/$e/hist ]] || {
		echo "no histogram of lock:$e (CONFIG_HIST_TRIGGERS, CONFIG_LOCKDEP)"
		exit 1
	}
done
echo 'hist:keys=lock_addr.hex:vals=hitcount:size=8192 if flags == 8' \
	>"$T/events/lock/contention_begin/trigger"
echo 'hist:keys=lockdep_addr.hex,name:vals=hitcount:size=1024 if name ~ "*bh_lock" || name ~ "*bh_lock)"' \
	>"$T/events/lock/lock_acquire/trigger"
echo "counting rtmutex contentions and nested-BH lock acquisitions"
