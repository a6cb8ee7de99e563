# SPDX-License-Identifier: GPL-2.0
# nbh-audit targets; included by the top Makefile, which defines WORK, PY,
# TREE_61, TREE_612, TREE_612_RT and OUT.

AUDIT_DIR := audit
AUDIT_OUT = $(OUT)/audit
NBH_AUDIT = $(PY) $(AUDIT_DIR)/nbh-audit

.PHONY: audit check-audit bench-audit check-context

# check-audit looks at the HTML report in headless Chromium.
DEBIAN_PACKAGES += chromium chromium-driver

# Full audit of net/ and kernel/bpf/ of the prepared 6.1 tree.
audit:
	mkdir -p $(AUDIT_OUT)
	$(NBH_AUDIT) --tree $(TREE_61) --json $(AUDIT_OUT)/audit-6.1.json \
		--text $(AUDIT_OUT)/audit-6.1.txt --html $(AUDIT_OUT)/audit-6.1.html \
		--org $(AUDIT_OUT)/audit-6.1.org

# Fixtures, bad input, upstream datums on 6.1 and 6.12, reviewed labels, the
# HTML report in headless Chromium (KTAP; screenshots in $(AUDIT_OUT)).
check-audit:
	mkdir -p $(AUDIT_OUT)
	$(PY) $(AUDIT_DIR)/tests/check-audit --tree61 $(TREE_61) --tree612 $(TREE_612) \
		--out $(AUDIT_OUT)

# Full audit vs one trivial spatch pass on the same files, then a warm
# re-run after touching one file of a scratch copy.
bench-audit:
	mkdir -p $(AUDIT_OUT)
	$(PY) $(AUDIT_DIR)/tests/bench-audit --tree $(TREE_61) --scratch $(WORK)/scratch/audit-bench \
		--out $(AUDIT_OUT)/bench.txt

CHECK_TARGETS += check-audit
MAIN_TARGETS += audit

# Context coverage of the patched 6.1 tree (KTAP): a shared clone of
# $(TREE_61) with generated-patches/linux-6.1 applied by git am, audited
# with --context bpf_net_ctx against audit/context/bpf_net_ctx.paths.
check-context:
	mkdir -p $(AUDIT_OUT)
	$(PY) $(AUDIT_DIR)/tests/check-context --pristine $(TREE_61) \
		--series $(SERIES_61) --out $(AUDIT_OUT)

CHECK_TARGETS += check-context

# The audit of what Debian's PREEMPT_RT kernel compiles (heavy: not in
# `make check`): Debian's rt-amd64 configuration, assembled from the
# config fragments fetch-rt-queue keeps next to the RT queue
# (scripts/debian-config, olddefconfig in the build directory
# $(RT_CONFIG_BUILD), nothing built), then nbh-audit over every directory
# that configuration compiles (arch/x86 included). A queue fetched before
# config/ was kept gets it from the same version, its queue unchanged.
TREE_61_RT := $(WORK)/trees/linux-6.1-rt
RT_QUEUE ?= $(WORK)/rt-queue/6.1
RT_CONFIG_BUILD ?= $(WORK)/build/6.1-rt-debian-rt-amd64
RT_CONFIG_REPORT = $(AUDIT_OUT)/audit-6.1-rt-amd64

# Its counts go to results/audit-rt-config.json, which the README quotes.
.PHONY: audit-rt-config
audit-rt-config:
	mkdir -p $(AUDIT_OUT)
	echo $$(date +%s) $$(scripts/record-results --describe) > $(RT_CONFIG_REPORT).started
	test -f $(RT_QUEUE)/config/defines || scripts/fetch-rt-queue --series 6.1 \
		--version "$$(cat $(RT_QUEUE)/VERSION)" --dest $(RT_QUEUE)
	scripts/debian-config --queue $(RT_QUEUE) --tree $(TREE_61_RT) --out $(RT_CONFIG_BUILD) \
		--record $(RT_CONFIG_REPORT).config.txt
	$(NBH_AUDIT) --tree $(TREE_61_RT) --build $(RT_CONFIG_BUILD) \
		--json $(RT_CONFIG_REPORT).json --text $(RT_CONFIG_REPORT).txt \
		--html $(RT_CONFIG_REPORT).html
	scripts/record-results audit-rt-config --from $(RT_CONFIG_REPORT).json \
		--target "make audit-rt-config" --started "$$(cut -d' ' -f1 $(RT_CONFIG_REPORT).started)" \
		--toolkit "$$(cut -d' ' -f2 $(RT_CONFIG_REPORT).started)" \
		--about "$$(sed -n '1s/^# //p' $(RT_CONFIG_REPORT).config.txt)"

# The same on 6.12: Debian's rt-amd64 configuration of its linux-6.12
# package (config/ of fetch-rt-queue --series 6.12, defines.toml) on the
# 6.12 RT tree, 6.12 and the PREEMPT_RT queue of the same package
# (scripts/prepare-rt-tree 6.12; the queue lets i915 build on PREEMPT_RT,
# among others) (triage: audit/triage-6.12-rt-config.md).
RT_QUEUE_612 ?= $(WORK)/rt-queue/6.12
RT_CONFIG_BUILD_612 ?= $(WORK)/build/6.12-rt-debian-rt-amd64
RT_CONFIG_REPORT_612 = $(AUDIT_OUT)/audit-6.12-rt-amd64

# Its counts go to results/audit-rt-config-6.12.json.
.PHONY: audit-rt-config-6.12
audit-rt-config-6.12: tree-6.12-rt
	mkdir -p $(AUDIT_OUT)
	echo $$(date +%s) $$(scripts/record-results --describe) > $(RT_CONFIG_REPORT_612).started
	test -f $(RT_QUEUE_612)/config/defines.toml || scripts/fetch-rt-queue --series 6.12 \
		--dest $(RT_QUEUE_612)
	scripts/debian-config --queue $(RT_QUEUE_612) --tree $(TREE_612_RT) \
		--out $(RT_CONFIG_BUILD_612) --record $(RT_CONFIG_REPORT_612).config.txt
	$(NBH_AUDIT) --tree $(TREE_612_RT) --build $(RT_CONFIG_BUILD_612) \
		--json $(RT_CONFIG_REPORT_612).json --text $(RT_CONFIG_REPORT_612).txt \
		--html $(RT_CONFIG_REPORT_612).html
	scripts/record-results audit-rt-config-6.12 --from $(RT_CONFIG_REPORT_612).json \
		--target "make audit-rt-config-6.12" \
		--started "$$(cut -d' ' -f1 $(RT_CONFIG_REPORT_612).started)" \
		--toolkit "$$(cut -d' ' -f2 $(RT_CONFIG_REPORT_612).started)" \
		--about "$$(sed -n '1s/^# //p' $(RT_CONFIG_REPORT_612).config.txt)"
