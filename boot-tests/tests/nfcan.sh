#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Five data of the series beyond upstream's, with exact counts:
# - nf_skb_duplicated (per task on PREEMPT_RT): the xtables TEE target
#   and nft's dup statement, IPv4 and IPv6, from every CPU. Each original
#   datagram gets exactly one duplicate at the gateway; the duplicates
#   cross the TEE rule and nft's dup rule again without being duplicated
#   once more, and jump into a legacy user chain while the original's
#   traversal of the same table is still inside one (the second half of
#   the jumpstack, ipt_do_table and ip6t_do_table; iptables-nft where
#   the kernel has no legacy table).
# - netns_ct.stat: conntrack entries inserted over ctnetlink from every
#   CPU move that CPU's "insert" counter by exactly as many.
# - nft_pipapo_match.scratch: an interval set of concatenated address
#   and port, looked up per datagram in the sender's output hook and the
#   receiver's prerouting hook from every CPU; hit and miss counters
#   exact.
# - raw_sock.uniq: raw CAN sockets with two overlapping filters get each
#   frame once, with CAN_RAW_JOIN_FILTERS only the frames matching both,
#   frames sent from every CPU through the CAN core's loopback (backlog)
#   and written into tun devices whose ingress redirects them to the vcan
#   device (received in the writer's context).
# - softnet_data.flow_limit: one heavy UDP flow per CPU into another
#   CPU's backlog (RPS on a veth receive queue) with the flow limit on;
#   both CPUs' flow_limit_count (column 11 of /proc/net/softnet_stat)
#   grows, and every datagram is either counted by the receiver or
#   dropped by the backlog.
# Stress phases: two tasks on CPU 0 in the dup path (exactly one
# duplicate per original afterwards), the pipapo lookups (every lookup
# must still hit), CAN delivery (each runner checks its own frames), a
# CAN flood (no sender taken for the holder of vcan0's xmit lock) and
# the flow limit (two senders into two different backlogs).
. "$(dirname "$0")/val-lib.sh"
PY=/usr/bin/python3
# From make progs (VAL_PY), else from the source tree the guest sees too.
NFCAN=$PROGS/nfcan.py
[[ -f $NFCAN ]] || NFCAN=$(cd "$(dirname "$0")/../progs" && pwd)/nfcan.py
n=300                # datagrams or frames per CPU and destination
N=$((n * NCPUS))

if grep -qw avx2 /proc/cpuinfo; then
	echo "guest CPU has AVX2: pipapo sets use nft_pipapo_avx2_lookup()"
else
	echo "guest CPU has no AVX2: pipapo sets use nft_pipapo_lookup()"
fi

# --- nf_dup_ipv4/6: TEE and nft dup -----------------------------------
# ta sends to tb over a0/b0; duplicates go to the gateway tg over a1/g0,
# which holds tb's addresses on lo so that it receives them.
netns ta tb tg
ip link add a0 netns ta type veth peer name b0 netns tb
ip link add a1 netns ta type veth peer name g0 netns tg
in_ns ta ip addr add 10.40.1.1/24 dev a0
in_ns tb ip addr add 10.40.1.2/24 dev b0
in_ns ta ip addr add 10.40.2.1/24 dev a1
in_ns tg ip addr add 10.40.2.2/24 dev g0
in_ns tg ip addr add 10.40.1.2/32 dev lo
in_ns ta ip -6 addr add fc00:40:1::1/64 dev a0 nodad
in_ns tb ip -6 addr add fc00:40:1::2/64 dev b0 nodad
in_ns ta ip -6 addr add fc00:40:2::1/64 dev a1 nodad
in_ns tg ip -6 addr add fc00:40:2::2/64 dev g0 nodad
in_ns tg ip -6 addr add fc00:40:1::2/128 dev lo
for l in "ta a0" "ta a1" "tb b0" "tg g0"; do
	read -r ns d <<<"$l"
	in_ns "$ns" ip link set "$d" up
done
for a in 10.40.1.2 10.40.2.2 fc00:40:1::2 fc00:40:2::2; do
	in_ns ta ping -q -c 1 -W 5 "$a" >/dev/null
done

