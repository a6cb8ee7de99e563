#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ipv4_tcp_sk: the per-CPU control socket sends RSTs for connections to
# closed ports (tcp_v4_send_reset) and ACKs from TIME_WAIT sockets
# (tcp_v4_send_ack). One tcp-tw-ack per CPU at once; every attempt must
# get its RST and every out-of-window segment its ACK, and TcpOutRsts
# must have grown by at least the number of RSTs provoked. Then a stress
# phase, against a rival NAPI thread sending RSTs through the same socket,
# with a long output chain inside the socket's sections.
. "$(dirname "$0")/val-lib.sh"

netns ta
in_ns ta sysctl -qw net.ipv4.tcp_invalid_ratelimit=0
rounds=100
before=$(in_ns ta nstat -az TcpOutRsts | awk '/TcpOutRsts/ {print $2}')
pids=()
for ((c = 0; c < NCPUS; c++)); do
	on_cpu "$c" ip netns exec ta "$PROGS/tcp-tw-ack" $((7000 + 10 * c)) "$rounds" &
	pids+=($!)
done
n=0
for p in "${pids[@]}"; do
	check "tcp-tw-ack on CPU $n: every RST and TIME_WAIT ACK seen" wait "$p"
	n=$((n + 1))
done
after=$(in_ns ta nstat -az TcpOutRsts | awk '/TcpOutRsts/ {print $2}')
echo "TcpOutRsts: $before -> $after"
check "TcpOutRsts grew by at least $((rounds * NCPUS))" \
	test $((after - before)) -ge $((rounds * NCPUS))
# A second way in: SYNs to a closed port of ta from tb, over a veth whose
# end in ta polls its own NAPI from a kthread on CPU 0 (napi_rival).
rival_veth tb t0 10.18.0.2 ta t1 10.18.0.1
check "a SYN from tb to a closed port of ta is refused" in_ns tb "$PROGS/syn-rst" 10.18.0.1 7999 1
# What the control socket sends (RSTs and pure ACKs: neither SYN nor FIN)
# passes 1000 nftables rules in ta's output hook, none matching, inside
# the section that holds ipv4_tcp_sk's lock: the rival thread's wake-ups
# then land inside such sections often, not a few times a phase.
{
	echo "table ip slow {"
	echo "  chain rules {"
	for ((i = 0; i < 1000; i++)); do echo "    ip daddr 192.0.2.1 tcp dport $((1 + i)) drop"; done
	echo "  }"
	echo "  chain out {"
	echo "    type filter hook output priority 0;"
	echo "    tcp flags & (syn | fin) == 0 jump rules"
	echo "  }"
	echo "}"
} | in_ns ta nft -f -
# shellcheck disable=SC2016 # expanded by the inner shell, per side
RIVAL="ip netns exec tb $PROGS/syn-rst 10.18.0.1 7999 1000000000" \
	stress "RSTs and TIME_WAIT ACKs (ipv4_tcp_sk), preempted on CPU 0" \
	sh -c 'exec ip netns exec ta "$0" $((7200 + 10 * PREEMPT_PAIR_SIDE)) 5' "$PROGS/tcp-tw-ack"
finish
