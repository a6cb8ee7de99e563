#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fib6_nh.rt6i_pcpu: the per-CPU copies of an IPv6 route. ip6_pol_route()
# looks at the CPU's slot (rt6_get_pcpu_route()), finds it empty after
# the route was replaced, allocates a copy and installs it with
# cmpxchg() (rt6_make_pcpu_route()). Each access is atomic; the pair is
# not: a task that preempts another between the look and the install
# installs first, and the other's cmpxchg() fails, which 6.1 answers
# with BUG_ON(). progs/route6-race replaces a /128 route through a
# dummy device from CPU 1 while two senders on CPU 0, one flat out and
# one SCHED_FIFO woken at a random point after each replace, look it up.
# The kernel must survive every replace, and both senders' datagrams
# must leave through the route (a send whose lookup meets the route in
# the middle of its replacement gets ENETUNREACH: counted, not failed).
. "$(dirname "$0")/val-lib.sh"

if ((NCPUS < 2)); then
	echo "ok - route lookups from two tasks on CPU 0 # SKIP needs two CPUs"
	finish
	exit 0
fi
netns r6
in_ns r6 ip link add d6 type dummy
in_ns r6 ip link set d6 up
in_ns r6 ip -6 addr add fc00:66::1/64 dev d6 nodad
in_ns r6 ip -6 route add fc00:67::1/128 dev d6
# The stress phase's length, or 10 s in a boot without one: the race
# is the test, not a phase added to it.
secs=$((STRESS > 10 ? STRESS : 10))
tx_packets() { in_ns r6 cat /sys/class/net/d6/statistics/tx_packets; }
race() {
	local before after out sends wakeups
	before=$(tx_packets)
	out=$(in_ns r6 "$PROGS/route6-race" d6 fc00:67::1 "$secs") || { echo "$out"; return 1; }
	after=$(tx_packets)
	echo "$out; d6 sent $((after - before)) datagrams"
	sends=$(sed -n 's/.* sends=\([0-9]*\).*/\1/p' <<<"$out")
	wakeups=$(sed -n 's/.* wakeups=\([0-9]*\).*/\1/p' <<<"$out")
	# Every datagram of both senders went out through the route's device.
	((after - before >= sends + wakeups))
}
check "route replaced from CPU 1 while two tasks on CPU 0 install its per-CPU copy ($secs s)" race
# A kernel with the test-only hook of boot-tests/series/rt-interleave
# (ipv6.pcpu_route_delay_us widens the window) counts the lost
# installs: with the window widened, the race must have been reached.
knob=/sys/module/ipv6/parameters
if [ -r $knob/pcpu_route_lost ]; then
	lost=$(cat $knob/pcpu_route_lost)
	delay=$(cat $knob/pcpu_route_delay_us)
	echo "per-CPU route installs lost to another task: $lost (window widened by $delay us)"
	if ((delay > 0)); then
		check "the race was reached: another task installed first ($lost times)" test "$lost" -gt 0
	fi
fi
check "the route still answers afterwards" in_ns r6 ip -6 route get fc00:67::1
finish
