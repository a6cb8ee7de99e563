#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read back what contention-start counted: one line per nested-BH lock of
# the coverage list (its fourth column: VARIABLE.MEMBER for a member of a
# static per-CPU structure, VARIABLE alone for a static per-CPU
# local_lock_t of its own, the local_lock_init() argument without spaces
# and with commas made semicolons for a lock in memory allocated per CPU,
# taken through a pointer):
#
#   contention LOCK acquired=N contended=M
#
# A lock is identified from lock:lock_acquire: the lockdep map's address,
# minus the per-CPU offset of its CPU (__per_cpu_offset[], read through
# a kprobe), falls inside a static per-CPU variable (kallsyms), and the
# map's name is the member (INIT_LOCAL_LOCK(bh_lock) names it "bh_lock",
# "(bh_lock)" on PREEMPT_RT). A lock that is the whole variable,
# DEFINE_PER_CPU(local_lock_t, X) = INIT_LOCAL_LOCK(X), has a map named
# after the variable itself ("X", or "(X)"): it is counted as X. Its
# rtmutex lies just before the map in the same spinlock_t, at the same
# distance for every lock (at most 128 bytes): the contentions at that
# distance below the map are the lock's own (see below how the distance
# is found).
#
# On PREEMPT_RT without the softirq lock, after stress phases
# (nbh.stress= not 0), every lock must have been taken and contended:
# the guest tests preempt a task inside each converted section and take
# the section's lock from the preempting task. Unless
# boot-tests/coverage/uncontended names the lock with its reason (as
# TREE:LOCK when only that tree's kernels cannot contend it, 6.12:...);
# nbh.locks=LOCK[,LOCK...] (a mutant's boot, which runs the tests of one
# datum) requires only those. With the
# softirq lock (PREEMPT_RT with CONFIG_PREEMPT_RT_NEEDS_BH_LOCK, or a
# kernel without that option), BH-disabled sections of a CPU exclude
# each other before their nested-BH locks are reached: there every lock
# must show no contention at all ("CONTENDED WITH NOTHING TO CONTEND":
# a section entered outside BH, or the count credits another lock's
# contention to it). Without PREEMPT_RT a nested-BH lock is a lockdep
# annotation with no rtmutex, and only rtmutex contentions are counted:
# its zeros hold by construction, so nothing is required (and asserting
# them would test nothing). Nor is anything required of a boot without
# stress phases on PREEMPT_RT without the softirq lock.
. "$(dirname "$0")/val-lib.sh"
T=/sys/kernel/tracing
list=$(param nbh.covlist)
uncontended=${NBH_TESTDIR:?}/../coverage/uncontended
[[ -f $list ]] || { echo "no coverage list '$list' (nbh.covlist=)"; exit 1; }
grep -q '^hist:' "$T/events/lock/contention_begin/trigger" ||
	{ echo "contention-start did not run in this boot"; exit 1; }

