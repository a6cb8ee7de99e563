#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpf_redirect_info where no bpf_net_context is set: tc BPF programs run
# by a classful qdisc's enqueue() from __dev_queue_xmit() (htb, prio,
# drr, fq_codel) and by red's early_drop qevent block. The series keeps
# the redirect state in a per-task context that only the sections which
# consume a redirect set up; the helpers must see that none is set here
# (TC_ACT_SHOT, as upstream) and red must not act on a TC_ACT_REDIRECT
# verdict, instead of dereferencing NULL. Pristine 6.1 keeps the state
# per CPU: there the helpers answer TC_ACT_REDIRECT.
# Stress phase: two senders on CPU 0 through a long prio enqueue; none
# may be taken for a recursion from inside the enqueue (q->owner).
#
#   qa (q0 10.30.0.1) -- (q1 10.30.0.2) qb
. "$(dirname "$0")/val-lib.sh"

OBJ=$PROGS/qdisc.bpf.o
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
netns qa qb
ip link add q0 netns qa type veth peer name q1 netns qb
in_ns qa ip addr add 10.30.0.1/24 dev q0
in_ns qb ip addr add 10.30.0.2/24 dev q1
in_ns qa ip link set q0 up
in_ns qb ip link set q1 up
# The classifiers also see ARP: resolve the neighbour statically.
in_ns qa ip neigh replace 10.30.0.2 lladdr "$(in_ns qb cat /sys/class/net/q1/address)" dev q0

COUNT=200
# root_stat FIELD: "pkt" (packets sent) or "dropped" of q0's root qdisc.
root_stat() {
	in_ns qa tc -s qdisc show dev q0 | awk -v f="$1" 'NR == 2 {
		for (i = 1; i < NF; i++) {
			if (f == "pkt" && $(i + 1) == "pkt") { print $i + 0; exit }
			if (f == "dropped" && $i == "(dropped") { print $(i + 1) + 0; exit }
		} }'
}
send() { # PORT: COUNT datagrams from one sender per CPU
	local c pids=()
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec qa "$PROGS/udp-check" send 10.30.0.2 "$1" "$COUNT" 600 "$c" 100 \
			>/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
}
# What the helpers must answer on this kernel.
if [[ $(param nbh.patched) == 1 ]]; then
	want=shot
else
	want=redirect
fi

# classify QDISC SECTION HELPER PORT: the root qdisc runs the classifier
# in SECTION, which calls HELPER, on every packet q0 sends. With the
# series no context is set there and the helper answers TC_ACT_SHOT: the
# qdisc drops every packet; pristine answers TC_ACT_REDIRECT, which the
# qdisc takes as a classification. When cov-start records HELPER (the
# validation boots), it must have run once per packet.
classify() {
	local qdisc=$1 sec=$2 helper=$3 port=$4 h0 h1 sent dropped
	in_ns qa tc qdisc del dev q0 root 2>/dev/null || true
	case $qdisc in
	htb)
		in_ns qa tc qdisc add dev q0 root handle 1: htb default 10
		in_ns qa tc class add dev q0 parent 1: classid 1:10 htb rate 100mbit ;;
	prio) in_ns qa tc qdisc add dev q0 root handle 1: prio ;;
	drr)
		in_ns qa tc qdisc add dev q0 root handle 1: drr
		in_ns qa tc class add dev q0 parent 1: classid 1:1 drr ;;
	fq_codel) in_ns qa tc qdisc add dev q0 root handle 1: fq_codel ;;
	esac
	in_ns qa tc filter add dev q0 parent 1: prio 1 bpf da obj "$OBJ" sec "$sec" || return 1
	h0=$(cov_hits "$helper")
	send "$port" || return 1
	h1=$(cov_hits "$helper")
	sent=$(root_stat pkt)
	dropped=$(root_stat dropped)
	in_ns qa tc qdisc del dev q0 root
	echo "$qdisc $sec: root qdisc sent $sent, dropped $dropped packets; $helper ran $((${h1:-0} - ${h0:-0})) times"
	if [[ -n $h0 ]]; then
		((h1 - h0 >= COUNT * NCPUS)) || { echo "$helper did not run on every packet"; return 1; }
	fi
	case $want in
	shot) ((dropped >= COUNT * NCPUS)) ;;
	redirect) ((sent >= COUNT * NCPUS)) ;;
	esac
}
check "htb classifier calling bpf_redirect(): $want" classify htb qdisc/redirect bpf_redirect 9600
check "prio classifier calling bpf_redirect_peer(): $want" \
	classify prio qdisc/redirect_peer bpf_redirect_peer 9601
