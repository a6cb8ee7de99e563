#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ipv4_tcp_sk: the per-CPU control socket sends RSTs for connections to
# closed ports (tcp_v4_send_reset) and ACKs from TIME_WAIT sockets
# (tcp_v4_send_ack). One tcp-tw-ack per CPU at once; every attempt must
# get its RST and every out-of-window segment its ACK, and TcpOutRsts
# must have grown by at least the number of RSTs provoked.
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
# shellcheck disable=SC2016 # expanded by the inner shell, per side
stress "RSTs and TIME_WAIT ACKs (ipv4_tcp_sk), preempted on CPU 0" \
	sh -c 'exec ip netns exec ta "$0" $((7200 + 10 * PREEMPT_PAIR_SIDE)) 5' "$PROGS/tcp-tw-ack"
finish
