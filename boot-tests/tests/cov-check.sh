#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read back what cov-start recorded: one "coverage FUNCTION HITS" line per
# converted function (HITS summed over CPUs; "inlined" when the function
# has no symbol, "refused" when the kernel refused its kprobe). Fails if
# any function with a symbol has zero hits, or was refused a probe and no
# caller of it named in boot-tests/coverage/inlined ran,
# unless boot-tests/coverage/unreachable names it with its reason (as
# "pristine:FUNCTION" when only a kernel without the series cannot reach
# it; run-validation passes nbh.patched=1 for patched kernels; as
# "!CONFIG_FOO:FUNCTION" when only a kernel without CONFIG_FOO, read from
# /proc/config.gz, cannot), or
# boot-tests/coverage/inlined names a caller it may be inlined into and
# that caller ran (the credit is printed on the line).
. "$(dirname "$0")/val-lib.sh"
T=/sys/kernel/tracing
state=/tmp/nbh-cov
unreachable=${NBH_TESTDIR:?}/../coverage/unreachable
[[ -d $state ]] || { echo "cov-start did not run in this boot"; exit 1; }
echo 0 >"$T/function_profile_enabled"
declare -A hits
while read -r func n _; do
	hits[$func]=$((${hits[$func]:-0} + n))
done < <(cat "$T"/trace_stat/function* 2>/dev/null | awk 'NF >= 2 && $2 ~ /^[0-9]+$/')
while read -r name n _; do
	hits[${name#nbhcov/}]=$n
done < <(awk '$1 ~ /^nbhcov\// {print $1, $2}' "$T/kprobe_profile")
# callers_of FUNC: "CALLER[,CALLER...] HITS", the callers cov-start
# profiled for FUNC and the sum of their hits, or "- 0".
callers_of() {
	local c list="" sum=0
	while read -r c; do
		list+=${list:+,}$c
		sum=$((sum + ${hits[$c]:-0}))
	done < <(awk -v f="$1" '$1 == f {print $2}' "$state/callers")
	echo "${list:--} $sum"
}
zero=0
pristine=pristine:
[[ $(param nbh.patched) == 1 ]] && pristine=none:
config=$(zcat /proc/config.gz 2>/dev/null || true)
# unreachable_reason FUNC: the reason the unreachable file gives for FUNC
# on this kernel, if any.
unreachable_reason() {
	local key reason opt
	while read -r key reason; do
		case $key in
		"$1" | "$pristine$1") ;;
		!CONFIG_*:"$1")
			opt=${key%%:*}
			opt=${opt#!}
			if [[ -z $config ]] || grep -q "^$opt=" <<<"$config"; then
				continue
			fi
			;;
		*) continue ;;
		esac
		echo "$reason"
		return
	done <"$unreachable"
}
while read -r func; do
	n=${hits[$func]:-0}
	reason=$(unreachable_reason "$func")
	read -r callers ran < <(callers_of "$func")
	if ((n > 0)); then
		echo "coverage $func $n"
	elif [[ -n $reason ]]; then
		echo "coverage $func 0 # unreachable here: $reason"
	elif ((ran > 0)); then
		echo "coverage $func 0 # inlined into $callers here, which ran $ran times"
	else
		echo "coverage $func 0 # NEVER RAN"
		zero=$((zero + 1))
	fi
done < <(sort -u "$state/ftrace" "$state/kprobe")
# A function without a symbol: credited with the hits of the callers
# boot-tests/coverage/inlined names for it, and never ran when they did
# not run; without such a line, its body is only counted in callers
# nobody named.
while read -r func; do
	read -r callers ran < <(callers_of "$func")
	reason=$(unreachable_reason "$func")
	if [[ $callers == - ]]; then
		echo "coverage $func inlined # no symbol: counted in its callers"
	elif ((ran > 0)); then
		echo "coverage $func inlined # no symbol: inlined into $callers, which ran $ran times"
	elif [[ -n $reason ]]; then
		echo "coverage $func inlined # unreachable here: $reason"
	else
		echo "coverage $func inlined # NEVER RAN: no symbol, and its callers $callers never ran"
		zero=$((zero + 1))
	fi
done <"$state/inlined"
# A function whose kprobe the kernel refused (cov-start): observed only
# through the callers boot-tests/coverage/inlined names for it; without
# such a caller that ran, it was not seen at all.
while read -r func; do
	read -r callers ran < <(callers_of "$func")
	if ((ran > 0)); then
		echo "coverage $func refused # kprobe refused: credited to $callers, which ran $ran times"
	else
		echo "coverage $func refused # NOT SEEN: kprobe refused, and no caller of it named in coverage/inlined ran"
		zero=$((zero + 1))
	fi
done < <(cat "$state/refused" 2>/dev/null)
if [[ -s $state/kprobe ]]; then
	echo 0 >"$T/events/nbhcov/enable"
	echo >"$T/kprobe_events"
fi
((zero == 0)) || { echo "$zero converted function(s) never ran"; exit 1; }
echo "every traceable converted function ran"
