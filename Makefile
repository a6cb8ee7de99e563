# SPDX-License-Identifier: GPL-2.0
# nbh: nested-BH locking toolkit. `make` runs the main job, `make check`
# the test suite. Kernel trees, builds and caches live in $(WORK).

WORK ?= /var/tmp/nbh-work
PY := /usr/bin/python3
TREE_61 := $(WORK)/trees/linux-6.1
TREE_612 := $(WORK)/trees/linux-6.12
TREE_612_RT := $(WORK)/trees/linux-6.12-rt
OUT := $(WORK)/out
export WORK
# The series of the patched kernels: the nested-BH series, and on 6.1-RT
# the stack that drops the softirq lock on top of it.
SERIES_61 := generated-patches/linux-6.1
SERIES_BEYOND := generated-patches/linux-6.1-beyond
SERIES_NO_BH_LOCK := generated-patches/linux-6.1-rt-no-bh-lock
# The same stack on Debian's 6.12 RT tree (make check-6.12).
SERIES_612_NO_BH_LOCK := generated-patches/linux-6.12-rt-no-bh-lock

# Kernel build selection for `make kernel` / `make boot`.
TREE ?= 6.1
VARIANT ?= nort-debug
SERIES ?= none
TESTS ?= smoke

# Debian packages needed; fragments append theirs.
DEBIAN_PACKAGES := linux-source-6.1 linux-source-6.12 coccinelle \
	qemu-system-x86 ccache gcc make flex bison bc libelf-dev libssl-dev \
	dwarves sparse git python3 graphviz busybox-static xz-utils cpio kmod \
	iproute2 iputils-ping socat ethtool shellcheck pyflakes3

# Test targets run by `make check`, and steps of the main job, in order;
# the fragments below append theirs.
CHECK_TARGETS := check-lint
MAIN_TARGETS :=

# `make` is the main job, whatever target the fragments define first.
.DEFAULT_GOAL := all

include $(wildcard audit/*.mk semantic-patches/*.mk generated-patches/*.mk boot-tests/*.mk)

.PHONY: all deps tree kernel boot check check-lint summary $(CHECK_TARGETS)

all: deps tree
	@set -e; for t in $(MAIN_TARGETS); do \
		echo "==> make $$t"; $(MAKE) --no-print-directory $$t; done
	@$(MAKE) --no-print-directory summary

deps:
	@scripts/install-deps $(sort $(DEBIAN_PACKAGES))

# 6.12 is imported while 6.1 and its rt branch are (xz and git are
# single-threaded for most of an import).
tree: deps
	@scripts/prepare-tree 6.12 & p=$$!; \
	scripts/prepare-tree 6.1 && scripts/prepare-rt-tree; rc=$$?; \
	wait $$p || rc=1; exit $$rc

# Debian's 6.12 RT tree (6.12 and the PREEMPT_RT queue of Debian's
# linux-6.12), for the 6.12 targets only: make check does not use it.
.PHONY: tree-6.12-rt
tree-6.12-rt: tree
	@scripts/prepare-rt-tree 6.12

kernel: tree
	@scripts/kernel $(TREE) $(VARIANT) $(SERIES)

boot: kernel
	@boot-tests/nbh-boot --kernel "$$(scripts/kernel $(TREE) $(VARIANT) $(SERIES))" \
		--tests $(TESTS) $(if $(filter rt%,$(VARIANT)),--expect-rt)

# Every check target runs even if an earlier one failed; the output is
# KTAP, each target's own output nested (indented) under its result, and
# the exit status is non-zero if any failed.
check: deps tree
	@scripts/check-all $(CHECK_TARGETS)

# Every shell script (found by its shebang or a shellcheck directive)
# through shellcheck, every Python source (programs found by shebang, and
# the packages) through pyflakes; a Python program also has to compile.
# Then every program run with --help in a trap (scripts/check-help).
LINT_FILES := $(shell find . -path ./.git -prune -o -type f \( -name '*.sh' -o \
	-perm -u+x \) -print 2>/dev/null | sort)
SH_SOURCES = $(shell grep -lE '^\#!/bin/(ba)?sh|^\#!/usr/bin/env bash|^\# shellcheck shell=' $(LINT_FILES))
PY_SOURCES = $(shell grep -l '^\#!/usr/bin/python3' $(LINT_FILES)) \
	$(shell find nbhlib audit/nbhaudit -name '*.py')

check-lint:
	@shellcheck -x -e SC1091 $(SH_SOURCES)
	@pyflakes3 $(PY_SOURCES)
	@for f in $(PY_SOURCES); do \
		$(PY) -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" $$f || exit 1; done
	@echo "check-lint: $(words $(SH_SOURCES)) shell and $(words $(PY_SOURCES)) Python sources clean"
	@scripts/readme-figures
	@out=$$(scripts/test-readme-figures) || { echo "$$out"; exit 1; }; \
		echo "check-lint: readme-figures: $$(echo "$$out" | grep -c '^ok') of its test cases pass"
	@out=$$(scripts/test-debian-config) || { echo "$$out"; exit 1; }; \
		echo "check-lint: debian-config: $$(echo "$$out" | grep -c '^ok') of its test cases pass"
	@out=$$(scripts/check-help) || { echo "$$out"; exit 1; }; \
		echo "check-lint: $$(echo "$$out" | grep -c '^ok') programs print their usage for --help and do nothing else"

summary:
	@echo "== nbh summary (WORK=$(WORK))"
	@for t in 6.1 6.12; do printf '  tree %-5s %s\n' $$t "$$(cat $(WORK)/trees/linux-$$t/.git/nbh-pristine-version 2>/dev/null || echo missing)"; done
	@printf '  rt queue   %s (skipped as already applied: %s)\n' \
		"$$(cat $(WORK)/rt-queue/6.1/VERSION 2>/dev/null || echo missing)" \
		"$$(tr '\n' ' ' < $(TREE_61)/.git/nbh-rt-skipped 2>/dev/null | sed 's/ *$$//' | grep . || echo none)"
	@[ ! -f $(OUT)/audit/audit-6.1.json ] || $(PY) -c 'import json,sys,collections; \
		c = collections.Counter(f["verdict"] for f in json.load(open(sys.argv[1]))["findings"]); \
		print("  audit 6.1  " + ", ".join("%s %d" % kv for kv in sorted(c.items())))' $(OUT)/audit/audit-6.1.json
	@[ ! -d $(OUT)/generated/linux-6.1 ] || printf '  generated  %s raw patches in %s\n' \
		"$$(ls $(OUT)/generated/linux-6.1/*.patch 2>/dev/null | wc -l)" $(OUT)/generated/linux-6.1
	@for r in $(WORK)/boot/runs/6.1-*/result.json; do [ -f "$$r" ] || continue; \
		$(PY) -c 'import json,sys; r=json.load(open(sys.argv[1])); print("  boot %-48s rc=%s boot=%ss splats=%d" % (sys.argv[1].split("/")[-2], r["rc"], r["boot_s"], len(r["splats"])))' $$r; done
	@[ ! -f $(OUT)/validation/table.txt ] || { echo "  boot validation ($(OUT)/validation/table.txt):"; \
		sed 's/^/    /' $(OUT)/validation/table.txt; }
