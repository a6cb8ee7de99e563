#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpf_redirect_info and the XDP flush lists: XDP redirects through a
# cpumap (with a cpumap program), a devmap, bpf_redirect() and an xskmap
# read by an AF_XDP socket, native and generic XDP; tc bpf_redirect(),
# bpf_redirect_peer() and bpf_redirect_neigh(); BPF_PROG_TEST_RUN with
# live frames; XDP on a tap device. Senders run on every CPU at once;
# each leg asserts the frame counts at both ends.
#
#   xs (x0 10.20.0.1) -- (x1 10.20.0.2) xr (x2 10.21.0.1) -- (x3 10.21.0.2) xd
#
# xr does not forward, so only a redirect carries frames from x1 to x2.
. "$(dirname "$0")/val-lib.sh"

netns xs xr xd
# IPv4 only: IPv6 router solicitations and MLD reports from x2 would be
# counted on x3 (or dropped with the live frames) beside the test frames.
for n in xs xr xd; do in_ns "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1; done
ip link add x0 netns xs type veth peer name x1 netns xr
# One queue per CPU on x3: veth_xdp_xmit() adds its xdp_xmit counters to
# the x3 queue smp_processor_id() selects, outside the ring's lock, so
# with one queue two CPUs lose each other's increments (the live frame
# accounting below came out 16 short once). With a queue per CPU, each
# queue's counters have one writer, serialised by disabled BH.
ip link add x2 netns xr numtxqueues "$NCPUS" numrxqueues "$NCPUS" type veth \
	peer name x3 netns xd numtxqueues "$NCPUS" numrxqueues "$NCPUS"
in_ns xs ip addr add 10.20.0.1/24 dev x0
in_ns xr ip addr add 10.20.0.2/24 dev x1
in_ns xr ip addr add 10.21.0.1/24 dev x2
in_ns xd ip addr add 10.21.0.2/24 dev x3
for l in "xs x0" "xr x1" "xr x2" "xd x3"; do
	read -r n d <<<"$l"
	in_ns "$n" ip link set "$d" up
done
# veth hands a packet to the peer's NAPI (where native XDP runs) only if
# it may be aggregated: the sending side must not offer TSO. A redirected
# frame loses CHECKSUM_PARTIAL, so the sender computes full checksums.
in_ns xs ethtool -K x0 tso off tx off >/dev/null
in_ns xr ethtool -K x2 tso off >/dev/null
in_ns xr sysctl -qw net.ipv4.ip_forward=0
in_ns xs ip route add 10.21.0.0/24 via 10.20.0.2
# Redirect programs also take ARP frames: resolve neighbours statically.
in_ns xs ip neigh replace 10.20.0.2 lladdr "$(in_ns xr cat /sys/class/net/x1/address)" dev x0

COUNT=300
SENT=$((COUNT * NCPUS))
LOADERS=()
start_loader() { # NS MODE IN TARGET LOG
	# Not through in_ns: $! must be the loader itself (ip execs it), so
	# that SIGTERM reaches it and it detaches its programs.
	ip netns exec "$1" "$PROGS/xdp-redirect" "$2" "$3" "$4" 600 >"$5" 2>&1 &
	LOADERS+=($!)
	wait_line "$5" ready
}
stop_loaders() {
	local p
	for p in "${LOADERS[@]}"; do
		kill -TERM "$p"
		wait "$p" || return 1
	done
	LOADERS=()
}
counter() { # LOG NAME: a counter printed by xdp-redirect (0 if absent)
	awk -v k="$2" '$1 == "count" && $2 == k { n = $3 } END { print n + 0 }' "$1"
}
send_all() { # ADDR PORT: COUNT datagrams from one sender per CPU
	local c pids=()
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec xs "$PROGS/udp-check" send "$1" "$2" "$COUNT" 600 "$c" 300 \
			>/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
	sleep 1
}
at_least() { # WHAT GOT WANT
	echo "$1: $2 (want >= $3)"
	(($2 >= $3))
}
equal() { # WHAT GOT WANT
	echo "$1: $2 (want $3)"
	(($2 == $3))
}

