#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tc statistics and per-task transmit state:
# - tc_action.cpu_qstats: the drop and overlimit paths of act_bpf,
#   act_police, act_mpls, act_skbmod, act_skbedit and act_ife (decode at
#   ingress, encode at egress, a non-Ethernet device);
# - the hit counters of cls_basic, cls_u32 (rule, key and mark counters)
#   and cls_matchall;
# - softnet_data.xmit.skip_txqueue: skbedit queue_mapping at egress of a
#   four-queue veth under mq picks the queue per packet;
# - act_mirred's nest level: a chain of four redirects delivers, a fifth
#   redirect and a redirect loop are cut at MIRRED_NEST_LIMIT (4), once
#   per packet, and the chain delivers again afterwards.
# Frames of a kind of their own (an ethertype each, sent by frame-send
# from every CPU at once) reach each filter, so every counter is known
# exactly; IPv6 is off, so that no kernel traffic adds to them.
. "$(dirname "$0")/val-lib.sh"

PY=/usr/bin/python3
netns ts tm
for n in ts tm; do in_ns "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1; done
ip link add s0 netns ts type veth peer name s1 netns ts
in_ns ts ip link set s0 up
in_ns ts ip link set s1 up
in_ns ts tc qdisc add dev s0 clsact
in_ns ts tc qdisc add dev s1 clsact

