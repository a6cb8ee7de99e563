# SPDX-License-Identifier: GPL-2.0
# Boot validation: guest tests for every datum the 6.1 series converts,
# run on pristine and patched nort-debug and rt-debug kernels.
#
#   make progs             build the guest test programs and BPF objects
#                          into $(VAL_PROGS) (the guest sees the host's /)
#   make boot-test         full matrix: pristine and patched 6.1 nort-debug
#                          and rt-debug, all validation tests, one table
#   make check-mutants     every mutant of the series (make-mutants): the
#                          audit on each, then each booted on patched
#                          nort-debug and rt-debug; kill rate
#   make check-audit-mutants
#                          the audit on each mutant (no kernel), in make check
#   make check-mutant-kinds
#                          the cheapest mutant of each kind, booted on
#                          patched nort-debug
#   make check-boot-validation
#                          the CI subset, see below
#
# Results (tables, per-run KTAP, coverage hit counts) go to $(OUT)/validation.

VAL_PROGS := $(WORK)/val/progs
VAL_OVS := $(WORK)/val/ovs
DEBIAN_PACKAGES += clang llvm libbpf-dev bpftool iptables nftables util-linux

VAL_BINS := udp-check tcp-md5 tcp-tw-ack syn-rst srh-sniff xdp-redirect tun-xdp bh-latency \
	preempt-pair frame-send can-flood tap-frags route6-race alg-hash
# Python programs the guest runs with the host's /usr/bin/python3.
VAL_PY := ovs-execute.py mptcp-transfer.py
VAL_BPF := redirect.bpf.o csum.bpf.o seg6.bpf.o qdisc.bpf.o
VAL_CFLAGS := -O2 -Wall -Wextra -Werror

.PHONY: progs boot-test check-mutants check-audit-mutants check-boot-validation
# make check runs check-audit-mutants and check-boot-validation (below).
# The backlog test retries until flush_backlog() has run, which it used
# to hit only by luck.
CHECK_TARGETS += check-audit-mutants check-boot-validation

progs: $(addprefix $(VAL_PROGS)/,$(VAL_BINS) $(VAL_BPF) $(VAL_PY)) $(VAL_OVS)/usr/bin/ovs-dpctl

$(VAL_PROGS)/%.py: boot-tests/progs/%.py | $(VAL_PROGS)
	cp $< $@.tmp && mv $@.tmp $@

