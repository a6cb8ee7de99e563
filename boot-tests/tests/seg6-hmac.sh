#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hmac_ring: seg6 encapsulation routes that sign their SRH with an HMAC
# (seg6_push_hmac -> seg6_hmac_compute on the sender, in the sending
# task), and a receiver that requires the HMAC (seg6_require_hmac=1:
# seg6_hmac_validate_skb -> seg6_hmac_compute in its receive softirq).
# Keys 100 (sha256) and 102 (sha1) are the same on both ends: UDP from
# every CPU at once through each must arrive intact and complete. Key 101
# has another secret on the receiver, and one route signs nothing: their
# datagrams reach the receiver and not one may be delivered. The encap
# routes also keep their route in a dst_cache (dst_cache_get,
# dst_cache_set_ip6).
#
#   ha (h0 fc00:40::1) -- (h1 fc00:40::2) hb, fc00:41::2 on hb's lo
. "$(dirname "$0")/val-lib.sh"

netns ha hb
ip link add h0 netns ha type veth peer name h1 netns hb
in_ns ha ip -6 addr add fc00:40::1/64 dev h0 nodad
in_ns hb ip -6 addr add fc00:40::2/64 dev h1 nodad
in_ns hb ip -6 addr add fc00:41::2/128 dev lo
in_ns ha ip link set h0 up
in_ns hb ip link set h1 up
in_ns hb sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.h1.seg6_enabled=1 \
	net.ipv6.conf.all.seg6_require_hmac=1 net.ipv6.conf.h1.seg6_require_hmac=1
in_ns hb ip -6 route add fc00:42::/64 via fc00:40::1

# ip sr hmac set reads the secret with getpass(): from the terminal if
# there is one, so run it without one (setsid) and give it on stdin.
hmac_key() { # NS KEYID ALGO SECRET
	printf '%s\n' "$4" | setsid -w ip -n "$1" sr hmac set "$2" "$3" >/dev/null 2>&1
}
hmac_key ha 100 sha256 nbh-secret-one
hmac_key hb 100 sha256 nbh-secret-one
hmac_key ha 101 sha256 nbh-secret-two
hmac_key hb 101 sha256 not-the-secret
hmac_key ha 102 sha1 nbh-secret-three
hmac_key hb 102 sha1 nbh-secret-three
keys() { ip -n "$1" sr hmac show | grep -c '^hmac '; }
check "three HMAC keys on each end" test "$(keys ha)$(keys hb)" = 33
ip -n hb sr hmac show

# One destination address per route, all delivered on hb's lo.
for d in 3 4 5; do in_ns hb ip -6 addr add fc00:41::$d/128 dev lo; done
route() { # ADDR [hmac KEYID]
	in_ns ha ip -6 route add "$1"/128 encap seg6 mode encap segs fc00:40::2 "${@:2}" dev h0
}
route fc00:41::2 hmac 100
route fc00:41::3 hmac 102
route fc00:41::4 hmac 101
route fc00:41::5
in_ns ha ip -6 route show | grep seg6

count=300
check "UDP with an HMAC-SHA256 SRH from every CPU intact, all delivered" \
	udp_flow ha hb fc00:41::2 9500 "$count" 800 90
check "UDP with an HMAC-SHA1 SRH from every CPU intact, all delivered" \
	udp_flow ha hb fc00:41::3 9501 "$count" 800 90

# Rejected: the receiver counts every packet in (Ip6InReceives) and
# delivers none of them to the socket.
in_receives() { in_ns hb nstat -az Ip6InReceives | awk '$1 == "Ip6InReceives" {print $2}'; }
rejected() { # ADDR PORT WHAT
	local log=/tmp/hmac.$2 before after c pids=() rc=0
	in_ns hb "$PROGS/udp-check" recv "$1" "$2" 1 800 8 >"$log" 2>&1 &
	local rcv=$!
	wait_line "$log" listening || return 1
	before=$(in_receives)
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec ha "$PROGS/udp-check" send "$1" "$2" "$count" 800 "$c" 200 \
			>/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
	wait "$rcv" && rc=1
	after=$(in_receives)
	cat "$log"
	echo "$3: hb received $((after - before)) IPv6 packets for $((count * NCPUS)) datagrams"
	grep -q '^received 0 intact, 0 damaged, 0 duplicated, 0 from other' "$log" &&
		((after - before >= count * NCPUS)) && ((rc == 0))
}
check "an SRH signed with the wrong secret is dropped (every packet)" \
	rejected fc00:41::4 9502 "wrong secret"
check "an SRH without HMAC is dropped when the receiver requires one" \
	rejected fc00:41::5 9503 "no HMAC"

# The same route again after the rejections: still delivered.
check "HMAC-SHA256 traffic still delivered afterwards" \
	udp_flow ha hb fc00:41::2 9504 "$count" 800 90

# Two senders preempting each other on CPU 0, each computing HMACs under
# hmac_ring's lock (in the sending task), the receive side validating
# them on the same CPU's backlog.
stress "seg6 HMAC signing and validation (hmac_ring), preempted on CPU 0" \
	ip netns exec ha "$PROGS/udp-check" send fc00:41::2 9505 1000000000 800
finish
