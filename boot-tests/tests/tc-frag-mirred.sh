#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sch_frag_data_storage: act_ct reassembles a fragmented flow and
# act_mirred redirects the whole datagram to a device with the original
# MTU, where sch_fragment() refragments it through the per-CPU storage.
# Two places: at the egress of the sender's own device (the sending task's
# BH section) and at the ingress of a namespace that bridges two veths
# with mirred (softirq). UDP datagrams of 4000 bytes from every CPU, IPv4
# and IPv6, must arrive intact; at egress each must have crossed the
# redirect target as exactly three fragments (a whole datagram cannot
# pass a 1500-byte veth).
#
#   fa x0 (10.33.0.1) -- x1 (10.33.0.2) fb     ARP, and the replies
#   fa y0 ---------------- y1 (x1's MAC) fb    x0's egress: ct, mirred to y0
#   fa a0 (10.35.0.1) -- r0 fr r1 -- b0 (10.35.0.2) fb   r0 <-> r1: ct, mirred
. "$(dirname "$0")/val-lib.sh"

netns fa fb fr
for n in fa fb fr; do
	in_ns "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0
done
ip link add x0 netns fa type veth peer name x1 netns fb
ip link add y0 netns fa type veth peer name y1 netns fb
mac=$(in_ns fb cat /sys/class/net/x1/address)
in_ns fb ip link set y1 address "$mac"
in_ns fa ip addr add 10.33.0.1/24 dev x0
in_ns fb ip addr add 10.33.0.2/24 dev x1
in_ns fa ip -6 addr add fc33::1/64 dev x0 nodad
in_ns fb ip -6 addr add fc33::2/64 dev x1 nodad
in_ns fa ip -6 neigh add fc33::2 lladdr "$mac" dev x0 nud permanent
for l in "fa x0" "fa y0" "fb x1" "fb y1"; do
	read -r n d <<<"$l"
	in_ns "$n" ip link set "$d" up
done
# Only what fa sends from its global addresses goes through act_ct: all
# fragments of a datagram carry them, the kernel's own ARP, ND and MLD
# do not.
in_ns fa tc qdisc add dev x0 clsact
in_ns fa tc filter add dev x0 egress protocol ip prio 1 u32 match ip src 10.33.0.1/32 \
	action ct action mirred egress redirect dev y0
in_ns fa tc filter add dev x0 egress protocol ipv6 prio 2 u32 match ip6 src fc33::1/128 \
	action ct action mirred egress redirect dev y0
check "ping through act_ct and mirred at egress" in_ns fa ping -q -c 2 -W 5 10.33.0.2
check "ping6 through act_ct and mirred at egress" in_ns fa ping -6 -q -c 2 -W 5 fc33::2

rxp() { in_ns fb cat /sys/class/net/y1/statistics/rx_packets; }
count=200
# egress_flow ADDR PORT: every CPU's datagrams intact, as 3 fragments each
egress_flow() {
	local before after
	before=$(rxp)
	udp_flow fa fb "$1" "$2" "$count" 4000 60 || return 1
	after=$(rxp)
	echo "y1 received $((after - before)) frames for $((count * NCPUS)) datagrams"
	((after - before == 3 * count * NCPUS))
}
check "IPv4: 4000-byte datagrams from every CPU refragmented at egress, intact" \
	egress_flow 10.33.0.2 9300
check "IPv6: 4000-byte datagrams from every CPU refragmented at egress, intact" \
	egress_flow fc33::2 9301
in_ns fa tc -s filter show dev x0 egress

# The ingress leg: fr joins a0 and b0 with mirred, act_ct on the IP
# traffic (reassembled at r0 or r1, refragmented on the way out).
ip link add a0 netns fa type veth peer name r0 netns fr
ip link add b0 netns fb type veth peer name r1 netns fr
in_ns fa ip addr add 10.35.0.1/24 dev a0
in_ns fb ip addr add 10.35.0.2/24 dev b0
in_ns fa ip -6 addr add fc35::1/64 dev a0 nodad
in_ns fb ip -6 addr add fc35::2/64 dev b0 nodad
for l in "fa a0" "fb b0" "fr r0" "fr r1"; do
	read -r n d <<<"$l"
	in_ns "$n" ip link set "$d" up
done
for d in r0 r1; do
	o=r1
	[[ $d == r1 ]] && o=r0
	in_ns fr tc qdisc add dev "$d" ingress
	in_ns fr tc filter add dev "$d" ingress protocol ip prio 1 matchall \
		action ct action mirred egress redirect dev "$o"
	in_ns fr tc filter add dev "$d" ingress protocol ipv6 prio 2 matchall \
		action ct action mirred egress redirect dev "$o"
	in_ns fr tc filter add dev "$d" ingress protocol all prio 3 matchall \
		action mirred egress redirect dev "$o"
done
check "ping through act_ct and mirred at ingress" in_ns fa ping -q -c 2 -W 5 10.35.0.2
check "ping6 through act_ct and mirred at ingress" in_ns fa ping -6 -q -c 2 -W 5 fc35::2
frag_oks() { in_ns fr nstat -az "$1" | awk -v k="$1" '$1 == k {print $2}'; }
v4_before=$(frag_oks IpFragOKs)
v6_before=$(frag_oks Ip6FragOKs)
check "IPv4: 4000-byte datagrams from every CPU refragmented at ingress, intact" \
	udp_flow fa fb 10.35.0.2 9310 "$count" 4000 60
check "IPv6: 4000-byte datagrams from every CPU refragmented at ingress, intact" \
	udp_flow fa fb fc35::2 9311 "$count" 4000 60
v4_after=$(frag_oks IpFragOKs)
v6_after=$(frag_oks Ip6FragOKs)
echo "fr fragmented IPv4 $v4_before -> $v4_after, IPv6 $v6_before -> $v6_after"
check "fr refragmented every IPv4 datagram" test $((v4_after - v4_before)) -ge $((count * NCPUS))
check "fr refragmented every IPv6 datagram" test $((v6_after - v6_before)) -ge $((count * NCPUS))

# Two tasks on CPU 0 refragment at x0's egress in their own BH sections
# (one IPv4, one IPv6: the same per-CPU storage and lock).
stress "act_ct + mirred refragmentation at egress (sch_frag_data_storage), preempted on CPU 0" \
	sh -c 'a=10.33.0.2; [ "$PREEMPT_PAIR_SIDE" = 1 ] && a=fc33::2
		exec ip netns exec fa "$0" send "$a" 9320 1000000000 4000' "$PROGS/udp-check"
check "IPv4 after the stress: datagrams refragmented at egress, intact" \
	egress_flow 10.33.0.2 9302
finish
