#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# softnet_data.xmit.recursion: stacked devices transmit (an ipip tunnel
# over a VLAN over veth, whose peer is a bridge port with a VLAN device
# on the bridge), TCP from every CPU at once; and a real loop, two ipip
# tunnels each routed through the other, is cut by the recursion limit
# ("Dead loop on virtual device") while the kernel keeps working.
. "$(dirname "$0")/val-lib.sh"

netns ra rb
ip link add r0 netns ra type veth peer name r1 netns rb
in_ns ra ip link set r0 up
in_ns ra ip link add link r0 name r0.10 type vlan id 10
in_ns ra ip addr add 10.11.0.1/24 dev r0.10
in_ns ra ip link set r0.10 up
in_ns rb ip link add br0 type bridge
in_ns rb ip link set r1 master br0
in_ns rb ip link set r1 up
in_ns rb ip link set br0 up
in_ns rb ip link add link br0 name br0.10 type vlan id 10
in_ns rb ip addr add 10.11.0.2/24 dev br0.10
in_ns rb ip link set br0.10 up
in_ns ra ip link add t0 type ipip local 10.11.0.1 remote 10.11.0.2
in_ns rb ip link add t0 type ipip local 10.11.0.2 remote 10.11.0.1
in_ns ra ip addr add 10.12.0.1/24 dev t0
in_ns rb ip addr add 10.12.0.2/24 dev t0
in_ns ra ip link set t0 up
in_ns rb ip link set t0 up
check "ping over ipip over vlan over veth to a bridge" in_ns ra ping -q -c 3 -W 5 10.12.0.2
flows() {
	local c pids=()
	for ((c = 0; c < NCPUS; c++)); do
		tcp_transfer ra rb 10.12.0.2 $((9000 + c)) "$c" 2097152 &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
}
check "TCP from every CPU through the stacked devices intact" flows

# The loop: t1's remote is routed via t2 and t2's via t1.
netns rl
in_ns rl ip link add d0 type dummy
in_ns rl ip addr add 10.13.0.1/24 dev d0
in_ns rl ip link set d0 up
in_ns rl ip link add t1 type ipip local 10.13.0.1 remote 10.14.0.1
in_ns rl ip link add t2 type ipip local 10.13.0.1 remote 10.14.0.2
in_ns rl ip link set t1 up
in_ns rl ip link set t2 up
in_ns rl ip route add 10.14.0.1/32 dev t2
in_ns rl ip route add 10.14.0.2/32 dev t1
in_ns rl ip route add 10.15.0.0/24 dev t1
loops_before=$(dmesg | grep -c "Dead loop on virtual device" || true)
loop() {
	local c
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec rl ping -q -c 5 -i 0.2 -W 1 10.15.0.9 >/dev/null 2>&1 &
	done
	wait
	local after
	after=$(dmesg | grep -c "Dead loop on virtual device" || true)
	echo "'Dead loop on virtual device' reports: $loops_before -> $after"
	((after > loops_before))
}
check "a tunnel loop is cut by the recursion limit" loop
check "the stacked path still works after the loop" in_ns ra ping -q -c 2 -W 5 10.12.0.2
finish
