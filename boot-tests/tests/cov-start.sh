#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Start recording which converted functions run: the list comes from the
# series (boot-tests/make-coverage-list, passed as nbh.covlist=). Each
# function ftrace can trace goes to the function profiler; one that has
# a symbol but no ftrace site gets a kprobe (or, refused one, is recorded
# so); one with neither was inlined and is recorded as such. A function that some builds inline
# into a caller (boot-tests/coverage/inlined: one line per caller) also
# has that caller profiled, for cov-check to credit; so does a function
# without a symbol that the file names. cov-check reads the counts at the
# end.
# The exit trap of val-lib.sh only cleans namespaces, which this has none.
. "$(dirname "$0")/val-lib.sh"
list=$(param nbh.covlist)
T=/sys/kernel/tracing
state=/tmp/nbh-cov
inlined=${NBH_TESTDIR:?}/../coverage/inlined
[[ -f $list ]] || { echo "no coverage list '$list' (nbh.covlist=)"; exit 1; }
[[ -f $T/function_profile_enabled ]] || { echo "no function profiler in this kernel"; exit 1; }
mkdir -p "$state"
: >"$state/ftrace"
: >"$state/kprobe"
: >"$state/inlined"
: >"$state/callers"
awk '{print $1}' "$T/available_filter_functions" | sort -u >"$state/traceable"
awk '$2 ~ /^[tT]$/ {print $3}' /proc/kallsyms | sort -u >"$state/symbols"
while read -r func _; do
	if grep -qxF "$func" "$state/traceable"; then
		echo "$func" >>"$state/ftrace"
	elif grep -qxF "$func" "$state/symbols"; then
		echo "$func" >>"$state/kprobe"
	else
		echo "$func" >>"$state/inlined"
	fi
done < <(sort -u "$list")
while read -r func caller _; do
	[[ -z $func || $func == \#* ]] && continue
	grep -qxF "$func" "$state/ftrace" "$state/kprobe" "$state/inlined" || continue
	grep -qxF "$caller" "$state/traceable" && echo "$func $caller" >>"$state/callers"
done <"$inlined"
sort -u -o "$state/ftrace" "$state/ftrace"
sort -u "$state/ftrace" <(awk '{print $2}' "$state/callers") >"$T/set_ftrace_filter"
echo 1 >"$T/function_profile_enabled"
# A kprobe the kernel refuses (an out-of-line copy of an inline function
# on some builds) leaves the function unobserved: it goes to "refused",
# which cov-check credits only through the callers coverage/inlined
# names for it, as a function without a symbol.
: >"$state/refused"
while read -r func; do
	if ! echo "p:nbhcov/$func $func" 2>/dev/null >>"$T/kprobe_events"; then
		why=$(tail -n 3 "$T/error_log" 2>/dev/null | tr -s ' \n' ' ')
		echo "kprobe refused on $func: ${why:-no reason logged}"
		echo "$func" >>"$state/refused"
	fi
done <"$state/kprobe"
grep -vxF -f "$state/refused" "$state/kprobe" >"$state/probed" || true
mv "$state/probed" "$state/kprobe"
[[ -s $state/kprobe ]] && echo 1 >"$T/events/nbhcov/enable"
echo "profiling $(wc -l <"$state/ftrace") functions, kprobes on $(wc -l <"$state/kprobe")" \
	"($(wc -l <"$state/refused") refused)," \
	"$(wc -l <"$state/inlined") inlined (no symbol), $(wc -l <"$state/callers") caller(s) of" \
	"functions some builds inline"