# Legacy tables. mangle OUTPUT sends duplicates (out a1) into NBHDUP and
# originals (out a0) into NBHTEE, where TEE duplicates port 9401/9402:
# each duplicate jumps into NBHDUP while its original is still in NBHTEE
# of the same table, and meets TEE again there (skipped: it is a
# duplicate). filter OUTPUT counts both in NBHCNT.
# A kernel without them (PREEMPT_RT without the softirq lock builds no
# legacy table) gets the same rules through nf_tables: iptables-nft, whose
# TEE is the xtables target run by nft_compat.
xtkind=legacy
if ! in_ns ta iptables-legacy -t mangle -n -L >/dev/null 2>&1; then
	xtkind=nft
	echo "no legacy iptables tables in this kernel: the xtables rules go through iptables-nft"
fi
xt() { # 4|6 ARGS...: iptables-$xtkind or ip6tables-$xtkind in ta
	local v=$1
	shift
	if [[ $v == 4 ]]; then in_ns ta "iptables-$xtkind" "$@"; else in_ns ta "ip6tables-$xtkind" "$@"; fi
}
for v in 4 6; do
	if [[ $v == 4 ]]; then tee=9401 dup=9403 gw=10.40.2.2; else tee=9402 dup=9404 gw=fc00:40:2::2; fi
	xt $v -t mangle -N NBHDUP
	xt $v -t mangle -N NBHTEE
	xt $v -t mangle -A OUTPUT -o a1 -p udp --dport 9401:9404 -j NBHDUP
	xt $v -t mangle -A OUTPUT -o a0 -p udp --dport 9401:9404 -j NBHTEE
	for c in NBHTEE NBHDUP; do
		xt $v -t mangle -A $c -p udp --dport $tee -j TEE --gateway $gw
		xt $v -t mangle -A $c -p udp --dport $tee
		xt $v -t mangle -A $c -p udp --dport $dup
	done
	xt $v -t filter -N NBHCNT
	xt $v -t filter -A OUTPUT -p udp --dport 9401:9404 -j NBHCNT
	for p in $tee $dup; do
		xt $v -t filter -A NBHCNT -o a0 -p udp --dport "$p"
		xt $v -t filter -A NBHCNT -o a1 -p udp --dport "$p"
	done
done
# xt_counts 4|6 TABLE CHAIN: the packet counts of CHAIN's rules, in order.
xt_counts() {
	xt "$1" -t "$2" -L "$3" -v -x -n | awk 'NR > 2 {printf "%s%s", s, $1; s = " "} END {print ""}'
}
# nft: dup to the gateway on 9403/9404 (originals and duplicates both
# reach the rule), counters by output device; 9405/9406 are the stress
# phase's, split by conntrack state (a duplicate is untracked).
in_ns ta nft -f - <<'NFT'
table ip nbhdup {
	chain out {
		type filter hook output priority 0;
		oif "a0" udp dport 9401 counter comment "tee-orig"
		oif "a1" udp dport 9401 counter comment "tee-dup"
		udp dport 9403 counter dup to 10.40.2.2 comment "dup"
		oif "a0" udp dport 9403 counter comment "dup-orig"
		oif "a1" udp dport 9403 counter comment "dup-dup"
		udp dport 9405 ct state != untracked counter dup to 10.40.2.2 comment "stress-orig"
		udp dport 9405 ct state untracked counter comment "stress-dup"
	}
}
table ip6 nbhdup {
	chain out {
		type filter hook output priority 0;
		oif "a0" udp dport 9402 counter comment "tee-orig"
		oif "a1" udp dport 9402 counter comment "tee-dup"
		udp dport 9404 counter dup to fc00:40:2::2 comment "dup"
		oif "a0" udp dport 9404 counter comment "dup-orig"
		oif "a1" udp dport 9404 counter comment "dup-dup"
		udp dport 9406 ct state != untracked counter dup to fc00:40:2::2 comment "stress-orig"
		udp dport 9406 ct state untracked counter comment "stress-dup"
	}
}
NFT
for ns in tb tg; do
	in_ns "$ns" nft -f - <<'NFT'
