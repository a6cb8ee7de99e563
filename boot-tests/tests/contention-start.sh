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
# Members named *bh_lock, the static per-CPU local_lock_t variables of
# the coverage list (a lock without a dot), named after themselves, and
# the locks it takes through pointers ("&bq->bq_lock"), named after their
# local_lock_init() argument (spaces removed in the list: a name with
# spaces ends in bh_lock here).
filter='name ~ "*bh_lock" || name ~ "*bh_lock)"'
list=$(param nbh.covlist)
if [[ -f $list ]]; then
	while read -r l; do
		filter+=" || name == \"$l\" || name == \"($l)\""
	done < <(awk 'NF >= 4 && $4 != "-" {n = split($4, l, ",")
		for (i = 1; i <= n; i++) if (l[i] !~ /[.(]/) print l[i]}' "$list" | sort -u)
fi
echo "hist:keys=lockdep_addr.hex,name:vals=hitcount:size=1024 if $filter" \
	>"$T/events/lock/lock_acquire/trigger"
echo "counting rtmutex contentions and nested-BH lock acquisitions"