check "drr classifier calling bpf_redirect_neigh(): $want" \
	classify drr qdisc/redirect_neigh bpf_redirect_neigh 9602
check "fq_codel classifier calling bpf_redirect(): $want" classify fq_codel qdisc/redirect bpf_redirect 9603

# qevent: red under a slow htb class drops early once its queue builds;
# each early drop runs the classifiers of block 10, whose program
# returns TC_ACT_REDIRECT without calling a helper.
qevent() {
	local early
	in_ns qa tc qdisc add dev q0 root handle 1: htb default 10
	in_ns qa tc class add dev q0 parent 1: classid 1:10 htb rate 1mbit burst 1600
	in_ns qa tc qdisc add dev q0 parent 1:10 handle 10: red limit 400000 min 3000 max 9000 \
		avpkt 1000 burst 4 probability 1.0 bandwidth 1mbit qevent early_drop block 10 || return 1
	in_ns qa tc filter add block 10 prio 1 bpf da obj "$OBJ" sec qevent/redirect || return 1
	send 9604 || return 1
	early=$(in_ns qa tc -s qdisc show dev q0 | awk '/^qdisc red/ {r = 1} r && /early/ {
		for (i = 1; i < NF; i++) if ($i == "early") { print $(i + 1) + 0; exit } }')
	echo "red: ${early:-0} early drops, each through the qevent block"
	in_ns qa tc qdisc del dev q0 root
	((${early:-0} > 0))
}
check "red early_drop qevent returning TC_ACT_REDIRECT" qevent

# Stress: a qdisc's enqueue recursion check (q->owner). prio's enqueue on
# q0 walks 1000 u32 filters that never match, a long enqueue under the
# qdisc's root lock. A sender that preempts another inside it on CPU 0
# must wait for the lock, not be taken for a tc action sending from
# inside the enqueue: such a drop (SKB_DROP_REASON_TC_EGRESS) is only
# ENOBUFS to the sender, which sends again, so a tracing instance counts
# the drops of that reason. Nothing else in this test drops there.
DROPS=/sys/kernel/tracing/instances/nbhdrop
# prio_stress REASON: the phase, drops of kfree_skb reason number REASON
# counted in the tracing instance DROPS.
prio_stress() {
	local sent drops i
	in_ns qa tc qdisc add dev q0 root handle 1: prio
	for ((i = 0; i < 1000; i++)); do
		echo "filter add dev q0 parent 1: prio 1 protocol ip u32 match u32 $i 0xffffffff at 0 classid 1:1"
	done | in_ns qa tc -batch -
	mkdir -p "$DROPS"
	echo "reason == $1" >"$DROPS/events/skb/kfree_skb/filter"
	echo 1 >"$DROPS/events/skb/kfree_skb/enable"
	stress "UDP through prio (the qdisc's enqueue recursion check), preempted on CPU 0" \
		ip netns exec qa "$PROGS/udp-check" send 10.30.0.2 9605 1000000000 200
	echo 0 >"$DROPS/events/skb/kfree_skb/enable"
	sent=$(root_stat pkt)
	drops=$(grep -c kfree_skb "$DROPS/trace" || true)
	rmdir "$DROPS"
	in_ns qa tc qdisc del dev q0 root
	check "the stress phase sent through prio ($sent packets)" test "${sent:-0}" -gt 0
	check "no packet to q0 dropped as a redirection into its own qdisc ($drops)" \
		test "$drops" -eq 0
}
if ((STRESS == 0)); then
	echo "ok - stress: UDP through prio # SKIP nbh.stress=0"
else
	reason=$(grep -o '{ *[0-9]\+, *"TC_EGRESS" *}' /sys/kernel/tracing/events/skb/kfree_skb/format |
		grep -o '[0-9]\+' || true)
	check "kfree_skb's reason number for TC_EGRESS: $reason" test -n "$reason"
	[[ -z $reason ]] || prio_stress "$reason"
fi
finish
