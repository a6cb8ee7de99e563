#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# local_bh_disable() takes the per-CPU softirq lock exactly when the
# kernel's configuration says so. On PREEMPT_RT the lock is
# softirq_ctrl.lock, a lockdep class from the first BH-disabled section
# of the boot on, unless PREEMPT_RT_NEEDS_BH_LOCK exists and is not set
# (generated-patches/linux-6.1-rt-no-bh-lock): then the class must never
# appear. Without PREEMPT_RT, or without lockdep, there is nothing to
# see: skip.
. "$(dirname "$0")/val-lib.sh"

kconfig_y PREEMPT_RT || { echo "not a PREEMPT_RT kernel"; exit 4; }
[[ -r /proc/lockdep ]] || { echo "no /proc/lockdep (lockdep off)"; exit 4; }
want=taken
kconfig_line "# CONFIG_PREEMPT_RT_NEEDS_BH_LOCK is not set" && want=never-taken
echo "configuration: the softirq lock is $want"

lock_classes() { grep -cF 'softirq_ctrl.lock' /proc/lockdep || true; }
# Disable BH on every CPU at least once more (a TCP connection per CPU).
netns la
for ((c = 0; c < NCPUS; c++)); do
	tcp_transfer la la 127.0.0.1 $((8700 + c)) "$c" 65536 >/dev/null
done
n=$(lock_classes)
echo "lockdep classes named softirq_ctrl.lock: $n"
grep -m2 -F local_bh /proc/lockdep || true
if [[ $want == taken ]]; then
	check "local_bh_disable() takes softirq_ctrl.lock" test "$n" -gt 0
else
	check "local_bh_disable() never takes softirq_ctrl.lock" test "$n" -eq 0
fi
check "the lockdep map of BH sections (local_bh) is in use" \
	grep -qF local_bh /proc/lockdep
finish
