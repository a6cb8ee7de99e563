#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gro_cells and dst_cache: two vxlan devices between two namespaces, one
# over an IPv4 underlay (vx4), one over an IPv6 underlay (vx6), each
# with a fixed unicast remote. UDP from every CPU at once through each
# must arrive intact: the sender's vxlan_xmit() looks its route up in
# the device's dst_cache (dst_cache_get_ip4/6, filled once by
# dst_cache_set_ip4/6 and then reused), and the receiver's vxlan_rcv()
# queues into the CPU's gro_cell (gro_cells_receive), polled by
# gro_cell_poll. Then the same while the underlay routes change (cached
# routes go stale and are refilled).
#
#   xa (u0 10.30.0.1 fc00:30::1) -- (u1 10.30.0.2 fc00:30::2) xb
#   vx4 (vni 42): 10.31.4.1 -- 10.31.4.2; vx6 (vni 43): 10.31.6.1 -- 10.31.6.2
. "$(dirname "$0")/val-lib.sh"

netns xa xb
ip link add u0 netns xa type veth peer name u1 netns xb
in_ns xa ip addr add 10.30.0.1/24 dev u0
in_ns xb ip addr add 10.30.0.2/24 dev u1
in_ns xa ip -6 addr add fc00:30::1/64 dev u0 nodad
in_ns xb ip -6 addr add fc00:30::2/64 dev u1 nodad
in_ns xa ip link set u0 up
in_ns xb ip link set u1 up
vx() { # NS SELF4 PEER4 SELF6 PEER6 HOST: vx4 and vx6 in NS, overlay address .HOST
	in_ns "$1" ip link add vx4 type vxlan id 42 local "$2" remote "$3" dstport 4789 dev u"$(($6 - 1))"
	in_ns "$1" ip link add vx6 type vxlan id 43 local "$4" remote "$5" dstport 4790 dev u"$(($6 - 1))"
	in_ns "$1" ip addr add 10.31.4."$6"/24 dev vx4
	in_ns "$1" ip addr add 10.31.6."$6"/24 dev vx6
	in_ns "$1" ip link set vx4 up
	in_ns "$1" ip link set vx6 up
}
vx xa 10.30.0.1 10.30.0.2 fc00:30::1 fc00:30::2 1
vx xb 10.30.0.2 10.30.0.1 fc00:30::2 fc00:30::1 2
in_ns xa ip -d link show vx4 | grep -o 'vxlan id [0-9]* remote [0-9.]*'
in_ns xa ip -d link show vx6 | grep -o 'vxlan id [0-9]* remote [0-9a-f:]*'

hits() { cov_hits "$1"; }
recorded=no
[[ -n $(hits dst_cache_get_ip4) ]] && recorded=yes
snap() { # NAME: hit counts of the dst_cache and gro_cells functions into h_NAME_*
	local f
	for f in dst_cache_get_ip4 dst_cache_set_ip4 dst_cache_get_ip6 dst_cache_set_ip6 \
		gro_cells_receive gro_cell_poll; do
		printf -v "h_$1_$f" '%s' "$(hits "$f")"
	done
}
delta() { # FROM TO FUNC
	local a="h_$1_$3" b="h_$2_$3"
	echo $((${!b:-0} - ${!a:-0}))
}

count=300
snap 0
check "UDP over vxlan, IPv4 underlay, from every CPU intact" \
	udp_flow xa xb 10.31.4.2 9300 "$count" 1200 90
snap 1
check "UDP over vxlan, IPv6 underlay, from every CPU intact" \
	udp_flow xa xb 10.31.6.2 9301 "$count" 1200 90
snap 2
# shellcheck disable=SC2016 # expanded by the inner shell
check "UDP back over both at once from every CPU intact" \
	eval 'udp_flow xb xa 10.31.4.1 9302 "$count" 1200 90 &
		p=$!; udp_flow xb xa 10.31.6.1 9303 "$count" 1200 90 && wait "$p"'
snap 3
# With coverage recorded: every datagram took the cached route (one
# lookup per packet), filled at most a few times (first packet per CPU,
# plus an ARP/ND resolution); every datagram went through a gro_cell.
sent=$((count * NCPUS))
reused() { # FAMILY FROM TO
	local g s r
	g=$(delta "$2" "$3" "dst_cache_get_$1")
	s=$(delta "$2" "$3" "dst_cache_set_$1")
	r=$(delta "$2" "$3" gro_cells_receive)
	echo "$1 underlay: dst_cache_get_$1 $g, dst_cache_set_$1 $s, gro_cells_receive $r" \
		"(gro_cell_poll $(delta "$2" "$3" gro_cell_poll)) for $sent datagrams"
	((g >= sent && s >= 1 && s <= 4 * NCPUS && r >= sent))
}
if [[ $recorded == yes ]]; then
	check "IPv4 underlay: the route cache was filled, then reused" reused ip4 0 1
	check "IPv6 underlay: the route cache was filled, then reused" reused ip6 1 2
else
	echo "ok - route cache reuse # SKIP coverage not recorded in this boot"
fi

# Stale routes: a more specific underlay route added and removed while
# both underlays carry traffic. Each change obsoletes the cached dsts,
# which dst_cache_per_cpu_get() then drops; they are refilled.
churn() {
	local i
	for ((i = 0; i < 30; i++)); do
		in_ns xa ip route add 10.30.0.2/32 dev u0 &&
			in_ns xa ip -6 route add fc00:30::2/128 dev u0 &&
			in_ns xa ip route del 10.30.0.2/32 dev u0 &&
			in_ns xa ip -6 route del fc00:30::2/128 dev u0 || return 1
	done
}
on_cpu 0 bash -c "$(declare -f in_ns churn); churn" &
ch=$!
# shellcheck disable=SC2016 # expanded by the inner shell
check "UDP over both underlays intact while their routes change" \
	eval 'udp_flow xa xb 10.31.4.2 9304 "$count" 1200 90 &
		p=$!; udp_flow xa xb 10.31.6.2 9305 "$count" 1200 90 && wait "$p"'
check "route changes succeeded" wait "$ch"
snap 4
if [[ $recorded == yes ]]; then
	refilled() {
		local s4 s6
		s4=$(delta 3 4 dst_cache_set_ip4)
		s6=$(delta 3 4 dst_cache_set_ip6)
		echo "refills during the churn: dst_cache_set_ip4 $s4, dst_cache_set_ip6 $s6"
		((s4 > 0 && s6 > 0))
	}
	check "stale cached routes were refilled" refilled
fi

# Both underlays from two tasks preempting each other on CPU 0: the
# sender's dst_cache sections and the receive side's gro_cell (the
# backlog of CPU 0 runs in whichever task's BH section raised it).
# shellcheck disable=SC2016 # expanded by the inner shell
stress "vxlan transmit and receive (dst_cache, gro_cells), preempted on CPU 0" \
	sh -c 'if [ "$PREEMPT_PAIR_SIDE" = 1 ]; then a=10.31.6.2; else a=10.31.4.2; fi
		exec ip netns exec xa '"$PROGS"'/udp-check send $a 9306 1000000000 1200'
finish