# frames NS [-d] DEV COUNT ETHERTYPE HEX [MARK]: COUNT frames from every
# CPU at once (frame-send).
frames() {
	local ns=$1 c pids=() rc=0
	shift
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec "$ns" "$PROGS/frame-send" "$@" >/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	return $rc
}
# pad HEX BYTES: HEX followed by zero bytes up to BYTES bytes.
pad() { printf '%s%0*d' "$1" $((2 * $2 - ${#1})) 0; }

# act_stats NS KIND INDEX: "packets drops overlimits" of an action (from
# the text: iproute2 6.1 prints invalid JSON for skbmod).
act_stats() {
	in_ns "$1" tc -s actions get action "$2" index "$3" |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt (dropped \([0-9]*\), overlimits \([0-9]*\) .*/\1 \2 \3/p' |
		grep . || { echo "action $2 index $3 not found"; return 1; }
}
# expect_act NS KIND INDEX PACKETS DROPS OVERLIMITS: the action's
# counters are exactly these.
expect_act() {
	local got
	got=$(act_stats "$1" "$2" "$3") || return 1
	echo "$2 index $3: packets drops overlimits = $got (expected $4 $5 $6)"
	[[ $got == "$4 $5 $6" ]]
}

# Classifier hit counters: 40 frames per CPU whose two u32 keys (in two
# 32-bit words: u32 merges keys of one word) match, 25 whose second key
# does not; all of them reach basic (prio 1), u32
# (prio 2) and matchall (prio 3, which drops them).
A=40 B=25
in_ns ts tc filter add dev s1 ingress protocol 0x88b5 prio 1 basic action continue
in_ns ts tc filter add dev s1 ingress protocol 0x88b5 prio 2 u32 match mark 0 0xffffffff \
	match u16 0x1234 0xffff at 0 match u16 0xaaaa 0xffff at 4 action continue
in_ns ts tc filter add dev s1 ingress protocol 0x88b5 prio 3 matchall action drop
cls_frames() {
	frames ts s0 "$A" 88b5 "$(pad 12340000aaaa 46)" &&
		frames ts s0 "$B" 88b5 "$(pad 12340000bbbb 46)"
}
check "frames through basic, u32 and matchall from every CPU" cls_frames
# Dumping a matchall filter that is not skip_hw asks drivers for hardware
# statistics (mall_stats_hw_filter) and adds what they report, zero here,
# with tcf_action_update_stats() to each action that has stats_update
# (gact): the software path to it.
upd_before=$(cov_hits tcf_action_update_stats)
in_ns ts tc -s filter show dev s1 ingress protocol 0x88b5 >/tmp/tc-cls.txt
cat /tmp/tc-cls.txt
upd_after=$(cov_hits tcf_action_update_stats)
if [[ -n $upd_before ]]; then
	echo "tcf_action_update_stats: $upd_before -> $upd_after"
	check "a matchall dump runs tcf_action_update_stats for its gact action" \
		test "$upd_after" -gt "$upd_before"
fi
# cls_counters: "basic_action_packets u32_rcnt u32_rhit mark key1 key2
# matchall_hit" from the dump (iproute2 6.1 does not print cls_basic's
# rcnt/rhit: its action counts the packets basic_classify matched).
cls_counters() {
	"$PY" - /tmp/tc-cls.txt <<'PY'
import re, sys
t = open(sys.argv[1]).read()
parts = re.split(r"(?m)^filter ", t)
def part(kind):
    for p in parts:
        if re.match(r"\S+ \S+ pref \d+ %s\b" % kind, p) or (" %s " % kind) in p.split("\n")[0]:
            if "rule hit" in p or "success" in p or "action order" in p:
                return p
    return ""
b, u, m = part("basic"), part("u32"), part("matchall")
out = []
g = re.search(r"Sent \d+ bytes (\d+) pkt", b)
out.append(g.group(1) if g else "?")
g = re.search(r"rule hit (\d+) success (\d+)", u)
out += list(g.groups()) if g else ["?", "?"]
g = re.search(r"mark 0x0+ 0xffffffff \(success (\d+)\)", u)
out.append(g.group(1) if g else "?")
keys = re.findall(r"match [0-9a-f/]+ at \d+ \(success (\d+) ?\)", u)
out += keys if len(keys) == 2 else ["?", "?"]
g = re.search(r"rule hit (\d+)\)?", m) or re.search(r"hit (\d+)", m)
out.append(g.group(1) if g else "?")
print(" ".join(out))
PY
}
all=$(((A + B) * NCPUS)) hit=$((A * NCPUS))
got=$(cls_counters)
echo "basic's action packets, u32 rcnt rhit mark key1 key2, matchall hit: $got"
read -r c_basic c_urc c_urh c_mark c_k1 c_k2 c_mall <<<"$got"
check "cls_basic: matched $all, its action ran $all times (basic_classify)" test "$c_basic" = "$all"
check "cls_u32: rule hit $all, success $hit (u32_classify)" test "$c_urc $c_urh" = "$all $hit"
check "cls_u32: mark success $all, key successes $all and $hit" \
	test "$c_mark $c_k1 $c_k2" = "$all $all $hit"
check "cls_matchall: hit $all (mall_classify)" test "$c_mall" = "$all"

# Actions at s1's ingress, one ethertype each; N frames per CPU.
N=30
T=$((N * NCPUS))
in_ns ts tc filter add dev s1 ingress protocol 0x88b6 prio 11 matchall \
	action bpf bytecode '1,6 0 0 2' index 21
frames ts s0 "$N" 88b6 "$(pad 00 46)"
check "act_bpf: a classic BPF program returning TC_ACT_SHOT, $T drops (tcf_bpf_act)" \
	expect_act ts bpf 21 "$T" "$T" 0
# police: frames over its mtu of 512 bytes exceed, smaller ones conform
# (tc derives the rate table's cell size from the mtu: 256 bytes at least).
in_ns ts tc filter add dev s1 ingress protocol 0x88b7 prio 12 matchall \
	action police rate 1mbit burst 100k mtu 512 conform-exceed drop/pipe index 22
frames ts s0 "$N" 88b7 "$(pad 00 600)"
frames ts s0 10 88b7 "$(pad 00 32)"
check "act_police: $T frames over the mtu overlimit and are dropped (tcf_police_act)" \
	expect_act ts police 22 $((T + 10 * NCPUS)) "$T" "$T"
# mpls dec_ttl fails on a frame that is not MPLS.
in_ns ts tc filter add dev s1 ingress protocol 0x88b8 prio 13 matchall \
	action mpls dec_ttl index 23
frames ts s0 "$N" 88b8 "$(pad 00 46)"
check "act_mpls: dec_ttl of non-MPLS frames, $T drops (tcf_mpls_act)" \
	expect_act ts mpls 23 "$T" "$T" 0
# skbmod with the control action drop counts an overlimit per frame.
in_ns ts tc filter add dev s1 ingress protocol 0x88b9 prio 14 matchall \
	action skbmod swap mac drop index 24
frames ts s0 "$N" 88b9 "$(pad 00 46)"
check "act_skbmod: control action drop, $T overlimits (tcf_skbmod_act)" \
	expect_act ts skbmod 24 "$T" 0 "$T"
# skbedit inheritdsfield drops an IPv4 frame too short for an IP header;
# one with a whole header passes (the stack drops it: not for this host).
in_ns ts tc filter add dev s1 ingress protocol ip prio 15 matchall \
	action skbedit inheritdsfield index 25
frames ts s0 "$N" 0800 "$(pad 4500 10)"
frames ts s0 10 0800 "4500001c000000004011000000000000000000000000000000000000"
check "act_skbedit: IPv4 frames shorter than an IP header, $T drops (tcf_skbedit_act)" \
	expect_act ts skbedit 25 $((T + 10 * NCPUS)) "$T" 0

if kconfig_y NET_ACT_IFE && kconfig_y NET_IFE_SKBMARK; then
	# decode: a zero metadata length and a TLV shorter than its header are
	# dropped; a well-formed TLV of an unknown type counts an overlimit,
	# and the inner frame (ethertype 0x88ff) goes on to the stack.
	in_ns ts tc filter add dev s1 ingress protocol 0xed3e prio 16 matchall \
		action ife decode index 26
	frames ts s0 "$N" ed3e "$(pad 0000 46)"
	frames ts s0 "$N" ed3e "$(pad 000600ff0002 46)"
	frames ts s0 15 ed3e "$(pad 000a00ff0008deadbeef02000000000202000000000188ff 64)"
	check "act_ife decode: $((2 * T)) drops, $((15 * NCPUS)) overlimits (tcf_ife_decode)" \
		expect_act ts ife 26 $((2 * T + 15 * NCPUS)) $((2 * T)) $((15 * NCPUS))
	# encode at s0's egress: no mark, nothing to encode, an overlimit and
	# the frame goes on; with a mark and the control action drop, a drop.
	in_ns ts tc filter add dev s0 egress protocol 0x88ba prio 17 matchall \
		action ife encode allow mark index 27
	in_ns ts tc filter add dev s0 egress protocol 0x88bb prio 18 matchall \
		action ife encode allow mark drop index 28
	frames ts s0 "$N" 88ba "$(pad 00 46)"
	frames ts -d s0 "$N" 88bb "$(pad 00 46)" 7
	check "act_ife encode: $T frames without metadata, $T overlimits (tcf_ife_encode)" \
		expect_act ts ife 27 "$T" 0 "$T"
	check "act_ife encode: $T marked frames, control action drop, $T drops" \
		expect_act ts ife 28 "$T" "$T" 0
	# A device without an Ethernet header (ipip): tcf_ife_act drops.
	in_ns ts ip link add ti type ipip local 10.29.0.1 remote 10.29.0.2
	in_ns ts ip addr add 10.29.1.1/24 dev ti
	in_ns ts ip link set ti up
	in_ns ts tc qdisc add dev ti clsact
	in_ns ts tc filter add dev ti egress protocol ip prio 10 matchall \
		action ife encode allow mark index 29
	udp_out() {
		local c pids=()
		for ((c = 0; c < NCPUS; c++)); do
			on_cpu "$c" ip netns exec ts "$PROGS/udp-check" send 10.29.1.2 9 "$N" 100 \
				>/dev/null &
			pids+=($!)
		done
		for c in "${pids[@]}"; do wait "$c" || return 1; done
	}
	udp_out
	check "act_ife on an ipip device: $T drops (tcf_ife_act)" expect_act ts ife 29 "$T" "$T" 0
else
	# ife decode without metadata modules, and allow mark, need NET_IFE_SKBMARK.
	check "CONFIG_NET_ACT_IFE=y and CONFIG_NET_IFE_SKBMARK=y (tcf_ife_act, tcf_ife_decode, tcf_ife_encode)" \
		false
fi

# skip_txqueue: skbedit queue_mapping at the egress of a four-queue veth
# under mq, one ethertype per queue and a different count each: queue N
# (mq class 1:N+1) must send exactly the frames mapped to it. Without the
# mapping the queue comes from a hash of the frame, the same for every
# frame of a kind.
ip link add q0 netns ts numtxqueues 4 numrxqueues 4 type veth \
	peer name q1 netns ts numtxqueues 4 numrxqueues 4
in_ns ts ip link set q0 up
in_ns ts ip link set q1 up
in_ns ts tc qdisc add dev q0 root handle 1: mq
in_ns ts tc qdisc add dev q0 clsact
QTYPES=(88b7 88b6 88b8 88b5) QCOUNT=(10 20 15 35) # queue 0..3
for q in 0 1 2 3; do
	in_ns ts tc filter add dev q0 egress protocol "0x${QTYPES[q]}" prio $((q + 1)) matchall \
		action skbedit queue_mapping "$q" index $((30 + q))
done
queues() { # packets sent by the mq classes 1:1..1:4 of q0
	in_ns ts tc -s -j qdisc show dev q0 | "$PY" -c '
import json, sys
q = {d.get("parent"): d.get("packets", d.get("stats", {}).get("packets"))
     for d in json.load(sys.stdin)}
print(" ".join(str(q.get("1:%d" % i)) for i in range(1, 5)))'
}
read -ra before < <(queues)
sent() { # the four kinds at once, each from every CPU
	local q pids=() rc=0
	for q in 0 1 2 3; do
		frames ts q0 "${QCOUNT[q]}" "${QTYPES[q]}" "$(pad 00 46)" &
		pids+=($!)
	done
	for q in "${pids[@]}"; do wait "$q" || rc=1; done
	return $rc
}
check "frames of four kinds from every CPU at once through q0" sent
read -ra after < <(queues)
in_ns ts tc -s qdisc show dev q0
got="" want=""
for q in 0 1 2 3; do
	got+="$((after[q] - before[q])) "
	want+="$((QCOUNT[q] * NCPUS)) "
done
echo "q0 queues 0..3 sent $got(expected $want)"
check "skbedit queue_mapping: every frame left on its queue (netdev_xmit_skip_txqueue)" \
	test "$got" = "$want"

# act_mirred nesting, with every message printed (no net_ratelimit()).
cost=$(sysctl -n net.core.message_cost)
sysctl -qw net.core.message_cost=0
limit_msgs() { dmesg | grep -c "Packet exceeded mirred recursion limit on dev $1\$" || true; }
# Dummies c0..c5: c0..c3 redirect every frame to the next one (four
# levels), c4 redirects frames of ethertype 0x88b6 to c5 (a fifth level).
for d in c0 c1 c2 c3 c4 c5; do
	in_ns tm ip link add "$d" type dummy
	in_ns tm ip link set "$d" up
done
for k in 0 1 2 3; do
	in_ns tm tc qdisc add dev "c$k" clsact
	in_ns tm tc filter add dev "c$k" egress protocol all prio 1 matchall \
		action mirred egress redirect dev "c$((k + 1))" index $((40 + k))
done
in_ns tm tc qdisc add dev c4 clsact
in_ns tm tc filter add dev c4 egress protocol 0x88b6 prio 1 matchall \
	action mirred egress redirect dev c5 index 44
txp() { in_ns tm cat "/sys/class/net/$1/statistics/tx_packets"; }
deliver() { # frames of ethertype 0x88b5 on c0 must all leave c4
	local b a
	b=$(txp c4)
	frames tm c0 "$N" 88b5 "$(pad 00 46)" || return 1
	a=$(txp c4)
	echo "c4 sent $((a - b)) of $T frames after four redirects"
	((a - b == T))
}
check "four nested redirects deliver every frame (tcf_mirred_nest_level_inc_return/dec)" deliver
m_before=$(limit_msgs c4)
c5_before=$(txp c5)
frames tm c0 "$N" 88b6 "$(pad 00 46)"
m_after=$(limit_msgs c4)
echo "'exceeded mirred recursion limit on dev c4': $m_before -> $m_after, c5 sent $(($(txp c5) - c5_before))"
check "a fifth redirect is cut: $T limit messages, nothing leaves c5" \
	test "$((m_after - m_before)) $(($(txp c5) - c5_before))" = "$T 0"
check "the fourth redirect counts the cut frames as overlimits" expect_act tm mirred 43 $((2 * T)) 0 "$T"
# A loop, l0 -> l1 -> l0 ...: cut at the fifth level, on l0.
for d in l0 l1; do
	in_ns tm ip link add "$d" type dummy
	in_ns tm ip link set "$d" up
	in_ns tm tc qdisc add dev "$d" clsact
done
in_ns tm tc filter add dev l0 egress protocol all prio 1 matchall \
	action mirred egress redirect dev l1 index 50
in_ns tm tc filter add dev l1 egress protocol all prio 1 matchall \
	action mirred egress redirect dev l0 index 51
m_before=$(limit_msgs l0)
frames tm l0 "$N" 88b5 "$(pad 00 46)"
m_after=$(limit_msgs l0)
echo "'exceeded mirred recursion limit on dev l0': $m_before -> $m_after"
if [[ $(kernel_tree) == 6.1 ]]; then
	check "a redirect loop is cut once per frame: $T limit messages" test $((m_after - m_before)) = "$T"
	check "l0's loop action redirected every frame twice" expect_act tm mirred 50 $((2 * T)) 0 0
	check "l1's loop action redirected every frame twice, counting the cuts as overlimits" \
		expect_act tm mirred 51 $((2 * T)) 0 "$T"
else
	# 6.12's mirred keeps the devices of the redirects it is inside
	# (netdev_xmit.sched_mirred_dev[]) and cuts a loop at the first
	# device met again, counting an overlimit there: l0 -> l1 (50),
	# l1 -> l0 (51), then 50 finds l1 in the stack; the dropped frame
	# makes 51's transmit fail, an overlimit of 51's. No limit message.
	check "a redirect loop is cut by the loop check, not the nest limit: no limit message" \
		test $((m_after - m_before)) = 0
	check "l0's loop action ran twice per frame, its second run cut as an overlimit" \
		expect_act tm mirred 50 $((2 * T)) 0 "$T"
	check "l1's loop action redirected every frame once, counting the failed transmit" \
		expect_act tm mirred 51 "$T" 0 "$T"
fi
check "four nested redirects still deliver after the cuts (nest level back at 0)" deliver
sysctl -qw net.core.message_cost="$cost"
finish
