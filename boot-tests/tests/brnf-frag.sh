#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# brnf_frag_data_storage: a bridge with br_netfilter calling iptables and
# ip6tables hooks, and conntrack in the bridge's namespace, reassembles
# fragmented IPv4 and IPv6 datagrams and refragments them on the way out
# (br_nf_dev_queue_xmit). Datagrams of 3000 bytes from every CPU must
# arrive intact, reassembled by the receiver from the bridge's fragments.
. "$(dirname "$0")/val-lib.sh"

netns fa fb fr
ip link add f0 netns fa type veth peer name f1 netns fr
ip link add f2 netns fb type veth peer name f3 netns fr
in_ns fr ip link add br0 type bridge
for p in f1 f3; do
	in_ns fr ip link set "$p" master br0
	in_ns fr ip link set "$p" up
done
in_ns fr ip link set br0 up
in_ns fa ip addr add 10.16.0.1/24 dev f0
in_ns fb ip addr add 10.16.0.2/24 dev f2
in_ns fa ip -6 addr add fc00:16::1/64 dev f0 nodad
in_ns fb ip -6 addr add fc00:16::2/64 dev f2 nodad
in_ns fa ip link set f0 up
in_ns fb ip link set f2 up

# The bridge hooks run only with br_netfilter's sysctls on (global in
# 6.1); conntrack in the bridge namespace registers the defrag hooks.
sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
in_ns fr nft -f - <<'NFT'
table inet nbh {
	chain pre {
		type filter hook prerouting priority 0;
		ct state new,established counter accept
	}
}
NFT
check "ping across the bridge" in_ns fa ping -q -c 2 -W 5 10.16.0.2
check "ping6 across the bridge" in_ns fa ping -6 -q -c 2 -W 5 fc00:16::2

reasm() { in_ns fb nstat -az "$1" | awk -v k="$1" '$1 == k {print $2}'; }
v4_before=$(reasm IpReasmOKs)
v6_before=$(reasm Ip6ReasmOKs)
count=300
check "IPv4: 3000-byte datagrams from every CPU intact" \
	udp_flow fa fb 10.16.0.2 9100 "$count" 3000 90
check "IPv6: 3000-byte datagrams from every CPU intact" \
	udp_flow fa fb fc00:16::2 9101 "$count" 3000 90
v4_after=$(reasm IpReasmOKs)
v6_after=$(reasm Ip6ReasmOKs)
echo "receiver reassembled IPv4 $v4_before -> $v4_after, IPv6 $v6_before -> $v6_after"
check "IPv4 datagrams arrived as fragments (refragmented by the bridge)" \
	test $((v4_after - v4_before)) -ge $((count * NCPUS))
check "IPv6 datagrams arrived as fragments (refragmented by the bridge)" \
	test $((v6_after - v6_before)) -ge $((count * NCPUS))
# A third port whose veth end polls its own NAPI from a kthread on CPU 0
# (napi_rival), fed from CPU 1, refragments into the same per-CPU storage.
netns fc
ip link add f4 netns fc type veth peer name f5 netns fr
in_ns fr ip link set f5 master br0
in_ns fr ip link set f5 up
in_ns fc ip addr add 10.16.0.3/24 dev f4
in_ns fc ethtool -K f4 tso off >/dev/null
in_ns fc ip link set f4 up
napi_rival fr f5
# The low-priority sender sends IPv6 and the high-priority one IPv4, so
# that each branch of br_nf_dev_queue_xmit() is preempted by the other.
# The per-CPU storage holds the Ethernet header the bridge puts back on
# each fragment: overwritten by the other family's mid-use, it sends
# IPv6 fragments as IPv4 frames (or the reverse), which fb counts as
# header errors.
hdr_errors() { in_ns fb nstat -az IpInHdrErrors Ip6InHdrErrors | awk '/HdrErrors/ {n += $2} END {print n + 0}'; }
errors_before=$(hdr_errors)
# shellcheck disable=SC2016 # expanded by the inner shell, per side
RIVAL="ip netns exec fc $PROGS/udp-check send 10.16.0.2 9103 1000000000 3000 0 10000" \
	stress "refragmentation by the bridge (brnf_frag_data_storage), preempted on CPU 0" \
	sh -c 'a=10.16.0.2; [ "$PREEMPT_PAIR_SIDE" = 0 ] && a=fc00:16::2
		exec ip netns exec fa "$0" send "$a" 9102 1000000000 3000' "$PROGS/udp-check"
errors_after=$(hdr_errors)
echo "fb's IPv4 and IPv6 header errors: $errors_before -> $errors_after"
check "no fragment left the bridge with the other family's header" \
	test "$errors_after" -eq "$errors_before"
echo "conntrack in the bridge namespace:"
in_ns fr nft list chain inet nbh pre | grep counter
sysctl -qw net.bridge.bridge-nf-call-iptables=0 net.bridge.bridge-nf-call-ip6tables=0
finish