# Frames that reach the stack of xr or xd: the receiver counts them.
to_stack() { # MODE NS ADDR PORT [TARGET]
	local mode=$1 ns=$2 addr=$3 port=$4 target=${5:-x2} log=/tmp/xdp.$1.log
	start_loader xr "$mode" x1 "$target" "$log" || return 1
	local rc=0
	udp_flow xs "$ns" "$addr" "$port" "$COUNT" 600 90 || rc=1
	stop_loaders || rc=1
	cat "$log"
	return $rc
}
# Frames redirected to x2 with x1's MAC: counted by XDP on x3, dropped.
to_x3() { # MODE PORT
	local mode=$1 log=/tmp/xdp.$1.log cnt=/tmp/xdp.$1.count
	start_loader xd count x3 x3 "$cnt" || return 1
	start_loader xr "$mode" x1 x2 "$log" || return 1
	send_all 10.21.0.2 "$2" || return 1
	stop_loaders || return 1
	cat "$log" "$cnt"
	local key=${mode%-generic}
	[[ $key == tc-* ]] && key=tc
	at_least "$mode: frames the program redirected" "$(counter "$log" "$key")" "$SENT" &&
		at_least "$mode: frames seen on x3" "$(counter "$cnt" count)" $((SENT * 9 / 10))
}

queue_sum() { # NS DEV PREFIX STAT: an ethtool -S counter summed over queues
	in_ns "$1" ethtool -S "$2" | awk -v p="$3" -v s="$4" \
		'$1 ~ "^" p "_[0-9]+_" s ":$" { n += $2 } END { print n + 0 }'
}
xdp_xmit() { queue_sum xr x2 tx_queue "$1"; } # x2's ndo_xdp_xmit counters
drained() { # COUNT: true once x3's NAPI has taken COUNT frames off its rings
	local _
	for _ in $(seq 100); do
		(($(queue_sum xd x3 rx_queue xdp_packets) >= $1)) && return 0
		sleep 0.1
	done
	echo "x3 did not drain: $(queue_sum xd x3 rx_queue xdp_packets) of $1 frames taken"
	return 1
}
live() {
	local log=/tmp/xdp.live.log cnt=/tmp/xdp.live.count secs=3 sent0 lost0 rx0 run seen sent lost
	# Every live frame run goes out of x2 through the devmap: veth counts
	# what it queued for x3 and what it could not (a ring of x3 full;
	# with a queue per CPU that is rare, 0 lost in 40 runs here).
	# Every counter is read when it is settled: the xmit counters are
	# final when BPF_PROG_TEST_RUN returns (it flushes the devmap before
	# it returns), x3's XDP counter once x3's NAPI has taken every queued
	# frame off its rings (veth adds to xdp_packets after the program ran).
	sent0=$(xdp_xmit xdp_xmit)
	lost0=$(xdp_xmit xdp_xmit_errors)
	rx0=$(queue_sum xd x3 rx_queue xdp_packets)
	start_loader xd count x3 x3 "$cnt" || return 1
	in_ns xr "$PROGS/xdp-redirect" live lo x2 "$secs" >"$log" 2>&1 || { cat "$log"; return 1; }
	drained $((rx0 + $(xdp_xmit xdp_xmit) - sent0)) || return 1
	stop_loaders || return 1
	cat "$log" "$cnt"
	run=$(counter "$log" live)
	seen=$(counter "$cnt" count)
	sent=$(($(xdp_xmit xdp_xmit) - sent0))
	lost=$(($(xdp_xmit xdp_xmit_errors) - lost0))
	echo "live frames: $run run, $sent queued by x2 ($seen seen on x3), $lost lost (ring full)"
	at_least "live frames run" "$run" $((secs * 1000 * NCPUS)) &&
		at_least "live frames seen on x3" "$seen" $((run / 2)) &&
		equal "live frames queued or lost" $((sent + lost)) "$run" &&
		equal "live frames seen on x3" "$seen" "$sent"
}
# nbh.live_repeat=N (make check-live-stability): only the live frame
# leg, N times in a row, to show that its exact accounting is stable.
LIVE_REPEAT=$(param nbh.live_repeat)
if [[ -n $LIVE_REPEAT ]]; then
	for ((i = 1; i <= LIVE_REPEAT; i++)); do
		check "BPF_PROG_TEST_RUN with live frames through a devmap, run $i of $LIVE_REPEAT" live
	done
	finish
	exit
fi

cpumap() { # MODE PORT
	to_stack "$1" xr 10.20.0.2 "$2" || return 1
	at_least "$1: frames into the cpumap" "$(counter "/tmp/xdp.$1.log" cpumap)" "$SENT" &&
		at_least "$1: frames through the cpumap program" \
			"$(counter "/tmp/xdp.$1.log" cpumap_prog)" "$SENT"
}
check "XDP cpumap (native) with a cpumap program" cpumap cpumap 9400
check "XDP cpumap (generic)" cpumap cpumap-generic 9401
check "XDP devmap (native) to veth" to_x3 devmap 9402
check "XDP devmap (generic) to veth" to_x3 devmap-generic 9403
check "XDP bpf_redirect (native) to veth" to_x3 ifindex 9404
check "XDP bpf_redirect (generic) to veth" to_x3 ifindex-generic 9405
check "tc bpf_redirect to veth" to_x3 tc-redirect 9406

