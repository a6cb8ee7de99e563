#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a high-priority task pays for other tasks' BH-disabled sections
# on its CPU. On CPU 0 a SCHED_FIFO task sends one UDP datagram through
# a dummy device of its own namespace every nbh.lat_period microseconds
# (bh-latency), while two low-priority senders on the same CPU push bulk
# UDP through a veth pair whose egress tc classifier chain holds
# nbh.lat_rules flower filters, one priority each: each packet's
# __dev_queue_xmit() walks them with BH disabled, in the senders'
# context. The receive side goes to the other CPU (RPS) and its nftables
# input chain, so that the senders leave no NET_RX work pending on CPU 0
# for the high-priority task's own local_bh_enable() to run. With the
# softirq lock the high-priority send waits for the senders' sections;
# without it, it does not. Then cyclictest under the same load. Prints
# the "bh-latency op|wakeup ..." lines and one "cyclictest ..." line.
. "$(dirname "$0")/val-lib.sh"

count=$(param nbh.lat_count)
period=$(param nbh.lat_period)
rules=$(param nbh.lat_rules)
count=${count:-5000} period=${period:-1000} rules=${rules:-500}
secs=$((count * period / 1000000 + 3))
echo "period ${period} us, ${count} samples, ${rules} tc filters and nftables rules per packet"

netns hp la lb
ip -n hp link add d0 type dummy
in_ns hp ip addr add 10.30.0.1/24 dev d0
in_ns hp ip link set d0 up
ip link add a0 netns la type veth peer name b0 netns lb
in_ns la ip addr add 10.31.0.1/24 dev a0
in_ns lb ip addr add 10.31.0.2/24 dev b0
in_ns la ip link set a0 up
in_ns lb ip link set b0 up
{
	echo "table inet f {"
	echo "  chain in {"
	echo "    type filter hook input priority 0;"
	for ((i = 0; i < rules; i++)); do echo "    udp dport $((20000 + i)) drop"; done
	echo "    udp dport 9000 drop"
	echo "  }"
	echo "}"
} | in_ns lb nft -f -
in_ns la tc qdisc add dev a0 clsact
for ((i = 0; i < rules; i++)); do
	echo "filter add dev a0 egress prio $((i + 1)) protocol ip flower ip_proto udp dst_port $((20000 + i))"
done | in_ns la tc -batch -
if ((NCPUS > 1)) && kconfig_y RPS; then
	in_ns lb sh -c "echo 2 >/sys/class/net/b0/queues/rx-0/rps_cpus"
fi

load() {
	local w
	for w in 1 2; do
		timeout "$secs" taskset -c 0 ip netns exec la "$PROGS/udp-check" send \
			10.31.0.2 9000 1000000000 1200 "$w" 0 >/dev/null 2>&1 &
	done
	sleep 1
}
load
in_ns hp "$PROGS/bh-latency" 10.30.0.2 9 0 80 "$count" "$period"
wait
load
# cyclictest's histogram (microsecond buckets) gives the median and p99.
out=$(cyclictest -q -m -a 0 -t 1 -p 80 -i "$period" -l "$count" -h 100000)
wait
awk -v n="$count" '
	/^[0-9]+[ \t]+[0-9]+/ { c += $2
		if (!hm && c >= n / 2) { med = $1 + 0; hm = 1 }
		if (!hp && c >= n * 0.99) { p99 = $1 + 0; hp = 1 } }
	/^# Max Latencies:/ { max = $4 + 0 }
	/^# Total:/ { total = $3 + 0 }
	END {
		if (!total) { print "no cyclictest histogram"; exit 1 }
		if (!hp) p99 = max
		printf "cyclictest n=%d median=%d p99=%d max=%d\n", total, med * 1000, p99 * 1000, max * 1000
	}' <<<"$out"