table inet nbhcnt {
	chain pre {
		type filter hook prerouting priority 0;
		udp dport 9401 counter comment "9401"
		udp dport 9402 counter comment "9402"
		udp dport 9403 counter comment "9403"
		udp dport 9404 counter comment "9404"
	}
}
NFT
done
# nft_count NS FAMILY TABLE CHAIN COMMENT: packets of the rule with COMMENT.
nft_count() {
	in_ns "$1" nft list chain "$2" "$3" "$4" | awk -v t="comment \"$5\"" '
		index($0, t) {for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1)}'
}

# dup_round PORT ADDR: n datagrams from every CPU to ADDR:PORT; the
# destination tb and the gateway tg must both receive all intact.
dup_round() {
	local port=$1 addr=$2 c pids=() rb rg rc=0
	in_ns tb "$PROGS/udp-check" recv "$addr" "$port" "$N" 200 60 >"/tmp/dup-b.$port" 2>&1 &
	rb=$!
	in_ns tg "$PROGS/udp-check" recv "$addr" "$port" "$N" 200 60 >"/tmp/dup-g.$port" 2>&1 &
	rg=$!
	wait_line "/tmp/dup-b.$port" listening || return 1
	wait_line "/tmp/dup-g.$port" listening || return 1
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec ta "$PROGS/udp-check" send "$addr" "$port" "$n" 200 "$c" 200 \
			>/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	wait "$rb" || rc=1
	wait "$rg" || rc=1
	echo "destination: $(cat "/tmp/dup-b.$port")"
	echo "gateway: $(cat "/tmp/dup-g.$port")"
	return $rc
}
check "TEE, IPv4: originals and duplicates from every CPU intact" dup_round 9401 10.40.1.2
check "TEE, IPv6: originals and duplicates from every CPU intact" dup_round 9402 fc00:40:1::2
check "nft dup, IPv4: originals and duplicates from every CPU intact" dup_round 9403 10.40.1.2
check "nft dup, IPv6: originals and duplicates from every CPU intact" dup_round 9404 fc00:40:1::2
sleep 0.5
# expect DESCRIPTION WANT COMMAND...: COMMAND prints exactly WANT.
expect() {
	local what=$1 want=$2 got
	shift 2
	got=$("$@")
	echo "$what: $got (want $want)"
	[[ $got == "$want" ]]
}
for p in 9401 9402 9403 9404; do
	check "destination got exactly $N datagrams on port $p" \
		expect "tb prerouting $p" "$N" nft_count tb inet nbhcnt pre $p
	check "gateway got exactly one duplicate per original on port $p" \
		expect "tg prerouting $p" "$N" nft_count tg inet nbhcnt pre $p
done
for v in 4 6; do
	family=ip
	[[ $v == 6 ]] && family=ip6
	check "IPv$v $xtkind mangle OUTPUT: $N duplicates into NBHDUP, $N originals into NBHTEE, per port" \
		expect "mangle OUTPUT" "$((2 * N)) $((2 * N))" xt_counts $v mangle OUTPUT
	check "IPv$v $xtkind NBHTEE: TEE, the original after it, the nft dup port's original" \
		expect "mangle NBHTEE" "$N $N $N" xt_counts $v mangle NBHTEE
	check "IPv$v $xtkind NBHDUP: the duplicates meet TEE again (not duplicated), both ports" \
		expect "mangle NBHDUP" "$N $N $N" xt_counts $v mangle NBHDUP
	check "IPv$v $xtkind filter: originals and duplicates through NBHCNT" \
		expect "filter NBHCNT" "$N $N $N $N" xt_counts $v filter NBHCNT
	for r in tee-orig tee-dup dup-orig dup-dup; do
		check "IPv$v nft output $r: $N" expect "nft $r" "$N" nft_count ta $family nbhdup out $r
	done
	check "IPv$v nft dup rule reached by every original and every duplicate" \
		expect "nft dup" "$((2 * N))" nft_count ta $family nbhdup out dup
done
echo "nf_dup_ipv4 $(cov_hits nf_dup_ipv4), nf_dup_ipv6 $(cov_hits nf_dup_ipv6)," \
	"ipt_do_table $(cov_hits ipt_do_table), ip6t_do_table $(cov_hits ip6t_do_table) (if recorded)"