xsk() {
	local log=/tmp/xdp.xsk.log
	start_loader xr xsk x1 x2 "$log" || return 1
	send_all 10.20.0.2 9407 || return 1
	stop_loaders || return 1
	cat "$log"
	at_least "xsk: frames the program redirected" "$(counter "$log" xsk)" "$SENT" &&
		at_least "xsk: frames read from the AF_XDP socket" \
			"$(counter "$log" xsk_received)" $((SENT * 9 / 10))
}
check "XDP xskmap to an AF_XDP socket" xsk
check "tc bpf_redirect_neigh, delivered in xd" to_stack tc-neigh xd 10.21.0.2 9408
check "tc bpf_redirect_peer, delivered in xd" to_stack tc-peer xd 10.21.0.2 9409

check "BPF_PROG_TEST_RUN with live frames through a devmap" live
check "XDP on a tap device (tun_build_skb)" in_ns xr "$PROGS/tun-xdp" 2000

# The native devmap leg under stress: two senders on CPU 0 preempting
# each other inside x1's NAPI poll, which queues frames for x2 on x2's
# bulk queue of CPU 0 (bq_enqueue(), __dev_flush()), and a rival: a
# second veth into xr (x4 -> x5) whose NAPI runs threaded at SCHED_FIFO
# 30 on CPU 0 (napi_rival), its XDP program redirecting into x2 through
# a devmap of its own: x2 has one bulk queue per CPU, whichever map a
# frame came through.
if ((STRESS)); then
	ip link add x4 netns xs type veth peer name x5 netns xr
	in_ns xs ip addr add 10.22.0.1/24 dev x4
	in_ns xr ip addr add 10.22.0.2/24 dev x5
	in_ns xs ip link set x4 up
	in_ns xr ip link set x5 up
	in_ns xs ethtool -K x4 tso off tx off >/dev/null
	in_ns xs ip neigh replace 10.22.0.2 lladdr "$(in_ns xr cat /sys/class/net/x5/address)" dev x4
	napi_rival xr x5
	start_loader xd count x3 x3 /tmp/xdp.stress.count
	start_loader xr devmap x1 x2 /tmp/xdp.stress.log
	start_loader xr devmap x5 x2 /tmp/xdp.rival.log
fi
RIVAL="ip netns exec xs $PROGS/udp-check send 10.22.0.2 9411 1000000000 600 0 10000" \
	stress "XDP devmap redirect into x2's bulk queue (net_device.xdp_bulkq), preempted on CPU 0" \
	ip netns exec xs "$PROGS/udp-check" send 10.21.0.2 9410 1000000000 600
check "the stress phase's XDP programs detach cleanly" stop_loaders

# The cpumap leg under stress: one cpumap program on x1 and x5 at once
# (one map), so that the senders' NAPI poll of x1 and the rival NAPI
# thread of x5, both on CPU 0, enqueue into the same entries' bulk
# queues of CPU 0 (xdp_bulk_queue: bq_enqueue(), bq_flush_to_queue()).
# A bulk queue is per cpumap entry and CPU: two maps would share none.
if ((STRESS)); then
	start_loader xr cpumap x1,x5 x2 /tmp/xdp.cpustress.log
fi
RIVAL="ip netns exec xs $PROGS/udp-check send 10.22.0.2 9413 1000000000 600 0 10000" \
	stress "XDP cpumap redirect into the cpumap entries' bulk queues (xdp_bulk_queue), preempted on CPU 0" \
	ip netns exec xs "$PROGS/udp-check" send 10.21.0.2 9412 1000000000 600
check "the cpumap stress phase's XDP program detaches cleanly" stop_loaders
cpumap_stressed() {
	at_least "frames into the cpumap" "$(counter /tmp/xdp.cpustress.log cpumap)" 1 &&
		at_least "frames through the cpumap program" \
			"$(counter /tmp/xdp.cpustress.log cpumap_prog)" 1
}
if ((STRESS)); then
	check "the cpumap stress phase carried frames through the cpumap" cpumap_stressed
fi
finish
