#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# napi_alloc_cache: traffic received through NAPI drivers, so that
# napi_alloc_skb(), the page-frag cache and the skb cache get/put run:
# two virtio-net NICs on one QEMU hub (run-validation adds them), each in
# its own namespace, with softirq NAPI, threaded NAPI and busy polling;
# plus a veth pair with GRO, which makes veth use NAPI. TCP in both
# directions and UDP from every CPU must arrive intact.
. "$(dirname "$0")/val-lib.sh"

mapfile -t nics < <(for d in /sys/class/net/*/device/driver; do
	[[ $(basename "$(readlink "$d")") == virtio_net ]] && basename "$(dirname "$(dirname "$d")")"
done)
if ((${#nics[@]} < 2)); then
	echo "needs two virtio-net NICs on a QEMU hub (boot through boot-tests/run-validation)"
	exit 1
fi
netns na nb
ip link set "${nics[0]}" netns na
ip link set "${nics[1]}" netns nb
in_ns na ip addr add 10.7.0.1/24 dev "${nics[0]}"
in_ns nb ip addr add 10.7.0.2/24 dev "${nics[1]}"
in_ns na ip link set "${nics[0]}" up
in_ns nb ip link set "${nics[1]}" up
check "virtio-net hub link" in_ns na ping -q -c 3 -W 5 10.7.0.2

both_ways() { # PORT BASE: a->b on CPU 0 and b->a on CPU 1 at once
	tcp_transfer na nb 10.7.0.2 "$1" 0 "$2" &
	local p1=$!
	tcp_transfer nb na 10.7.0.1 $(($1 + 1)) $((1 % NCPUS)) "$2" &
	local p2=$!
	wait $p1 && wait $p2
}
check "virtio-net NAPI in softirq: TCP both ways intact" both_ways 5001 4194304
check "virtio-net NAPI: UDP from every CPU intact" \
	udp_flow na nb 10.7.0.2 5100 500 1200 60

in_ns na sh -c "echo 1 >/sys/class/net/${nics[0]}/threaded"
in_ns nb sh -c "echo 1 >/sys/class/net/${nics[1]}/threaded"
check "threaded NAPI: TCP both ways intact" both_ways 5003 4194304

# Busy polling: receivers spin in napi_busy_loop() on the NIC's NAPI.
# CONFIG_NET_RX_BUSY_POLL defaults to n on PREEMPT_RT.
if [[ -e /proc/sys/net/core/busy_read ]]; then
	sysctl -qw net.core.busy_read=50 net.core.busy_poll=50
	check "busy polling: UDP from every CPU intact" udp_flow na nb 10.7.0.2 5200 500 1200 60
	sysctl -qw net.core.busy_read=0 net.core.busy_poll=0
else
	echo "ok - busy polling # SKIP no CONFIG_NET_RX_BUSY_POLL (off on PREEMPT_RT)"
fi

netns va vb
ip link add v0 netns va type veth peer name v1 netns vb
in_ns va ip addr add 10.8.0.1/24 dev v0
in_ns vb ip addr add 10.8.0.2/24 dev v1
in_ns va ip link set v0 up
in_ns vb ip link set v1 up
# veth uses its NAPI only for packets it may aggregate: no TSO on v0.
in_ns va ethtool -K v0 tso off >/dev/null
in_ns vb ethtool -K v1 gro on >/dev/null
check "veth with GRO (NAPI): TCP intact" tcp_transfer va vb 10.8.0.2 5300 0 4194304
check "veth with GRO (NAPI): UDP from every CPU intact" \
	udp_flow va vb 10.8.0.2 5301 500 1200 60
# A second veth into vb whose end polls its own NAPI from a kthread on
# CPU 0 (napi_rival), fed from CPU 1: its GRO takes skbs from and gives
# them back to the same per-CPU cache, preempting the senders inside it.
rival_veth vc v2 10.9.0.1 vb v3 10.9.0.2
RIVAL="ip netns exec vc $PROGS/udp-check send 10.9.0.2 5303 1000000000 1200 0 1000" \
	stress "veth GRO receive in the sender's softirq (napi_alloc_cache), preempted on CPU 0" \
	ip netns exec va "$PROGS/udp-check" send 10.8.0.2 5302 1000000000 1200

# pktgen allocates with __netdev_alloc_skb() from process context, one
# kernel thread per CPU; packets over 1 KiB take its BH-disabled
# napi_alloc_cache branch (smaller ones go to __alloc_skb()).
pktgen() {
	local c _ rx0 rx1 want=0 P=/proc/net/pktgen
	rx0=$(in_ns vb cat /sys/class/net/v1/statistics/rx_packets)
	for ((c = 0; c < NCPUS; c++)); do
		in_ns va sh -c "echo rem_device_all >$P/kpktgend_$c; echo add_device v0@$c >$P/kpktgend_$c"
		in_ns va sh -c "echo 'count 2000' >$P/v0@$c; echo 'pkt_size 1400' >$P/v0@$c;
			echo 'clone_skb 0' >$P/v0@$c; echo 'dst 10.8.0.2' >$P/v0@$c"
		want=$((want + 2000))
	done
	in_ns va sh -c "echo start >$P/pgctrl"
	# pgctrl returns when every packet is sent; with GRO on, v1 counts a
	# packet when its NAPI takes it off the ring, which may be later.
	for _ in $(seq 100); do
		rx1=$(in_ns vb cat /sys/class/net/v1/statistics/rx_packets)
		((rx1 - rx0 >= want)) && break
		sleep 0.1
	done
	echo "pktgen: $want sent from $NCPUS threads, v1 received $((rx1 - rx0))"
	((rx1 - rx0 >= want))
}
check "pktgen from every CPU: every packet received" pktgen

# Three users of napi_alloc_cache on CPU 0 preempting one another inside
# it: two tap-frags writers, each into a tap of its own whose skbs tun
# takes from napi_get_frags() (the skb cache, the small page-frag cache)
# and fills with netdev_alloc_frag() fragments (the page-frag cache),
# and pktgen's kernel thread allocating with __netdev_alloc_skb() from
# the same page-frag cache. One writer runs flat out; the other, at
# SCHED_FIFO 20, writes one frame at the next tick of a ticker that
# spins on CPU 1 and ticks every nbh.frags_period microseconds (default
# 1000), each wake-up preempting the flat-out writer or pktgen at an
# arbitrary instruction: thousands of times a second, what it takes to
# land inside an allocation a few instructions long. Two users handed
# the same memory write different data into it: every frame must read
# back intact. The phase lasts nbh.frags_seconds (default nbh.stress):
# a wake-up lands inside the page-frag cache's allocation about once in
# 30 s (under TCG it can land only at one branch there), so a boot that
# must see that race runs longer (make check-mutants-no-bh-lock).
frags_stress() {
	local P=/proc/net/pktgen period low high secs
	if ((STRESS == 0)); then
		echo "ok - stress: tap writes from the NAPI caches # SKIP nbh.stress=0"
		return
	fi
	period=$(param nbh.frags_period)
	period=${period:-1000}
	secs=$(param nbh.frags_seconds)
	secs=${secs:-$STRESS}
	in_ns va sh -c "echo rem_device_all >$P/kpktgend_0; echo add_device v0@0 >$P/kpktgend_0"
	in_ns va sh -c "echo 'count 0' >$P/v0@0; echo 'pkt_size 1400' >$P/v0@0;
		echo 'clone_skb 0' >$P/v0@0; echo 'dst 10.8.0.2' >$P/v0@0"
	in_ns va sh -c "echo start >$P/pgctrl" &
	netns tf
	on_cpu 0 ip netns exec tf "$PROGS/tap-frags" 0 "$secs" &
	low=$!
	on_cpu 0 ip netns exec tf "$PROGS/tap-frags" 1 "$secs" "$period" 20 &
	high=$!
	check "stress: a flat-out tap writer on CPU 0 for $secs s, every frame intact" wait "$low"
	check "stress: a SCHED_FIFO tap writer preempting it, ticked every $period us, every frame intact" \
		wait "$high"
	in_ns va sh -c "echo stop >$P/pgctrl"
	wait || true
	in_ns va sed -n "s/^ *pkts-sofar: \([0-9]*\).*/pktgen sent \1 packets meanwhile/p" "$P/v0@0"
}
frags_stress
finish
