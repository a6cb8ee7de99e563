#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpf_sp (the bpf_csum_diff() scratchpad): a tc egress program rewrites
# the source address of UDP datagrams and fixes the IP and UDP checksums
# from bpf_csum_diff(). Checksum offloads are off on both ends, so the
# receiver verifies both sums in software: datagrams from every CPU must
# arrive intact and from the rewritten address, and none of the stress
# phase's may fail a checksum.
. "$(dirname "$0")/val-lib.sh"

netns ca cb
ip link add c0 netns ca type veth peer name c1 netns cb
in_ns ca ip addr add 10.18.0.1/24 dev c0
in_ns cb ip addr add 10.18.0.2/24 dev c1
in_ns ca ip link set c0 up
in_ns cb ip link set c1 up
in_ns ca ethtool -K c0 tx off >/dev/null
in_ns cb ethtool -K c1 rx off >/dev/null
in_ns ca ping -q -c 1 -W 5 10.18.0.2 >/dev/null
in_ns ca tc qdisc add dev c0 clsact
in_ns ca tc filter add dev c0 egress bpf direct-action obj "$PROGS/csum.bpf.o" sec tc

errs() { in_ns cb nstat -az "$1" | awk -v k="$1" '$1 == k {print $2}'; }
csum_before=$(errs UdpInCsumErrors)
hdr_before=$(errs IpInHdrErrors)
recv_from_rewritten() { # like udp_flow, but the source must be 10.18.0.77
	local c pids=()
	in_ns cb "$PROGS/udp-check" recv 10.18.0.2 9300 $((300 * NCPUS)) 700 90 10.18.0.77 \
		>/tmp/csum.log 2>&1 &
	local rcv=$!
	wait_line /tmp/csum.log listening || return 1
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec ca "$PROGS/udp-check" send 10.18.0.2 9300 300 700 "$c" 200 \
			>/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
	local rc=0
	wait "$rcv" || rc=$?
	cat /tmp/csum.log
	return $rc
}
check "rewritten datagrams from every CPU pass the receiver's checksum checks" \
	recv_from_rewritten
# The two tasks of the stress phase send to ports of both parities, so
# the program rewrites their datagrams to different addresses, with
# different sums computed in the same per-CPU scratchpad.
# shellcheck disable=SC2016 # expanded by the inner shell, per side
stress "tc egress program calling bpf_csum_diff() (bpf_sp), preempted on CPU 0" \
	sh -c 'exec ip netns exec ca "$0" send 10.18.0.2 $((9302 + PREEMPT_PAIR_SIDE)) 1000000000 700' \
	"$PROGS/udp-check"
echo "UdpInCsumErrors $csum_before -> $(errs UdpInCsumErrors)," \
	"IpInHdrErrors $hdr_before -> $(errs IpInHdrErrors)"
check "no checksum errors at the receiver" \
	test "$(errs UdpInCsumErrors)" = "$csum_before" -a "$(errs IpInHdrErrors)" = "$hdr_before"
finish
