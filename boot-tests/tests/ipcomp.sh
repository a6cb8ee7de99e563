#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ipcomp_scratches and ipcomp_data.tfms (ipcomp_scratch_lock): IPComp
# (deflate) transport-mode states and policies between two namespaces,
# IPv4 and IPv6, both directions. UDP datagrams of 1400 compressible
# bytes from every CPU at once are compressed by the sending task
# (ipcomp_output -> ipcomp_compress) and decompressed in the receiver's
# softirq (ipcomp_input): all must arrive intact; the receiving state
# must have decompressed exactly one packet per datagram, the wire must
# have carried less than half of the payload bytes, and no SA may count
# an error.
#
#   ca (c0 10.32.0.1 fc00:32::1) -- (c1 10.32.0.2 fc00:32::2) cb
. "$(dirname "$0")/val-lib.sh"

netns ca cb
ip link add c0 netns ca type veth peer name c1 netns cb
in_ns ca ip addr add 10.32.0.1/24 dev c0
in_ns cb ip addr add 10.32.0.2/24 dev c1
in_ns ca ip -6 addr add fc00:32::1/64 dev c0 nodad
in_ns cb ip -6 addr add fc00:32::2/64 dev c1 nodad
in_ns ca ip link set c0 up
in_ns cb ip link set c1 up

# SAs (one CPI per direction and family) in both namespaces; policies:
# out through the SA, in "level use" (datagrams below the compression
# threshold, ND and the like, go out uncompressed and must be accepted).
A4=10.32.0.1 B4=10.32.0.2 A6=fc00:32::1 B6=fc00:32::2
sa() { # SRC DST CPI
	local n
	for n in ca cb; do
		in_ns "$n" ip xfrm state add src "$1" dst "$2" proto comp spi "$3" \
			mode transport comp deflate
	done
}
sa $A4 $B4 0x1001
sa $B4 $A4 0x1002
sa $A6 $B6 0x1003
sa $B6 $A6 0x1004
policies() { # NS SELF PEER
	in_ns "$1" ip xfrm policy add src "$2" dst "$3" dir out \
		tmpl src "$2" dst "$3" proto comp mode transport
	in_ns "$1" ip xfrm policy add src "$3" dst "$2" dir in \
		tmpl src "$3" dst "$2" proto comp mode transport level use
}
policies ca $A4 $B4
policies ca $A6 $B6
policies cb $B4 $A4
policies cb $B6 $A6
check "four IPComp SAs in each namespace" \
	test "$(in_ns ca ip xfrm state | grep -c '^src')$(in_ns cb ip xfrm state | grep -c '^src')" = 44

# Packets a state has processed (lifetime current), on the receiving end.
sa_packets() { # NS SRC DST CPI
	in_ns "$1" ip -s xfrm state get src "$2" dst "$3" proto comp spi "$4" |
		awk '/lifetime current:/ {getline; sub(/.*bytes\), */, ""); sub(/\(packets\).*/, "");
			print $1 + 0; exit}'
}
rx_bytes() { in_ns "$1" cat "/sys/class/net/$2/statistics/rx_bytes"; }
sa_errors() { # NS: the SAs' error counters (stats: replay-window, replay, failed), summed
	in_ns "$1" ip -s xfrm state | awk '$1 == "replay-window" && $3 == "replay" {
		n += $2 + $4 + $6; s++ } END {print s + 0, n + 0}'
}
count=200
size=1400
flow() { # FROM TO FROM_ADDR TO_ADDR CPI PORT RXDEV
	local p0 p1 b0 b1 n=$((count * NCPUS))
	p0=$(sa_packets "$2" "$3" "$4" "$5")
	b0=$(rx_bytes "$2" "$7")
	udp_flow "$1" "$2" "$4" "$6" "$count" "$size" 90 || return 1
	p1=$(sa_packets "$2" "$3" "$4" "$5")
	b1=$(rx_bytes "$2" "$7")
	echo "SA $5 in $2: $((p1 - p0)) packets decompressed for $n datagrams;" \
		"$((b1 - b0)) bytes on the wire for $((n * size)) payload bytes"
	((p1 - p0 == n && b1 - b0 < n * size / 2))
}
check "IPv4 ca -> cb: compressed from every CPU, decompressed intact" \
	flow ca cb $A4 $B4 0x1001 9600 c1
check "IPv6 ca -> cb: compressed from every CPU, decompressed intact" \
	flow ca cb $A6 $B6 0x1003 9601 c1
check "IPv4 cb -> ca: compressed from every CPU, decompressed intact" \
	flow cb ca $B4 $A4 0x1002 9602 c0
check "IPv6 cb -> ca: compressed from every CPU, decompressed intact" \
	flow cb ca $B6 $A6 0x1004 9603 c0
# Small datagrams stay below the threshold: sent uncompressed.
small() {
	local p0 p1
	p0=$(sa_packets cb $A4 $B4 0x1001)
	udp_flow ca cb $B4 9604 50 64 60 || return 1
	p1=$(sa_packets cb $A4 $B4 0x1001)
	echo "SA 0x1001 in cb: $((p1 - p0)) packets decompressed for 64-byte datagrams"
	((p1 == p0))
}
check "datagrams below the threshold go uncompressed and arrive" small
no_errors() {
	local s e n
	for n in ca cb; do
		read -r s e < <(sa_errors "$n")
		echo "$n: $s SAs, errors (replay window, replays, integrity failures) $e"
		[[ $s == 4 && $e == 0 ]] || return 1
	done
}
check "no SA counted an error" no_errors

# Two senders preempting each other on CPU 0, each compressing in its own
# task under ipcomp_scratch_lock; CPU 0's backlog decompresses them.
stress "IPComp compression and decompression (ipcomp_scratch_lock), preempted on CPU 0" \
	ip netns exec ca "$PROGS/udp-check" send $B4 9605 1000000000 $size
finish
