#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Coverage at the lock sites: compares /sys/kernel/debug/nested_bh_sites
# (a kernel with boot-tests/series/lock-sites, CONFIG_DEBUG_NESTED_BH_SITES:
# one line per site compiled in, "FILE:LINE FUNCTION KIND HITS EXPR")
# with the list boot-tests/make-lock-sites made from the kernel's series
# (passed as nbh.locksites=). Prints "lock-site ID HITS" per listed site.
# A listed site matches the descriptors of its file, function, kind and
# lock expression (this_cpu_ptr() and whitespace aside), the Nth of them
# in line order being the Nth with that expression in the list; copies of
# one site (an inline helper in several objects) add up. Fails when a
# listed site is not compiled in or never ran, unless
# boot-tests/coverage/lock-sites-unreachable names it with its reason
# (as "!CONFIG_FOO:ID" when only a kernel without CONFIG_FOO, read from
# /proc/config.gz, cannot reach it, "CONFIG_FOO:ID" when only one with
# it), and when a site compiled in is not listed: the list is stale.
# Run at the end of a boot, after the tests. Off the guest (a test of
# the check itself): lock-sites.sh DUMP LIST [CONFIG [ALLOW-LIST]] reads
# those files.
set -euo pipefail
if (($# >= 2)); then
	dump=$1 list=$2 config=$(cat "${3:-/dev/null}")
	unreachable=${4:-$(dirname "$0")/../coverage/lock-sites-unreachable}
else
	. "$(dirname "$0")/val-lib.sh"
	list=$(param nbh.locksites)
	dump=/sys/kernel/debug/nested_bh_sites
	unreachable=${NBH_TESTDIR:?}/../coverage/lock-sites-unreachable
	config=$(zcat /proc/config.gz 2>/dev/null || true)
fi
[[ -f $list ]] || { echo "no lock-site list '$list' (nbh.locksites=)"; exit 1; }
[[ -r $dump ]] || {
	echo "no $dump: a kernel without CONFIG_DEBUG_NESTED_BH_SITES (boot-tests/series/lock-sites)"
	exit 1
}
[[ -f $unreachable ]] || { echo "no allow-list $unreachable"; exit 1; }
snap=$(mktemp)
trap 'rm -f "$snap"' EXIT
cat "$dump" >"$snap"
# The allow-list entries that hold on this kernel: "ID REASON" lines.
allowed=$(while read -r key reason; do
	[[ -z $key || $key == \#* ]] && continue
	case $key in
	!CONFIG_*:*)
		opt=${key%%:*} opt=${opt#!}
		if [[ -z $config ]] || grep -q "^$opt=[ym]" <<<"$config"; then
			continue
		fi
		;;
	CONFIG_*:*)
		opt=${key%%:*}
		grep -q "^$opt=[ym]" <<<"$config" || continue
		;;
	esac
	echo "${key#*CONFIG_*:} $reason"
done <"$unreachable")
awk -v allowed="$allowed" '
function norm(e) {
	gsub(/[ \t]+/, "", e)
	if (e ~ /^this_cpu_ptr\(.*\)$/)
		e = substr(e, 14, length(e) - 14)
	return e
}
BEGIN {
	n = split(allowed, a, "\n")
	for (i = 1; i <= n; i++) {
		id = a[i]; sub(/ .*/, "", id)
		why = a[i]; sub(/^[^ ]* ?/, "", why)
		if (id != "") reason[id] = why
	}
}
# The list: ID KIND EXPR PATCH LINE.
FNR == NR {
	if (NF != 5 || $1 !~ /^[^ ]+:[^ ]+#[0-9]+$/ || ($2 != "lock" && $2 != "owner")) {
		printf "malformed lock-site list line %d: %s\n", FNR, $0
		bad = 1; exit
	}
	id = $1; file = id; sub(/:.*/, "", file)
	fn = substr(id, length(file) + 2); sub(/#[0-9]+$/, "", fn)
	g = file SUBSEP fn SUBSEP $2 SUBSEP norm($3)
	key = g SUBSEP (++listed[g])
	ids[++nids] = id; keyof[id] = key
	next
}
# The dump: FILE:LINE FUNCTION KIND HITS EXPR...
{
	if (NF < 5 || $1 !~ /:[0-9]+$/ || $4 !~ /^[0-9]+$/) {
		printf "malformed %s line: %s\n", "nested_bh_sites", $0
		bad = 1; exit
	}
	file = $1; sub(/:[0-9]+$/, "", file); sub(/^\.\//, "", file)
	line = $1; sub(/.*:/, "", line)
	expr = ""
	for (i = 5; i <= NF; i++) expr = expr $i
	g = file SUBSEP $2 SUBSEP $3 SUBSEP norm(expr)
	if (!((g, line) in seen)) {
		seen[g, line] = 1
		lines[g] = lines[g] " " line
		where[g, line] = $1 " " $2 " " $3 " " expr
	}
	hits[g, line] += $4
}
END {
	if (bad) exit 2
	# The Nth descriptor of a group in line order is its Nth site.
	for (g in lines) {
		m = split(substr(lines[g], 2), ls, " ")
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (ls[j] + 0 < ls[i] + 0) { t = ls[i]; ls[i] = ls[j]; ls[j] = t }
		for (i = 1; i <= m; i++) {
			k = g SUBSEP i
			compiled[k] = hits[g, ls[i]]
			desc[k] = where[g, ls[i]]
		}
	}
	fail = 0
	for (i = 1; i <= nids; i++) {
		id = ids[i]; k = keyof[id]
		if (k in compiled) {
			used[k] = 1
			if (compiled[k] > 0) {
				printf "lock-site %s %d\n", id, compiled[k]
			} else if (id in reason) {
				printf "lock-site %s 0 # unreachable here: %s\n", id, reason[id]
			} else {
				printf "lock-site %s 0 # NEVER RAN\n", id; fail++
			}
		} else if (id in reason) {
			printf "lock-site %s - # not compiled in; unreachable here: %s\n", id, reason[id]
		} else {
			printf "lock-site %s - # NOT COMPILED IN\n", id; fail++
		}
	}
	for (k in compiled)
		if (!(k in used)) {
			printf "lock-site %s # NOT LISTED: compiled in, missing from the list (stale)\n", desc[k]
			fail++
		}
	if (fail) {
		printf "%d of %d lock site(s) not covered, or the list is stale\n", fail, nids
		exit 1
	}
	printf "every listed lock site ran or is unreachable here (%d sites)\n", nids
}' "$list" "$snap"