# ovs-dpctl (and the libxdp it links) for the openvswitch test, from
# Debian's packages unpacked
# into $(VAL_OVS), never installed: their maintainer scripts would start
# Open vSwitch and load the openvswitch module into this machine's kernel.
$(VAL_OVS)/usr/bin/ovs-dpctl:
	@set -e; mkdir -p $(WORK); tmp=$$(mktemp -d $(WORK)/.ovs-XXXXXX); \
	trap 'rm -rf "$$tmp"' EXIT; \
	(cd "$$tmp" && apt-get download -q -o APT::Sandbox::User=root \
		openvswitch-switch openvswitch-common libxdp1 >/dev/null); \
	for d in "$$tmp"/*.deb; do dpkg -x "$$d" "$$tmp/root"; done; \
	test -x "$$tmp/root/usr/bin/ovs-dpctl"; \
	rm -rf $(VAL_OVS); mkdir -p $(dir $(VAL_OVS)); mv "$$tmp/root" $(VAL_OVS)

$(VAL_PROGS):
	@mkdir -p $@

# BPF programs: restricted C through Debian's clang for the bpf target.
$(VAL_PROGS)/%.bpf.o: boot-tests/progs/%.bpf.c | $(VAL_PROGS)
	clang -O2 -g -target bpf -I/usr/include/$$(gcc -dumpmachine) -Wall -Werror \
		-c $< -o $@.tmp && mv $@.tmp $@

$(VAL_PROGS)/redirect.skel.h: $(VAL_PROGS)/redirect.bpf.o
	bpftool gen skeleton $< name redirect_bpf >$@.tmp && mv $@.tmp $@

# Loaders link the host's libbpf; the guest runs them from the host root.
$(VAL_PROGS)/xdp-redirect $(VAL_PROGS)/tun-xdp: $(VAL_PROGS)/%: boot-tests/progs/%.c \
		boot-tests/progs/prog.h $(VAL_PROGS)/redirect.skel.h
	gcc $(VAL_CFLAGS) -I$(VAL_PROGS) -o $@.tmp $< -lbpf -lpthread && mv $@.tmp $@

$(VAL_PROGS)/%: boot-tests/progs/%.c boot-tests/progs/prog.h | $(VAL_PROGS)
	gcc $(VAL_CFLAGS) -o $@.tmp $< && mv $@.tmp $@

# The main job's step: the series applied with git am, patched nort-debug
# and rt-debug built and booted through every validation test. The
# rt-debug kernel runs without the softirq lock: the series
# generated-patches/linux-6.1-rt-no-bh-lock (PREEMPT_RT_NEEDS_BH_LOCK,
# not set) on top of the nested-BH series.
.PHONY: validation
MAIN_TARGETS += validation
# Stress phases on rt-debug only: nort-debug cannot preempt a BH-disabled
# section, and the boot beside it ends sooner without them.
validation: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation \
		--kernels patched-nort-debug,patched-rt-debug --rt-series $(SERIES_NO_BH_LOCK) \
		--stress-rt-only

boot-test: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation

# Debian's 6.12 as the product 6.1 is: patched nort-debug (the
# conversions 6.12 lacks, generated-patches/linux-6.12-beyond) and
# rt-debug without the softirq lock (the RT tree, 6.12 and Debian's
# PREEMPT_RT queue, with generated-patches/linux-6.12-rt-no-bh-lock on
# top of the conversions), built and booted through every guest test with
# coverage and contention, as validation does for 6.1. Not in make
# check (its budget): two more kernel builds and boots.
.PHONY: check-6.12
check-6.12: progs tree-6.12-rt
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation --tree 6.12 \
		--kernels patched-nort-debug,patched-rt-debug --rt-series $(SERIES_612_NO_BH_LOCK) \
		--stress-rt-only

# What no guest test can see while the softirq lock serializes BH (a
# dropped or misplaced nested-BH lock), the audit must: a few minutes on
# a copy of the source tree, no kernel build.
check-audit-mutants:
	WORK=$(WORK) OUT=$(OUT) boot-tests/audit-mutants

check-mutants: progs check-audit-mutants
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-mutants --variant nort-debug $(MUTANT_FLAGS)
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-mutants --variant rt-debug $(MUTANT_FLAGS)

# The CI subset: the patched kernels (nort-debug and rt-debug: two full
# builds, 10-15 min each with ccache cold) and two TCG boots running every
# validation test with coverage (5-7 min each, booted side by side). The pristine kernels of the
# full matrix are left to make boot-test, and the mutant boots (the
# cheapest of each kind: 6 min, incremental rebuilds of one file and a
# boot each) to make check-mutant-kinds, for CI time; make check audits
# every mutant (check-audit-mutants).
check-boot-validation: validation

# Every mutant on the rt-debug kernel without the softirq lock, where a
# dropped or misplaced nested-BH lock is a real race: 20-second stress
# phases, and contention-check on the mutated function's lock. About 5
# minutes a mutant; MUTANT_FLAGS=--resume goes on after an interrupted run.
# napi-alloc-cache's tap-frags phase runs FRAGS_SECONDS: the race in the
# page-frag cache's allocation shows about once in 30 s (under TCG a
# preemption lands inside it at one branch only), so that a boot sees it
# with a probability of 99%.
FRAGS_SECONDS ?= 150
.PHONY: check-mutants-no-bh-lock
check-mutants-no-bh-lock: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-mutants --variant rt-debug-no-bh-lock \
		--append nbh.frags_seconds=$(FRAGS_SECONDS) $(MUTANT_FLAGS)

.PHONY: check-mutant-kinds
check-mutant-kinds: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-mutants --variant nort-debug --select kinds

# The live frame leg of bpf-redirect 20 times in a row on each patched
# debug kernel of make check (rt-debug without the softirq lock): its
# accounting is exact, so a single failure is a bug.
.PHONY: check-live-stability
LIVE_REPEAT ?= 20
check-live-stability: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation --no-coverage \
		--kernels patched-nort-debug,patched-rt-debug --rt-series $(SERIES_NO_BH_LOCK) \
		--tests bpf-redirect \
		--append nbh.live_repeat=$(LIVE_REPEAT) --outdir $(OUT)/live-stability

# The patched debug kernels in the configuration flavours the series has
# branches for that QEMU can boot: uniprocessor (no SMP, and so no RPS,
# which 6.1 does not let SMP kernels switch off), every validation test
# on one vCPU. Two more full kernel builds (about 15 min each).
.PHONY: config-boots
config-boots: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation \
		--kernels patched-nort-debug+up,patched-rt-debug+up --outdir $(OUT)/config-boots

# The patched rt-debug kernel without the softirq lock, every validation
# test with longer stress phases than make check's 15 seconds: two tasks
# on CPU 0 preempting each other inside the converted sections, every
# nested-BH lock contended (contention-check).
.PHONY: stress
STRESS_SECONDS ?= 60
stress: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation --kernels patched-rt-debug \
		--rt-series $(SERIES_NO_BH_LOCK) --stress $(STRESS_SECONDS) --outdir $(OUT)/stress

# Pristine 6.1-RT with the softirq lock dropped and none of the nested-BH
# conversions (boot-tests/series/rt-no-bh-lock-alone), one boot per
# validation test with its stress phase, so that a datum that takes the
# guest down does not hide the others: which data break without their
# locks (failures are the finding). One more kernel build, then 20 boots
# (about 2 minutes each, --jobs at a time). Fails unless every breakage
# boot-tests/series/rt-no-bh-lock-alone/expected lists shows.
.PHONY: validation-no-conversions
validation-no-conversions: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-no-conversions --stress $(STRESS_SECONDS) \
		--expect boot-tests/series/rt-no-bh-lock-alone/expected $(NO_CONVERSIONS_FLAGS) \
		--results no-conversions --results-target "make validation-no-conversions"

# The race of fib6_nh.rt6i_pcpu reached, both sides on one kernel: the
# stack with the test-only hooks of boot-tests/series/rt-interleave,
# the window between rt6_make_pcpu_route()'s look at the empty slot and
# its install widened by IPV6_WINDOW_US. With 6.1's BUG() back
# (ipv6.pcpu_route_bug=1) the guest test ipv6-pcpu-route must kill the
# kernel with it; with the fix the stack carries, the same test must
# pass and count lost installs (the race reached). One more kernel build
# (the one check-interleave-stack boots), two boots.
IPV6_WINDOW_US ?= 20
IPV6_RUN = WORK=$(WORK) OUT=$(OUT) boot-tests/run-no-conversions \
	--series boot-tests/series/rt-interleave --tests ipv6-pcpu-route \
	--stress $(STRESS_SECONDS) --append ipv6.pcpu_route_delay_us=$(IPV6_WINDOW_US)
.PHONY: validation-ipv6-pcpu-route
validation-ipv6-pcpu-route: progs
	$(IPV6_RUN) --append ipv6.pcpu_route_bug=1 \
		--title "6.1-RT, the stack without the softirq lock, 6.1's BUG_ON() back" \
		--expect boot-tests/series/rt-interleave/expected-ipv6-bug \
		--outdir $(OUT)/validation-ipv6-pcpu-route-bug \
		--results no-conversions.ipv6-pcpu-route-bug \
		--results-target "make validation-ipv6-pcpu-route"
	$(IPV6_RUN) --title "6.1-RT, the stack without the softirq lock" \
		--must-pass --outdir $(OUT)/validation-ipv6-pcpu-route-fix \
		--results no-conversions.ipv6-pcpu-route-fix \
		--results-target "make validation-ipv6-pcpu-route"

# The tasklet handshake of the stack (linux-6.1-rt-no-bh-lock 0001): a
# tasklet callback on CPU 0 that waits for a tasklet running on CPU 1
# (boot-tests/series/rt-interleave's softirq.tasklet_wait_test). With the
# self-deadlock of the first version back (softirq.tasklet_wait_bug=1)
# the guest test tasklet-wait must fail with lockdep's recursion report;
# with the stack as it is, it must pass. The kernel of
# check-interleave-stack, two boots.
TASKLET_RUN = WORK=$(WORK) OUT=$(OUT) boot-tests/run-no-conversions \
	--series boot-tests/series/rt-interleave --tests tasklet-wait --stress 0
.PHONY: validation-tasklet-wait
validation-tasklet-wait: progs
	$(TASKLET_RUN) --append softirq.tasklet_wait_bug=1 \
		--title "6.1-RT, the stack without the softirq lock, the tasklet wait's self-deadlock back" \
		--expect boot-tests/series/rt-interleave/expected-tasklet-wait-bug \
		--outdir $(OUT)/validation-tasklet-wait-bug \
		--results no-conversions.tasklet-wait-bug --results-target "make validation-tasklet-wait"
	$(TASKLET_RUN) --title "6.1-RT, the stack without the softirq lock" \
		--must-pass --outdir $(OUT)/validation-tasklet-wait-fix \
		--results no-conversions.tasklet-wait-fix --results-target "make validation-tasklet-wait"

# The interleaving test: BH sections of tasks on one CPU made to
# interleave by the test-only patch of boot-tests/series/rt-interleave
# (a per-CPU SCHED_FIFO rival preempts the task in its section and
# handles the pending softirqs; softirq.bh_interleave=N wakes it at one
# in N local_bh_disable() calls and softirq handler entries,
# softirq.bh_interleave_us=T from a timer every T us that interrupts a
# task in a section), then workloads written for no datum: the tree's
# selftests and every guest test, one boot each, interleave-check after
# each (the interleaving happened). Pristine 6.1-RT without the lock and
# the conversions must break as boot-tests/series/rt-interleave-alone/
# expected says; the stack must pass everything. Two kernel builds, then
# two boots per test.
INTERLEAVE ?= 20
INTERLEAVE_US ?= 200
INTERLEAVE_STRESS ?= 5
INTERLEAVE_TIMEOUT ?= 2700
INTERLEAVE_TESTS ?= selftests,$(shell $(PY) -c 'import sys; sys.path.insert(0, "."); \
	from nbhlib import validation; print(",".join(validation.TESTS))')
INTERLEAVE_RUN = WORK=$(WORK) OUT=$(OUT) boot-tests/run-no-conversions \
	--tests $(INTERLEAVE_TESTS) --append softirq.bh_interleave=$(INTERLEAVE) \
	--append softirq.bh_interleave_us=$(INTERLEAVE_US) --after interleave-check --stress $(INTERLEAVE_STRESS) \
	--timeout $(INTERLEAVE_TIMEOUT)
.PHONY: check-interleave check-interleave-alone check-interleave-stack
check-interleave: check-interleave-alone check-interleave-stack
check-interleave-alone: progs
	$(INTERLEAVE_RUN) --series boot-tests/series/rt-interleave-alone \
		--title "6.1-RT without the softirq lock or the conversions, BH sections interleaved" \
		--expect boot-tests/series/rt-interleave-alone/expected \
		--outdir $(OUT)/interleave-alone \
		--results no-conversions.interleave-alone --results-target "make check-interleave-alone"
check-interleave-stack: progs
	$(INTERLEAVE_RUN) --series boot-tests/series/rt-interleave \
		--title "6.1-RT, the stack without the softirq lock, BH sections interleaved" \
		--must-pass --outdir $(OUT)/interleave-stack \
		--results no-conversions.interleave-stack --results-target "make check-interleave-stack"

# The stack's rt-debug kernel (make check's) through every validation
# test with RCU's boost priority left at the kernel's default
# (CONFIG_RCU_KTHREAD_PRIO, 1 in Debian's rt-amd64) instead of the
# rcutree.kthread_prio=40 of the other stress boots: whether a reader
# preempted by the stress's SCHED_FIFO tasks inside a BH-disabled
# section stalls a grace period (an RCU stall report fails the boot).
.PHONY: validation-rcu-default
validation-rcu-default: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation --rcu-default \
		--kernels patched-rt-debug --rt-series $(SERIES_NO_BH_LOCK) \
		--outdir $(OUT)/validation-rcu-default

# The patched rt-debug kernel with the softirq lock (the two nested-BH
# series, without linux-6.1-rt-no-bh-lock), through every validation
# test. One more kernel build.
.PHONY: validation-bh-lock
validation-bh-lock: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation \
		--kernels patched-rt-debug --outdir $(OUT)/validation-bh-lock

# Pristine 6.1-rt (the softirq lock) vs patched without it, the two rt
# kernels of bench-latency (no lock debugging, high-resolution timers):
# cpumap redirect with live frames; prints the medians and their ratio.
.PHONY: bench-xdp
bench-xdp: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-bench-xdp

# Pristine 6.1-rt (the softirq lock) vs patched without it (rt, no lock
# debugging): a high-priority task's BH-disabled send and cyclictest on
# a CPU that low-priority bulk traffic keeps in BH-disabled sections;
# medians, p99, maxima and their ratios, kept in results/bench-latency.json
# for the README. Two rt kernel builds.
DEBIAN_PACKAGES += rt-tests
.PHONY: bench-latency
bench-latency: progs
	start=$$(date +%s) && at=$$(scripts/record-results --describe) && \
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-bench-latency && \
	scripts/record-results bench-latency --from $(OUT)/validation/bench-latency.json \
		--target "make bench-latency" --started $$start --toolkit $$at

# The same on Debian's 6.12: its RT kernel (6.12 and Debian's PREEMPT_RT
# queue, with the softirq lock) vs the 6.12 stack without it;
# results/bench-latency-6.12.json.
.PHONY: bench-latency-6.12
bench-latency-6.12: progs tree-6.12-rt
	start=$$(date +%s) && at=$$(scripts/record-results --describe) && \
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-bench-latency --tree 6.12 && \
	scripts/record-results bench-latency-6.12 --from $(OUT)/validation-6.12/bench-latency.json \
		--target "make bench-latency-6.12" --started $$start --toolkit $$at

# The tree's own selftests for the converted paths (built by
# boot-tests/make-selftests: only the BPF objects and helpers they need),
# pristine vs patched nort-debug and rt-debug; outcomes must match.
# test_xdp_redirect_multi.sh skips without tcpdump and fails without
# arping; test_lwt_seg6local.sh needs nc.
.PHONY: selftests-compare
DEBIAN_PACKAGES += ebtables tcpdump iputils-arping netcat-openbsd
selftests-compare: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-selftests

# Coverage at the lock sites (not in make check yet): the patched kernels
# with the test-only series that counts the runs of every nested-BH lock
# site (boot-tests/series/lock-sites-beyond on nort-debug, lock-sites,
# the stack without the softirq lock, on rt-debug: two more kernel
# builds) through every validation test, each boot ending with the guest
# check lock-sites against the list boot-tests/make-lock-sites makes from
# the kernel's series (boot-tests/coverage/lock-sites-unreachable: the
# sites allowed not to run). make test-lock-sites tests the check itself
# on crafted debugfs dumps, without a kernel.
.PHONY: validation-lock-sites test-lock-sites
LOCK_SITES_SERIES := boot-tests/series/lock-sites-beyond
LOCK_SITES_RT_SERIES := boot-tests/series/lock-sites
validation-lock-sites: progs
	WORK=$(WORK) OUT=$(OUT) boot-tests/run-validation --lock-sites \
		--kernels patched-nort-debug,patched-rt-debug \
		--series $(LOCK_SITES_SERIES) --rt-series $(LOCK_SITES_RT_SERIES) \
		--stress-rt-only --outdir $(OUT)/validation-lock-sites

test-lock-sites:
	@boot-tests/test-lock-sites
