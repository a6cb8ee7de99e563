# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers sourced by the boot validation guest tests. Not a
# test itself. The guest's /var/tmp is a tmpfs, so run-validation shares
# $WORK/val (test programs from make progs, the coverage list) as a 9p
# tag nbhval, mounted here on /tmp/nbh-val; nbh.progs= names the program
# directory inside it.
set -euo pipefail

# guest-init makes no /dev/fd; process substitution needs it.
[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
param() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -1; }
# The tree of the running kernel, MAJOR.MINOR of its release (6.1, 6.12):
# where the trees' own code behaves differently, a test says what each does.
kernel_tree() {
	local r
	r=$(uname -r)
	echo "${r%%.*}.$(v=${r#*.}; echo "${v%%[!0-9]*}")"
}
VAL=/tmp/nbh-val
if ! mountpoint -q "$VAL"; then
	mkdir -p "$VAL"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro nbhval "$VAL" 2>/dev/null ||
		echo "no 9p share nbhval (boot with boot-tests/run-validation)"
fi
PROGS=$(param nbh.progs)
if [[ -z $PROGS || ! -x $PROGS/udp-check ]]; then
	echo "no test programs in '${PROGS}': run make progs, boot with boot-tests/run-validation"
	exit 1
fi
NCPUS=$(nproc)

NAMESPACES=()
netns() { # NAME...: fresh network namespaces with lo up, removed at exit
	local n
	for n; do
		ip netns add "$n"
		ip -n "$n" link set lo up
		NAMESPACES+=("$n")
	done
}
cleanup() {
	local p n
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for n in "${NAMESPACES[@]}"; do ip netns del "$n" 2>/dev/null || true; done
}
trap cleanup EXIT

in_ns() { local n=$1; shift; ip netns exec "$n" "$@"; }
on_cpu() { local c=$1; shift; taskset -c "$c" "$@"; }

# wait_line FILE PATTERN: wait up to 10 s for PATTERN to appear in FILE.
wait_line() {
	local _
	for _ in $(seq 100); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timeout waiting for '$2' in $1:"
	cat "$1" 2>/dev/null || true
	return 1
}

# kconfig_line LINE: whether the running kernel's configuration has LINE;
# kconfig_y SYMBOL: whether it has CONFIG_SYMBOL=y. grep
# reads all of zcat's output: with grep -q, a match ends grep early and,
# under pipefail, zcat's SIGPIPE turns the match into a miss.
kconfig_line() { [[ $(zcat /proc/config.gz | grep -cxF -- "$1") != 0 ]]; }
kconfig_y() { kconfig_line "CONFIG_$1=y"; }

# cov_hits FUNC: hits so far of a converted function (or of a caller
# boot-tests/coverage/inlined names) that cov-start is recording (summed
# over CPUs); prints nothing when it is not recorded, so a test can retry
# until its path really ran.
cov_hits() {
	local T=/sys/kernel/tracing state=/tmp/nbh-cov
	if grep -qxF "$1" "$state/ftrace" 2>/dev/null ||
		awk '{print $2}' "$state/callers" 2>/dev/null | grep -qxF "$1"; then
		cat "$T"/trace_stat/function* 2>/dev/null |
			awk -v f="$1" '$1 == f {n += $2} END {print n + 0}'
	elif grep -qxF "$1" "$state/kprobe" 2>/dev/null; then
		awk -v f="nbhcov/$1" '$1 == f {n = $2} END {print n + 0}' "$T/kprobe_profile"
	fi
}

# check DESCRIPTION COMMAND...: one assertion, reported as ok/not ok.
FAILURES=0
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		FAILURES=$((FAILURES + 1))
	fi
}
finish() {
	if ((FAILURES)); then
		echo "$FAILURES assertion(s) failed"
		exit 1
	fi
	echo "all assertions passed"
}

# tcp_transfer FROM_NS TO_NS ADDR PORT CPU BYTES: send BYTES of random data
# from a sender pinned to CPU; true if they arrive intact.
tcp_transfer() {
	local from=$1 to=$2 addr=$3 port=$4 cpu=$5 bytes=$6 f=/tmp/tcp.$4 srv _
	head -c "$bytes" /dev/urandom >"$f.send"
	in_ns "$to" socat -u TCP-LISTEN:"$port",reuseaddr OPEN:"$f.recv",creat,trunc &
	srv=$!
	for _ in $(seq 100); do
		in_ns "$to" ss -ltn | grep -q ":$port " && break
		sleep 0.1
	done
	on_cpu "$cpu" ip netns exec "$from" socat -u OPEN:"$f.send" TCP:"$addr":"$port" || return 1
	wait "$srv" || return 1
	cmp -s "$f.send" "$f.recv" || { echo "port $port: data differs"; return 1; }
	echo "port $port: $bytes bytes intact (sender on CPU $cpu)"
	rm -f "$f.send" "$f.recv"
}

