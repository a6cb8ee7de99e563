#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# softnet_data.process_queue: veth without NAPI delivers through
# netif_rx() into the per-CPU backlog, and RPS on the receive queue moves
# packets to the other CPUs' backlogs. TCP and UDP from every CPU at once
# must arrive intact, every CPU must have processed backlog packets, and
# deleting the device while traffic runs (flush_backlog) must be clean.
# A kernel without RPS (uniprocessor: 6.1 has RPS whenever SMP and SYSFS
# are on) runs the same traffic through its one backlog.
. "$(dirname "$0")/val-lib.sh"

netns ba bb
ip link add b0 netns ba type veth peer name b1 netns bb
in_ns ba ip addr add 10.10.0.1/24 dev b0
in_ns bb ip addr add 10.10.0.2/24 dev b1
in_ns ba ip link set b0 up
in_ns bb ip link set b1 up
RPS=n
kconfig_y RPS && RPS=y
rps() { # NS DEV MASK: steer DEV's receive queue to the CPUs in MASK
	[[ $RPS == n ]] || in_ns "$1" sh -c "echo $3 >/sys/class/net/$2/queues/rx-0/rps_cpus"
}
echo "RPS: $RPS, $NCPUS CPU(s)"
mask=$(printf '%x' $(((1 << NCPUS) - 1)))
rps bb b1 "$mask"
rps ba b0 "$mask"

# First column of /proc/net/softnet_stat: packets processed, per CPU.
processed() {
	local p _
	while read -r p _; do printf '%d ' $((16#$p)); done </proc/net/softnet_stat
	echo
}
read -ra before < <(processed)
flows() {
	local c pids=()
	for ((c = 0; c < NCPUS; c++)); do
		tcp_transfer ba bb 10.10.0.2 $((8000 + c)) "$c" 4194304 &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
}
check "TCP from every CPU through the backlog with RPS intact" flows
check "UDP from every CPU through the backlog with RPS intact" \
	udp_flow ba bb 10.10.0.2 8100 500 1200 60
read -ra after < <(processed)
all_cpus() {
	local c
	for ((c = 0; c < NCPUS; c++)); do
		echo "CPU $c processed $((after[c] - before[c])) backlog packets"
		((after[c] > before[c])) || return 1
	done
}
check "every CPU processed backlog packets" all_cpus
# Without RPS the receiving backlog is the sender's CPU's.
rps bb b1 0
stress "backlog processing (softnet_data.process_queue), preempted on CPU 0" \
	ip netns exec ba "$PROGS/udp-check" send 10.10.0.2 8102 1000000000 1200

# flush_backlog() runs on a CPU only if a device goes away while that
# CPU's backlog holds packets (flush_required()), which plain churn hits
# by luck under TCG. So steer RPS to the last CPU and make that CPU slow
# to drain its backlog: its ksoftirqd goes to SCHED_IDLE behind a busy
# loop (on PREEMPT_RT that thread runs NET_RX raised by the RPS IPI), and
# not SCHED_FIFO, whose throttling stalled the guest. Flood it from the
# other CPUs and unregister devices meanwhile, from CPU 0: an ip command
# on the last CPU drains that CPU's backlog in its own local_bh_enable()
# just before flush_all_backlogs() looks at it. When cov-start records
# flush_backlog, rounds repeat (up to 10) until it has run. With one CPU
# the flood comes from that CPU too.
last=$((NCPUS - 1))
senders=$((last > 0 ? last : 1))
ksoftirqd=$(pgrep -x "ksoftirqd/$last")
rps bb b1 "$(printf '%x' $((1 << last)))"
churn_round() {
	local r=$1 c i rc=0
	chrt -i -p 0 "$ksoftirqd"
	timeout 5 taskset -c "$last" sh -c 'while :; do :; done' &
	for ((c = 0; c < senders; c++)); do
		timeout 5 taskset -c "$c" ip netns exec ba "$PROGS/udp-check" send \
			10.10.0.2 8200 1000000 1200 "$c" 0 >/dev/null 2>&1 &
	done
	sleep 0.5
	for ((i = 1; i <= 12; i++)); do
		on_cpu 0 ip -n bb link add "d$r-$i" type dummy || { rc=1; break; }
		on_cpu 0 ip -n bb link del "d$r-$i" || { rc=1; break; }
	done
	wait
	chrt -o -p 0 "$ksoftirqd"
	return $rc
}
churn() {
	local r start now
	start=$(cov_hits flush_backlog)
	for ((r = 1; r <= 10; r++)); do
		churn_round "$r" || return 1
		now=$(cov_hits flush_backlog)
		[[ -z $now ]] && break
		echo "round $r: flush_backlog ran $((now - start)) time(s)"
		((now > start)) && break
	done
	in_ns bb ip link del b1 || return 1
	# When recorded, flush_backlog() must have run by now.
	[[ -z $now ]] || ((now > start))
}
check "devices unregistered while a CPU's backlog is full: flush_backlog() ran" churn
check "stack still passes traffic afterwards" tcp_transfer ba ba 127.0.0.1 8300 0 65536
finish
