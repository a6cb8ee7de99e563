#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# softnet_data.process_queue: veth without NAPI delivers through
# netif_rx() into the per-CPU backlog, and RPS on the receive queue moves
# packets to the other CPUs' backlogs. TCP and UDP from every CPU at once
# must arrive intact, every CPU must have processed backlog packets, and
# deleting the device while traffic runs (flush_backlog) must be clean.
. "$(dirname "$0")/val-lib.sh"

netns ba bb
ip link add b0 netns ba type veth peer name b1 netns bb
in_ns ba ip addr add 10.10.0.1/24 dev b0
in_ns bb ip addr add 10.10.0.2/24 dev b1
in_ns ba ip link set b0 up
in_ns bb ip link set b1 up
mask=$(printf '%x' $(((1 << NCPUS) - 1)))
in_ns bb sh -c "echo $mask >/sys/class/net/b1/queues/rx-0/rps_cpus"
in_ns ba sh -c "echo $mask >/sys/class/net/b0/queues/rx-0/rps_cpus"

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

# flush_backlog runs on a CPU when a device goes away while that CPU's
# backlog holds packets: unregister devices while every CPU floods it.
for ((c = 0; c < NCPUS; c++)); do
	on_cpu "$c" ip netns exec ba "$PROGS/udp-check" send 10.10.0.2 8200 30000 1200 "$c" 0 \
		>/dev/null 2>&1 &
done
sleep 1
churn() {
	local i
	for i in $(seq 30); do
		in_ns bb ip link add "d$i" type dummy && in_ns bb ip link del "d$i" || return 1
	done
	in_ns bb ip link del b1
}
check "devices unregistered while every CPU's backlog is busy" churn
check "stack still passes traffic afterwards" tcp_transfer ba ba 127.0.0.1 8300 0 65536
finish