# Static per-CPU variables and where each CPU's copy is. SMP: symbols
# below __per_cpu_end, offsets __per_cpu_offset[] read through a kprobe
# on sync(2) in a trace instance of our own (the coverage kprobes write
# to the main buffer). Uniprocessor: one copy, an ordinary data symbol.
syms=/tmp/nbh-percpu-symbols
declare -a off
if grep -qw __per_cpu_offset /proc/kallsyms; then
	end=$(awk '$3 == "__per_cpu_end" {print $1; exit}' /proc/kallsyms)
	[[ -n $end ]] || { echo "no __per_cpu_end in /proc/kallsyms (CONFIG_KALLSYMS_ALL)"; exit 1; }
	awk -v e="$end" 'length($1) == length(e) && ("x" $1) < ("x" e) {print $1, $3}' \
		/proc/kallsyms | sort >"$syms"
	pcpu_end=$((16#$end))
	I=$T/instances/nbh-pcpu
	mkdir -p "$I"
	args=
	for ((c = 0; c < NCPUS; c++)); do args+=" o$c=@__per_cpu_offset+$((8 * c)):x64"; done
	echo "p:nbhpcpu/offsets ksys_sync$args" >>"$T/kprobe_events"
	echo 1 >"$I/events/nbhpcpu/offsets/enable"
	sync
	echo 0 >"$I/events/nbhpcpu/offsets/enable"
	line=$(grep -m1 -F 'offsets:' "$I/trace")
	rmdir "$I"
	echo "-:nbhpcpu/offsets" >>"$T/kprobe_events"
	for ((c = 0; c < NCPUS; c++)); do
		v=$(sed -n "s/.* o$c=\(0x[0-9a-f]*\).*/\1/p" <<<"$line")
		[[ -n $v ]] || { echo "no per-CPU offset of CPU $c in: $line"; exit 1; }
		off[c]=$((v))
	done
else
	awk '$2 ~ /^[dDbB]$/ {print $1, $3}' /proc/kallsyms | sort >"$syms"
	off[0]=0
	pcpu_end=
fi
echo "per-CPU variables: $(wc -l <"$syms") symbols, copies at offsets: ${off[*]}"
# percpu_var ADDRESS: the static per-CPU variable ADDRESS lies in, or "?".
# Addresses compare as 16-digit hex strings (awk has no 64-bit integers).
percpu_var() {
	local a=$1 c rel
	for ((c = 0; c < ${#off[@]}; c++)); do
		rel=$((a - off[c]))
		if [[ -n $pcpu_end ]] && ! ((rel >= 0 && rel < pcpu_end)); then
			continue
		fi
		awk -v a="$(printf '%016x' "$rel")" '("x" $1) <= ("x" a) {best = $2}
			END {print best == "" ? "?" : best}' "$syms"
		return
	done
	echo "?"
}

# Contended rtmutexes: address -> count.
declare -A contended=()
while read -r a n; do
	contended[$a]=$n
done < <(sed -n 's/^{ lock_addr: *\([0-9a-f]*\) *} hitcount: *\([0-9]*\)$/\1 \2/p' \
	"$T/events/lock/contention_begin/hist")
echo "contended rtmutexes (any lock): ${#contended[@]}"

# Nested-BH lockdep maps taken: LOCK -> acquisitions, contentions. A
# map's own rtmutex lies a fixed distance D below it (the size of the
# rtmutex in spinlock_t); another lock's contended rtmutex may lie nearer
# (objects allocated per CPU sit next to each other). D is the distance
# at which the most maps have a contended rtmutex below them, and only
# the rtmutex exactly D below a map counts for its lock.
declare -A taken=() hits=() at=()
maps=()
while read -r l name n; do
	[[ $name != \(*\) ]] || name=${name:1:-1}
	if [[ $name == \&* ]]; then
		lock=$name      # taken through a pointer: named after its init
	else
		var=$(percpu_var $((16#$l)))
		lock=$var.$name
		[[ $name != "$var" ]] || lock=$var
	fi
	taken[$lock]=$((${taken[$lock]:-0} + n))
	maps+=("$l $lock")
	for a in "${!contended[@]}"; do
		d=$((16#$l - 16#$a))
		((d > 0 && d <= 128)) && at[$d]=$((${at[$d]:-0} + 1))
	done
done < <(sed -n 's/^{ lockdep_addr: *\([0-9a-f]*\), name: *\(.*[^ ]\) *} hitcount: *\([0-9]*\)$/\1 \3 \2/p' \
	"$T/events/lock/lock_acquire/hist" | while read -r l n name; do name=${name// /}; echo "$l ${name//,/;} $n"; done)
D=
for d in "${!at[@]}"; do
	if [[ -z $D ]] || ((at[$d] > at[$D])); then D=$d; fi
done
if [[ -n $D ]]; then
	for m in "${maps[@]}"; do
		read -r l lock <<<"$m"
		a=$(printf '%x' $((16#$l - D)))
		[[ -n ${contended[$a]:-} ]] && hits[$lock]=$((${hits[$lock]:-0} + ${contended[$a]}))
	done
fi
others=
for d in "${!at[@]}"; do [[ $d == "$D" ]] || others+=" $d (${at[$d]} maps)"; done
echo "nested-BH lockdep maps taken: ${#taken[@]} lock(s); rtmutex to lockdep map" \
	"distance: ${D:-none}${D:+ (${at[$D]} maps)}; other contended rtmutexes below maps at:${others:- none}"

# require: contended (each lock, unless allowed), zero (no lock), or no.
secs=$(param nbh.stress)
if ! kconfig_y PREEMPT_RT; then
	require=no
	why="no PREEMPT_RT: no rtmutex under a nested-BH lock, zero by construction"
elif ! kconfig_line "# CONFIG_PREEMPT_RT_NEEDS_BH_LOCK is not set"; then
	require=zero
	why="PREEMPT_RT with the softirq lock: BH-disabled sections exclude each other first"
elif [[ ${secs:-0} != 0 ]]; then
	require=contended
	why="PREEMPT_RT without the softirq lock, stress phases of ${secs} s"
else
	require=no
	why="PREEMPT_RT without the softirq lock, no stress phase"
fi
echo "expected of every nested-BH lock: $require ($why)"
only=$(param nbh.locks)
[[ -z $only ]] || echo "required here: $only"
bad=0
tree=$(kernel_tree)
while read -r lock; do
	n=${taken[$lock]:-0} m=${hits[$lock]:-0}
	reason=$(awk -v l="$lock" -v t="$tree:$lock" '$1 == l || $1 == t {$1 = ""; sub(/^ /, ""); print}' \
		"$uncontended")
	need=$require
	[[ -z $only ]] || grep -qxF -- "$lock" <(tr ',' '\n' <<<"$only") || need=no
	if [[ $need == zero ]]; then
		if ((m == 0)); then
			echo "contention $lock acquired=$n contended=0"
		else
			echo "contention $lock acquired=$n contended=$m # CONTENDED WITH NOTHING TO CONTEND"
			bad=$((bad + 1))
		fi
	elif [[ $need == no ]] || ((n > 0 && m > 0)); then
		echo "contention $lock acquired=$n contended=$m"
	elif [[ -n $reason ]]; then
		echo "contention $lock acquired=$n contended=$m # allowed: $reason"
	else
		echo "contention $lock acquired=$n contended=$m # NEVER CONTENDED"
		bad=$((bad + 1))
	fi
done < <(awk 'NF >= 4 && $4 != "-" {n = split($4, l, ","); for (i = 1; i <= n; i++) print l[i]}' \
	"$list" | sort -u)
for lock in "${!taken[@]}"; do
	grep -qw -- "${lock}" <(awk '{print $4}' "$list" | tr ',' '\n') ||
		echo "contention $lock acquired=${taken[$lock]} contended=${hits[$lock]:-0} # not in the coverage list"
done
if [[ $require == zero ]]; then
	((bad == 0)) || { echo "$bad nested-BH lock(s) contended where nothing can contend them"; exit 1; }
	echo "no nested-BH lock contended, as expected"
	exit 0
fi
((bad == 0)) || { echo "$bad nested-BH lock(s) never contended"; exit 1; }
echo "contention counted for every nested-BH lock"