# udp_flow FROM_NS TO_NS ADDR PORT COUNT SIZE SECONDS: one sender per CPU,
# COUNT datagrams each; true if all COUNT * NCPUS arrive intact.
udp_flow() {
	local from=$1 to=$2 addr=$3 port=$4 count=$5 size=$6 secs=$7 log=/tmp/udp.$4 c pids=()
	in_ns "$to" "$PROGS/udp-check" recv "$addr" "$port" $((count * NCPUS)) "$size" "$secs" \
		>"$log" 2>&1 &
	local rcv=$!
	wait_line "$log" listening || return 1
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec "$from" "$PROGS/udp-check" send "$addr" "$port" "$count" \
			"$size" "$c" 200 >/dev/null &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
	local rc=0
	wait "$rcv" || rc=$?
	cat "$log"
	return $rc
}

# stress DESCRIPTION COMMAND...: COMMAND run over and over for nbh.stress=
# seconds on CPU 0 by two tasks, a SCHED_OTHER one and a SCHED_FIFO one
# that progs/preempt-pair stops and resumes at random times, so that it
# preempts the other inside the BH-disabled sections COMMAND drives and
# takes their nested-BH locks while the preempted task holds them
# (contention-check counts the contentions). COMMAND must succeed every
# time it ends by itself; a run still going at the end is killed (a
# sender may be given more work than it can do). Skipped when nbh.stress
# is 0 or absent.
# COMMAND sees PREEMPT_PAIR_SIDE (0 or 1). STRESS is nbh.stress, for
# what a test must start before its stress phase (a server).
STRESS=$(param nbh.stress)
STRESS=${STRESS:-0}
stress() {
	local what=$1
	shift
	if ((STRESS == 0)); then
		echo "ok - stress: $what # SKIP nbh.stress=0"
		return
	fi
	if [[ -z ${RIVAL:-} ]] || ((NCPUS < 2)); then
		check "stress: $what" "$PROGS/preempt-pair" 0 "$STRESS" 400 "$@"
		return
	fi
	# RIVAL: a shell command run on CPU 1 for the whole phase, sending
	# traffic that a napi_rival thread takes into the same path on CPU 0.
	on_cpu 1 timeout "$STRESS" sh -c "$RIVAL" >/dev/null 2>&1 &
	local rival=$!
	check "stress: $what, with a rival NAPI thread" "$PROGS/preempt-pair" 0 "$STRESS" 400 "$@"
	wait "$rival" || true
}

# rival_veth FEED_NS FEED_DEV FEED_ADDR NS DEV ADDR: a veth from FEED_NS
# (FEED_DEV, address FEED_ADDR/24, no TSO) into NS (DEV, ADDR/24), DEV
# polled by its rival NAPI thread (napi_rival). A stress phase's RIVAL
# then sends from FEED_NS to ADDR.
rival_veth() {
	netns "$1"
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	in_ns "$1" ip addr add "$3/24" dev "$2"
	in_ns "$4" ip addr add "$6/24" dev "$5"
	in_ns "$1" ethtool -K "$2" tso off >/dev/null
	in_ns "$1" ip link set "$2" up
	in_ns "$4" ip link set "$5" up
	napi_rival "$4" "$5"
}

# napi_rival NS DEV: DEV, a veth end in NS, receives through a NAPI
# instance of its own (GRO on), polled by its kthread at SCHED_FIFO 30 on
# CPU 0. Traffic its peer sends from CPU 1 (a stress phase's RIVAL) then
# enters DEV's receive path on CPU 0 from that thread, which preempts the
# stress tasks inside the same path: a second NAPI instance beside the
# CPU's backlog, which only one task at a time can poll. The peer must not
# offload TSO (veth takes its NAPI only for packets it may aggregate), and
# the RIVAL must pace itself: flooded, the thread keeps CPU 0 and the
# tasks it preempted inside BH sections (RCU read sections without the
# softirq lock) stall RCU grace periods until hung-task reports.
napi_rival() {
	local ns=$1 dev=$2 pid n=0
	in_ns "$ns" ethtool -K "$dev" gro on >/dev/null
	in_ns "$ns" sh -c "echo 1 >/sys/class/net/$dev/threaded"
	for pid in $(pgrep -x "napi/$dev-[0-9]+"); do
		taskset -pc 0 "$pid" >/dev/null && chrt -f -p 30 "$pid" && n=$((n + 1))
	done
	check "rival NAPI thread of $dev at SCHED_FIFO 30 on CPU 0" test "$n" -gt 0
}
