#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sch_frag_data_storage: a namespace joins two veths with act_mirred, and
# act_ct on the IP traffic reassembles fragmented datagrams at ingress;
# mirred sends the whole datagram to the other veth, where sch_fragment()
# refragments it through the per-CPU storage (a whole datagram cannot
# pass a 1500-byte veth). UDP datagrams of 4000 bytes from every CPU,
# IPv4 and IPv6, must arrive intact, and the bridging namespace must have
# refragmented each exactly once.
#
#   fa a0 (10.35.0.1) -- r0 [fr] r1 -- b0 (10.35.0.2) fb
#                           r2 -- c0 (10.35.0.3) fc    (the stress's rival)
#
# (act_ct is at ingress only: 6.1's sch_handle_egress() does not know
# TC_ACT_CONSUMED, with which act_ct keeps a fragment.)
. "$(dirname "$0")/val-lib.sh"

netns fa fb fr
for n in fa fb fr; do in_ns "$n" sysctl -qw net.ipv6.conf.default.accept_dad=0; done
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
# ct_mirred DEV TO: IP traffic into DEV goes through act_ct, then
# everything is redirected to TO's egress (act_ct drops what is not IP).
ct_mirred() {
	in_ns fr tc qdisc add dev "$1" ingress
	in_ns fr tc filter add dev "$1" ingress protocol ip prio 1 matchall \
		action ct action mirred egress redirect dev "$2"
	in_ns fr tc filter add dev "$1" ingress protocol ipv6 prio 2 matchall \
		action ct action mirred egress redirect dev "$2"
	in_ns fr tc filter add dev "$1" ingress protocol all prio 3 matchall \
		action mirred egress redirect dev "$2"
}
ct_mirred r0 r1
ct_mirred r1 r0
check "ping through act_ct and mirred" in_ns fa ping -q -c 2 -W 5 10.35.0.2
check "ping6 through act_ct and mirred" in_ns fa ping -6 -q -c 2 -W 5 fc35::2

frag_oks() { in_ns fr nstat -az "$1" | awk -v k="$1" '$1 == k {print $2}'; }
count=200
# flow ADDR PORT MIB: every CPU's datagrams intact, each refragmented
# once in fr (MIB: its FRAGOKS counter).
flow() {
	local before after
	before=$(frag_oks "$3")
	udp_flow fa fb "$1" "$2" "$count" 4000 60 || return 1
	after=$(frag_oks "$3")
	echo "fr $3: $before -> $after, for $((count * NCPUS)) datagrams"
	((after - before == count * NCPUS))
}
check "IPv4: 4000-byte datagrams from every CPU refragmented by sch_fragment, intact" \
	flow 10.35.0.2 9310 IpFragOKs
check "IPv6: 4000-byte datagrams from every CPU refragmented by sch_fragment, intact" \
	flow fc35::2 9311 Ip6FragOKs
in_ns fr tc -s filter show dev r0 ingress

# The stress: two tasks on CPU 0 send through r0 (IPv4 and IPv6, the
# same storage and lock), and a third port, whose veth end polls its own
# NAPI from a kthread on CPU 0 (napi_rival), fed from CPU 1, refragments
# in fr too. fc's peer b0 answers on r1, whose redirect goes to r0: fc
# gets b0's address statically.
netns fc
ip link add c0 netns fc type veth peer name r2 netns fr
in_ns fc ip addr add 10.35.0.3/24 dev c0
in_ns fc ethtool -K c0 tso off >/dev/null
in_ns fc ip link set c0 up
in_ns fc ip neigh add 10.35.0.2 lladdr "$(in_ns fb cat /sys/class/net/b0/address)" dev c0
in_ns fr ip link set r2 up
ct_mirred r2 r1
napi_rival fr r2
# shellcheck disable=SC2016
RIVAL="ip netns exec fc $PROGS/udp-check send 10.35.0.2 9323 1000000000 4000 0 10000" \
	stress "act_ct + mirred refragmentation (sch_frag_data_storage), preempted on CPU 0" \
	sh -c 'a=10.35.0.2; [ "$PREEMPT_PAIR_SIDE" = 1 ] && a=fc35::2
		exec ip netns exec fa "$0" send "$a" 9320 1000000000 4000' "$PROGS/udp-check"
check "IPv4 after the stress: datagrams refragmented, intact" flow 10.35.0.2 9312 IpFragOKs
finish
