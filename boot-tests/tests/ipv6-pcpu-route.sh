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
# The kernel must survive every replace, both senders' datagrams must
# leave through the route (a send whose lookup meets the route in the
# middle of its replacement gets ENETUNREACH: counted, not failed; one
# in flight on a copy torn down meanwhile is discarded: at most 1 in
# 1000).
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
# The namespace's IPv6 output counters that moved, and d6's drops: where
# datagrams went that d6 did not send.
# shellcheck disable=SC2016 # awk programs, not shell expansions
out_counters() {
	in_ns r6 awk '$1 ~ /^(Ip6Out|Ip6FragFails|Udp6SndbufErrors|Udp6OutDatagrams)/ {print $1, $2}' \
		/proc/net/snmp6
	echo "d6_tx_dropped $(in_ns r6 cat /sys/class/net/d6/statistics/tx_dropped)"
}
race() {
	local before after out sends wakeups c0 c1 lost
	c0=$(out_counters)
	before=$(tx_packets)
	out=$(in_ns r6 "$PROGS/route6-race" d6 fc00:67::1 "$secs") || { echo "$out"; return 1; }
	after=$(tx_packets)
	c1=$(out_counters)
	echo "$out; d6 sent $((after - before)) datagrams"
	join <(sort <<<"$c0") <(sort <<<"$c1") | awk '$3 != $2 {printf "  %s +%d\n", $1, $3 - $2}'
	sends=$(sed -n 's/.* sends=\([0-9]*\).*/\1/p' <<<"$out")
	wakeups=$(sed -n 's/.* wakeups=\([0-9]*\).*/\1/p' <<<"$out")
	# Both senders' datagrams went out through the route's device, but
	# for those in flight on a copy that a replace tore down meanwhile
	# (dst_dev_put(): discarded by design, the route is gone): at most 1
	# in 1000. A lost install that broke the copies would lose them all.
	lost=$((sends + wakeups - (after - before)))
	echo "datagrams sent but not through d6: $lost of $((sends + wakeups))"
	((lost * 1000 <= sends + wakeups))
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