# Stress: two tasks on CPU 0, one through nf_dup_ipv4(), the other
# through nf_dup_ipv6(): each original still gets exactly one duplicate
# (a flag left set by a preempted task would make the other's dup skip).
# shellcheck disable=SC2016 # expanded by the inner shell, per side
stress "TEE/dup duplication flag (nf_skb_duplicated), preempted on CPU 0" \
	sh -c 'if [ "$PREEMPT_PAIR_SIDE" = 0 ]; then a=10.40.1.2 p=9405; else a=fc00:40:1::2 p=9406; fi
		exec ip netns exec ta "$0" send $a $p 1000000000 200' "$PROGS/udp-check"
for family in ip ip6; do
	orig=$(nft_count ta $family nbhdup out stress-orig)
	check "after the stress phase ($family): one duplicate per original" \
		expect "$family stress duplicates" "$orig" nft_count ta $family nbhdup out stress-dup
	((STRESS == 0)) || check "the stress phase sent through $family nft dup" test "$orig" -gt 0
done

# --- netns_ct.stat: NF_CT_STAT_INC(insert) ----------------------------
# ct_column NAME: that column of /proc/net/stat/nf_conntrack in ta,
# one value per CPU.
ct_column() {
	local h
	for h in $(in_ns ta cat /proc/net/stat/nf_conntrack | awk -v k="$1" '
		NR == 1 {for (i = 1; i <= NF; i++) if ($i == k) col = i; next}
		{print $col}'); do
		printf '%d ' $((16#$h))
	done
	echo
}
ct_inserts() {
	local c pids=() rc=0 m=100 before after
	read -ra before < <(ct_column insert)
	read -ra failed < <(ct_column insert_failed)
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec ta $PY "$NFCAN" ct-insert 10.40.9.1 10.40.9.2 \
			$((20000 + 1000 * c)) $m &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	read -ra after < <(ct_column insert)
	for ((c = 0; c < NCPUS; c++)); do
		echo "CPU $c: insert $((after[c] - before[c])) (want $m)"
		((after[c] - before[c] == m)) || rc=1
	done
	read -ra after < <(ct_column insert_failed)
	echo "insert_failed: ${failed[*]} -> ${after[*]}"
	[[ ${after[*]} == "${failed[*]}" ]] || rc=1
	return $rc
}
check "conntrack: every CPU's insert statistic moved by its ctnetlink inserts exactly" ct_inserts

# --- nft_set_pipapo: concatenated interval set, lookups per packet ----
# Lookups in ta's output hook (process context) and tb's prerouting
# (softirq). 9605 and 9650 hit (the first element's port range, the
# second's prefix), 9620 misses; 9606 is the stress phase's.
pipapo_table() { # HOOK
	cat <<NFT
table ip nbhsvc {
	set svc {
		type ipv4_addr . inet_service
		flags interval
		elements = { 10.40.1.2 . 9600-9609, 10.40.1.0/24 . 9650 }
	}
	chain c {
		type filter hook $1 priority 10;
		udp dport 9600-9699 ip daddr . udp dport @svc counter comment "hit"
		udp dport 9600-9699 ip daddr . udp dport != @svc counter comment "miss"
		udp dport 9606 counter comment "stress"
		udp dport 9606 ip daddr . udp dport @svc counter comment "stress-1"
		udp dport 9606 ip daddr . udp dport @svc counter comment "stress-2"
		udp dport 9606 ip daddr . udp dport @svc counter comment "stress-3"
		udp dport 9606 ip daddr . udp dport @svc counter comment "stress-4"
	}
}
NFT
}
pipapo_table output | in_ns ta nft -f -
pipapo_table prerouting | in_ns tb nft -f -
pipapo_flows() {
	local c pids=() rc=0
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec ta sh -c "for p in 9605 9650 9620; do
			'$PROGS/udp-check' send 10.40.1.2 \$p $n 100 $c 100 || exit 1; done" >/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	sleep 0.5
	return $rc
}
check "UDP from every CPU through the pipapo lookups" pipapo_flows
for ns in ta tb; do
	check "$ns: pipapo set hit exactly $((2 * N)) times" \
		expect "$ns hit" "$((2 * N))" nft_count $ns ip nbhsvc c hit
	check "$ns: pipapo set missed exactly $N times" \
		expect "$ns miss" "$N" nft_count $ns ip nbhsvc c miss
done
echo "nft_pipapo_lookup $(cov_hits nft_pipapo_lookup), nft_pipapo_avx2_lookup" \
	"$(cov_hits nft_pipapo_avx2_lookup) (if recorded)"
stress "pipapo lookups (nft_pipapo_scratch_lock), preempted on CPU 0" \
	ip netns exec ta "$PROGS/udp-check" send 10.40.1.2 9606 1000000000 100
for ns in ta tb; do
	all=$(nft_count $ns ip nbhsvc c stress)
	for i in 1 2 3 4; do
		check "after the stress phase ($ns): lookup $i hit for every datagram" \
			expect "$ns stress lookup $i" "$all" nft_count $ns ip nbhsvc c stress-$i
	done
done

# --- CAN: raw_rcv()'s duplicate tracking under can_rcv_lock -----------
netns cn
in_ns cn ip link add vcan0 type vcan
in_ns cn ip link set vcan0 up
for ((c = 0; c < NCPUS; c++)); do
	in_ns cn ip tuntap add dev ctun$c mode tun pi
	in_ns cn ip link set ctun$c up
	in_ns cn tc qdisc add dev ctun$c clsact
	in_ns cn tc filter add dev ctun$c ingress matchall action mirred ingress redirect dev vcan0
done
can_frames() {
	local c pids=() tags=() rc=0 rcv
	for ((c = 0; c < NCPUS; c++)); do tags+=($((c + 1))); done
	rm -f /tmp/can.go
	in_ns cn $PY "$NFCAN" can-recv vcan0 "$n" "$(IFS=,; echo "${tags[*]}")" 60 /tmp/can.go \
		>/tmp/can.log 2>&1 &
	rcv=$!
	wait_line /tmp/can.log listening || return 1
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec cn $PY "$NFCAN" can-send vcan0 $((c + 1)) "$n" ctun$c &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	touch /tmp/can.go
	wait "$rcv" || rc=1
	cat /tmp/can.log
	return $rc
}
check "CAN frames from every CPU: each once with two filters, only 0x123 with joined filters" \
	can_frames
echo "can_receive $(cov_hits can_receive) (if recorded)"
# shellcheck disable=SC2016 # expanded by the inner shell, per side
stress "CAN delivery (can_rcv_lock), preempted on CPU 0" \
	sh -c 'exec ip netns exec cn '"$PY"' "$0" can-round vcan0 "ctun$PREEMPT_PAIR_SIDE" \
		$((100 + PREEMPT_PAIR_SIDE)) 40' "$NFCAN"
# vcan0 has no qdisc: a sender takes its queue's xmit lock in
# __dev_queue_xmit(), which takes a sender that finds the lock held from
# its own CPU for the device sending into itself and fails the send with
# ENETDOWN ("Dead loop on virtual device"). Two C senders on CPU 0, back
# to back, so that one is often preempted holding the lock.
stress "CAN flood on vcan0 (its xmit lock's owner), preempted on CPU 0" \
	ip netns exec cn "$PROGS/can-flood" vcan0 1000000000

# --- softnet_data.flow_limit ------------------------------------------
# Two veth pairs from fla to flb: fb0's receive queue steered to the last
# CPU, fb1's to CPU 0. A sender on CPU 0 uses pair A, the others pair B,
# so every CPU enqueues its flow into another CPU's backlog (with one
# CPU, its own) and records it in its own flow table. A backlog limit of
# 1 makes every enqueue consult the flow limit (the queue is always at
# least half full), so each heavy flow exceeds its share of the history
# after 64 datagrams, whatever the timing of the emulated CPUs. No IPv6
# and static neighbours: nothing else goes through these backlogs.
netns fla flb
for ns in fla flb; do
	in_ns $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
last=$((NCPUS - 1))
for i in 0 1; do
	ip link add fa$i netns fla type veth peer name fb$i netns flb
	in_ns fla ip addr add 10.43.$((i + 1)).1/24 dev fa$i
	in_ns flb ip addr add 10.43.$((i + 1)).2/24 dev fb$i
	in_ns fla ip link set fa$i up
	in_ns flb ip link set fb$i up
	mac=$(in_ns flb cat /sys/class/net/fb$i/address)
	in_ns fla ip neigh replace 10.43.$((i + 1)).2 lladdr "$mac" dev fa$i nud permanent
done
in_ns flb sh -c "echo $(printf '%x' $((1 << last))) >/sys/class/net/fb0/queues/rx-0/rps_cpus"
in_ns flb sh -c "echo 1 >/sys/class/net/fb1/queues/rx-0/rps_cpus"
in_ns flb nft -f - <<'NFT'
table ip nbhfl {
	chain pre {
		type filter hook prerouting priority 0;
		iif "fb0" udp dport 9700-9799 counter drop comment "a"
		iif "fb1" udp dport 9700-9799 counter drop comment "b"
	}
}
NFT
old_backlog=$(sysctl -n net.core.netdev_max_backlog)
old_len=$(sysctl -n net.core.flow_limit_table_len)
sysctl -qw net.core.flow_limit_cpu_bitmap=0
sysctl -qw net.core.flow_limit_table_len=8192
sysctl -qw net.core.flow_limit_cpu_bitmap="$(printf '%x' $(((1 << NCPUS) - 1)))"
sysctl -qw net.core.netdev_max_backlog=1
# softnet_column N: column N of /proc/net/softnet_stat, one value per CPU.
softnet_column() {
	local h
	while read -r h; do printf '%d ' $((16#$h)); done < <(awk -v k="$1" '{print $k}' /proc/net/softnet_stat)
	echo
}
flow_limit() {
	local c pids=() rc=0 p=3000 dropped limited a b lost=0 fl=0
	read -ra dropped < <(softnet_column 2)
	read -ra limited < <(softnet_column 11)
	for ((c = 0; c < NCPUS; c++)); do
		if ((c == 0)); then
			on_cpu 0 ip netns exec fla "$PROGS/udp-check" send 10.43.1.2 9700 $p 200 0 0 &
		else
			on_cpu "$c" ip netns exec fla "$PROGS/udp-check" send 10.43.2.2 9701 $p 200 "$c" 0 &
		fi
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	sleep 1
	read -ra d2 < <(softnet_column 2)
	read -ra l2 < <(softnet_column 11)
	for ((c = 0; c < NCPUS; c++)); do
		echo "CPU $c: flow_limit_count ${limited[c]} -> ${l2[c]}, dropped ${dropped[c]} -> ${d2[c]}"
		((l2[c] > limited[c])) || rc=1
		lost=$((lost + d2[c] - dropped[c]))
		fl=$((fl + l2[c] - limited[c]))
	done
	a=$(nft_count flb ip nbhfl pre a)
	b=$(nft_count flb ip nbhfl pre b)
	echo "sent $((p * NCPUS)), received $a + $b, dropped by the backlogs $lost, by the flow limit $fl"
	((a + b + lost == p * NCPUS && fl <= lost)) || rc=1
	return $rc
}
check "flow limit: every CPU's heavy flow limited, every datagram received or dropped" flow_limit
echo "sd_flow_limit_lock $(cov_hits sd_flow_limit_lock) (inlined: no symbol, if recorded)"
# Stress: both tasks on CPU 0 enqueue through CPU 0's flow table, into
# two different backlogs (different queue locks, so the preempting task
# reaches the flow table's lock while the preempted one holds it).
# shellcheck disable=SC2016 # expanded by the inner shell, per side
stress "flow limit table (softnet_data.flow_limit_bh_lock), preempted on CPU 0" \
	sh -c 'if [ "$PREEMPT_PAIR_SIDE" = 0 ]; then a=10.43.1.2 p=9702; else a=10.43.2.2 p=9703; fi
		exec ip netns exec fla "$0" send $a $p 1000000000 200' "$PROGS/udp-check"
sysctl -qw net.core.netdev_max_backlog="$old_backlog"
sysctl -qw net.core.flow_limit_cpu_bitmap=0
sysctl -qw net.core.flow_limit_table_len="$old_len"
check "stack still passes traffic afterwards" tcp_transfer ta tb 10.40.1.2 9800 0 65536
finish
