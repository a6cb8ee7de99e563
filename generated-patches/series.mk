# SPDX-License-Identifier: GPL-2.0
# The hand-made nested-BH series for Debian's linux 6.1
# (generated-patches/linux-6.1/), included by the top Makefile.
#
#   make check-series        apply on pristine and rt, per-patch object
#                            builds, full builds, checkpatch, sparse,
#                            bloat-o-meter, hand-fix size, audit
#   make bench-bloat         nort bloat-o-meter table, per patch and whole
#   make series-6.1-export   regenerate the patch files from branch
#                            series-6.1 of $(TREE_61) (maintainer use)

SERIES_61_BRANCH := series-6.1

.PHONY: check-series bench-bloat series-6.1-export
CHECK_TARGETS += check-series

# `make check` leaves out, for CI time: the full kernels (step full) and
# the vmlinux bloat comparison, which add three kernels that nothing else
# in make check builds (patched nort and rt, pristine nort); the
# per-patch objects (bisectability: 7 to 8 minutes per variant from a
# cold ccache); and sparse in rt-debug (3 minutes). make check builds the
# whole series in both variants (the patched kernels of the boot tests)
# and runs sparse on its objects in nort-debug. `make check-series-full`
# runs every step in both variants.
SERIES_CHECK_STEPS := apply,checkpatch,sparse,handfix,audit

check-series:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series --steps $(SERIES_CHECK_STEPS) \
		--variants nort-debug

.PHONY: check-series-full
check-series-full:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series

bench-bloat:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series -q --steps apply,bloat
	@cat $(OUT)/series-6.1/bloat.txt

# The recipe sources scripts/lib.sh, which needs bash.
series-6.1-export: SHELL := /bin/bash

# format-patch with a zero From line, no signature and the fixed identity
# of scripts/lib.sh, so that the same commits give the same files. The
# cover letter's subject and text come from cover-letter.in; the series
# file keeps the "# datum:" annotation of every patch name it had.
series-6.1-export:
	@set -e; . scripts/lib.sh; \
	git -C $(TREE_61) rev-parse -q --verify $(SERIES_61_BRANCH) >/dev/null || \
		die "no branch $(SERIES_61_BRANCH) in $(TREE_61)"; \
	tmp=$$(mktemp -d "$(WORK)/.series-export-XXXXXX"); \
	trap 'rm -rf "$$tmp"' EXIT; \
	git -C $(TREE_61) format-patch -q --cover-letter --zero-commit \
		--no-signature --base=pristine -o "$$tmp" \
		pristine..$(SERIES_61_BRANCH); \
	$(PY) -c 'import sys; p, src = sys.argv[1:]; t = open(p).read(); \
		s, b = open(src).read().split("\n", 1); \
		t = t.replace("*** SUBJECT HERE ***", s).replace("*** BLURB HERE ***\n", b.lstrip("\n")); \
		open(p, "w").write(t)' "$$tmp/0000-cover-letter.patch" $(SERIES_61)/cover-letter.in; \
	$(PY) -c 'import sys; sys.path.insert(0, "."); from nbhlib import series; \
		series.write_listing(sys.argv[1], sys.argv[3:], previous=sys.argv[2])' \
		"$$tmp" $(SERIES_61)/series $$(cd "$$tmp" && ls 0*.patch | grep -v '^0000-'); \
	rm -f $(SERIES_61)/0*.patch; \
	mv "$$tmp"/0*.patch "$$tmp/series" $(SERIES_61)/; \
	log "exported $$(wc -l <$(SERIES_61)/series) patches to $(SERIES_61)"

# Every #ifdef / IS_ENABLED() branch the series adds or changes, compiled
# with its symbol flipped alone in nort-debug and rt-debug
# (scripts/config-matrix: one configuration and the touched objects per
# symbol and variant). Not in make check, for CI time.
.PHONY: config-matrix
config-matrix:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/config-matrix
