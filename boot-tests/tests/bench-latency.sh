#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a high-priority task pays for other tasks' BH-disabled sections
# on its CPU. On CPU 0 a SCHED_FIFO task sends one UDP datagram through
# a dummy device of its own namespace every nbh.lat_period microseconds
# (bh-latency), while two low-priority tasks on the same CPU send bulk
# UDP into a bridge of another namespace: every datagram floods to the
# bridge's nbh.lat_ports dummy ports, and each copy passes an nftables
# bridge output chain of nbh.lat_rules rules and nbh.lat_filters tc
# flower filters on its port's egress, all inside the senders' one
# rcu_read_lock_bh() section of __dev_queue_xmit(). Nothing is received
# (dummy ports drop what they send), so the senders leave no NET_RX
# work on CPU 0 for the high-priority task's own local_bh_enable() to
# run. With the softirq lock the high-priority send waits for the
# section it interrupts; without it, it does not. The length of one
# such section is measured first, alone ("load-section"), then the
# send's figures under the load, then cyclictest under the same load.
# Prints "load-section ...", "bh-latency op|wakeup|response ..." and one
# "cyclictest ..." line (nanoseconds).
. "$(dirname "$0")/val-lib.sh"

count=$(param nbh.lat_count)
period=$(param nbh.lat_period)
ports=$(param nbh.lat_ports)
rules=$(param nbh.lat_rules)
filters=$(param nbh.lat_filters)
count=${count:-5000} period=${period:-1000}
ports=${ports:-32} rules=${rules:-2000} filters=${filters:-20}
secs=$((count * period / 1000000 + 3))
echo "period ${period} us, ${count} samples; load: a bridge flooding to ${ports} ports," \
	"${rules} nftables rules and ${filters} tc filters per copy"

netns hp la
ip -n hp link add d0 type dummy
in_ns hp ip addr add 10.30.0.1/24 dev d0
in_ns hp ip link set d0 up

in_ns la ip link add br0 type bridge
for ((p = 0; p < ports; p++)); do
	echo "link add p$p type dummy"
	echo "link set p$p master br0"
	echo "link set p$p up"
done | in_ns la ip -batch -
in_ns la ip addr add 10.31.0.1/24 dev br0
in_ns la ip link set br0 up
# A destination the bridge has never seen: every frame floods.
in_ns la ip neigh add 10.31.0.2 lladdr 02:00:00:00:31:02 dev br0 nud permanent
{
	echo "table bridge f {"
	echo "  chain out {"
	echo "    type filter hook output priority 0;"
	for ((i = 0; i < rules; i++)); do echo "    udp dport $((20000 + i)) drop"; done
	echo "  }"
	echo "}"
} | in_ns la nft -f -
for ((p = 0; p < ports; p++)); do
	echo "qdisc add dev p$p clsact"
	for ((i = 0; i < filters; i++)); do
		echo "filter add dev p$p egress prio $((i + 1)) protocol ip flower ip_proto udp" \
			"dst_port $((20000 + i))"
	done
done | in_ns la tc -batch -

# One section of the load alone: a datagram's send with nothing else
# running (SCHED_FIFO 1 on CPU 0, 20 sends 50 ms apart).
in_ns la "$PROGS/bh-latency" 10.31.0.2 9000 0 1 20 50000 | sed -n 's/^bh-latency op /load-section /p'

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

# nbh.lat_trace=US: what ran on CPU 0 before one slow cyclictest wake-up.
# cyclictest runs once more under the same load with scheduler, IRQ,
# softirq and timer events traced on CPU 0 and stops tracing at the
# first wake-up later than US microseconds (-b); the trace of CPU 0 up
# to that point is printed as "trace: ..." lines (the last 400 events).
trace_us=$(param nbh.lat_trace)
if [[ -n $trace_us ]]; then
	tr=/sys/kernel/tracing
	[[ -e $tr/trace ]] || mount -t tracefs nodev $tr
	echo 0 >$tr/tracing_on
	echo 1 >$tr/tracing_cpumask
	echo 8192 >$tr/buffer_size_kb
	: >$tr/trace
	for e in sched/sched_switch sched/sched_waking sched/sched_wakeup \
		irq/irq_handler_entry irq/irq_handler_exit irq/softirq_raise \
		irq/softirq_entry irq/softirq_exit timer/hrtimer_expire_entry \
		timer/hrtimer_expire_exit irq_vectors/local_timer_entry \
		irq_vectors/local_timer_exit irq_vectors/call_function_single_entry \
		irq_vectors/call_function_single_exit irq_vectors/reschedule_entry \
		irq_vectors/reschedule_exit; do
		[[ -e $tr/events/$e/enable ]] && echo 1 >"$tr/events/$e/enable"
	done
	echo 1 >$tr/tracing_on
	load
	out=$(cyclictest -q -m -a 0 -t 1 -p 80 -i "$period" -l "$count" -b "$trace_us" --tracemark)
	wait
	echo 0 >$tr/tracing_on
	echo "trace-cyclictest $(grep '^# Break' <<<"$out" | tr '\n' ' ')"
	tail -n 400 $tr/per_cpu/cpu0/trace | sed 's/^/trace: /'
fi
