#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# seg6_bpf_srh_states: a seg6local End.BPF route whose program tags the
# SRH and inserts a PadN TLV through the bpf_lwt_seg6_* helpers. The
# receiving end must see every SRH modified so, and the decapsulated UDP
# datagrams (one sender per CPU) intact. An lwt xmit BPF route is also
# crossed (run_lwt_bpf).
. "$(dirname "$0")/val-lib.sh"

netns sa sr sb
ip link add s0 netns sa type veth peer name s1 netns sr
ip link add s2 netns sr type veth peer name s3 netns sb
in_ns sa ip -6 addr add fc00:1::1/64 dev s0 nodad
in_ns sr ip -6 addr add fc00:1::2/64 dev s1 nodad
in_ns sr ip -6 addr add fc00:2::1/64 dev s2 nodad
in_ns sb ip -6 addr add fc00:2::2/64 dev s3 nodad
in_ns sb ip -6 addr add fc00:3::2/128 dev lo
for l in "sa s0" "sr s1" "sr s2" "sb s3"; do
	read -r n d <<<"$l"
	in_ns "$n" ip link set "$d" up
done
in_ns sr sysctl -qw net.ipv6.conf.all.forwarding=1
in_ns sb sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.s3.seg6_enabled=1
in_ns sa ip -6 route add fc00:2::/64 via fc00:1::2
in_ns sa ip -6 route add fc00:e::/64 via fc00:1::2
in_ns sb ip -6 route add fc00:1::/64 via fc00:2::1
in_ns sa ip -6 route add fc00:3::2/128 encap seg6 mode encap segs fc00:e::1,fc00:2::2 dev s0
in_ns sr ip -6 route add fc00:e::1/128 encap seg6local action End.BPF endpoint \
	obj "$PROGS/seg6.bpf.o" sec lwt_seg6local dev s2
in_ns sr ip -6 route show
count=300
in_ns sb "$PROGS/srh-sniff" s3 $((count * NCPUS)) 90 >/tmp/srh.log 2>&1 &
sniff=$!
wait_line /tmp/srh.log listening
check "UDP through End.BPF from every CPU intact after decapsulation" \
	udp_flow sa sb fc00:3::2 9200 "$count" 800 90
check "every SRH carries the program's tag and TLV" wait "$sniff"
cat /tmp/srh.log
# A second way into End.BPF: from sc, over a veth whose end in sr polls
# its own NAPI from a kthread on CPU 0 (napi_rival), fed from CPU 1.
netns sc
ip link add s4 netns sc type veth peer name s5 netns sr
in_ns sc ip -6 addr add fc00:4::1/64 dev s4 nodad
in_ns sr ip -6 addr add fc00:4::2/64 dev s5 nodad
in_ns sc ethtool -K s4 tso off >/dev/null
in_ns sc ip link set s4 up
in_ns sr ip link set s5 up
in_ns sc ip -6 route add fc00:e::/64 via fc00:4::2
in_ns sc ip -6 route add fc00:3::2/128 encap seg6 mode encap segs fc00:e::1,fc00:2::2 dev s4
napi_rival sr s5
RIVAL="ip netns exec sc $PROGS/udp-check send fc00:3::2 9203 1000000000 800 0 10000" \
	stress "End.BPF (seg6_bpf_srh_states), preempted on CPU 0" \
	ip netns exec sa "$PROGS/udp-check" send fc00:3::2 9202 1000000000 800

# lwt BPF on the IPv4 output path.
in_ns sa ip addr add 10.17.0.1/24 dev s0
in_ns sr ip addr add 10.17.0.2/24 dev s1
in_ns sr ip addr add 10.17.1.2/32 dev lo
in_ns sa ip route add 10.17.1.2/32 encap bpf xmit obj "$PROGS/seg6.bpf.o" sec lwt_xmit \
	via 10.17.0.2 dev s0
check "UDP through an lwt xmit BPF route from every CPU intact" \
	udp_flow sa sr 10.17.1.2 9201 "$count" 800 90
finish
