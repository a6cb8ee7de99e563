#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# XDP redirect-to-cpumap throughput with live frames (the shape of
# xdp-bench redirect-cpu): BPF_PROG_TEST_RUN live frames on CPU 0 are
# redirected to the cpumap entry of the last CPU, whose program drops
# them. Prints one "bench-xdp rate N" line (frames/s) per repetition;
# nbh.bench_reps= repetitions of nbh.bench_secs= seconds (default 3 x 5).
. "$(dirname "$0")/val-lib.sh"

reps=$(param nbh.bench_reps)
secs=$(param nbh.bench_secs)
for ((i = 0; i < ${reps:-3}; i++)); do
	out=$("$PROGS/xdp-redirect" bench lo lo "${secs:-5}")
	rate=$(awk '$1 == "rate" {print $2}' <<<"$out")
	[[ -n $rate ]] || { echo "no rate in: $out"; exit 1; }
	echo "bench-xdp rate $rate"
done
