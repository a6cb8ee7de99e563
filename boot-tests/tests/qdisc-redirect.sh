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
counts() { # Q_SHOT Q_REDIRECT Q_OTHER Q_QEVENT, from the pinned array
	local pin
	# tc pins it under its bpffs work directory (/sys/fs/bpf/tc/...).
	pin=$(find /sys/fs/bpf -name qdisc_counts 2>/dev/null | head -1)
	[[ -n $pin ]] || { echo 0 0 0 0; return; }
	bpftool -j map dump pinned "$pin" | /usr/bin/python3 -c '
import json, sys
def num(x):  # bpftool gives BTF-formatted numbers, or raw bytes as hex
    return x if isinstance(x, int) else int.from_bytes(bytes(int(b, 16) for b in x), "little")
v = {}
for e in json.load(sys.stdin):
    f = e.get("formatted", e)
    v[num(f["key"])] = num(f["value"])
print(" ".join(str(v.get(k, 0)) for k in range(4)))'
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

# classify QDISC SECTION PORT: the root qdisc runs the classifier in
# SECTION on every packet q0 sends; the helper it calls ran once per
# packet and answered what this kernel must answer.
classify() {
	local qdisc=$1 sec=$2 port=$3 before after shot redirect other
	read -r -a before < <(counts 2>/dev/null || echo 0 0 0 0)
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
	send "$port" || return 1
	read -r -a after < <(counts)
	shot=$((after[0] - ${before[0]:-0}))
	redirect=$((after[1] - ${before[1]:-0}))
	other=$((after[2] - ${before[2]:-0}))
	echo "$qdisc $sec: helper answered TC_ACT_SHOT $shot, TC_ACT_REDIRECT $redirect, other $other times"
	in_ns qa tc qdisc del dev q0 root
	((shot + redirect + other >= COUNT * NCPUS)) || { echo "the classifier did not run on every packet"; return 1; }
	case $want in
	shot) ((redirect == 0 && other == 0)) ;;
	redirect) ((shot == 0 && other == 0)) ;;
	esac
}
check "htb classifier calling bpf_redirect(): $want" classify htb qdisc/redirect 9600
check "prio classifier calling bpf_redirect_peer(): $want" classify prio qdisc/redirect_peer 9601
check "drr classifier calling bpf_redirect_neigh(): $want" classify drr qdisc/redirect_neigh 9602
check "fq_codel classifier calling bpf_redirect(): $want" classify fq_codel qdisc/redirect 9603

# qevent: red under a slow htb class drops early once its queue builds;
# each early drop runs the classifiers of block 10, whose program
# returns TC_ACT_REDIRECT without calling a helper.
qevent() {
	local before after early
	read -r -a before < <(counts)
	in_ns qa tc qdisc add dev q0 root handle 1: htb default 10
	in_ns qa tc class add dev q0 parent 1: classid 1:10 htb rate 1mbit burst 1600
	in_ns qa tc qdisc add dev q0 parent 1:10 handle 10: red limit 400000 min 3000 max 9000 \
		avpkt 1000 burst 4 probability 1.0 bandwidth 1mbit qevent early_drop block 10 || return 1
	in_ns qa tc filter add block 10 prio 1 bpf da obj "$OBJ" sec qevent/redirect || return 1
	send 9604 || return 1
	read -r -a after < <(counts)
	early=$(in_ns qa tc -s qdisc show dev q0 | awk '/^qdisc red/ {r = 1} r && /early/ {
		for (i = 1; i < NF; i++) if ($i == "early") { print $(i + 1) + 0; exit } }')
	echo "red: ${early:-0} early drops, qevent program ran $((after[3] - before[3])) times"
	in_ns qa tc qdisc del dev q0 root
	((${early:-0} > 0 && after[3] - before[3] > 0))
}
check "red early_drop qevent returning TC_ACT_REDIRECT" qevent
finish
