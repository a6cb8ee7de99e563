# SPDX-License-Identifier: GPL-2.0
# The hand-made nested-BH series for Debian's linux 6.1
# (generated-patches/linux-6.1/ and, stacked on it,
# generated-patches/linux-6.1-beyond/), included by the top Makefile.
#
#   make check-series        apply on pristine and rt, per-patch object
#                            builds, full builds, checkpatch, sparse,
#                            bloat-o-meter, hand-fix size, audit
#   make bench-bloat         nort bloat-o-meter table, per patch and whole
#   make series-6.1-export   regenerate the patch files from branch
#                            series-6.1 of $(TREE_61) (maintainer use)
#   make series-beyond-export  the same for generated-patches/linux-6.1-beyond
#                            from branch series-6.1-beyond

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

# The stack the patched kernels are built from: both series.
check-series:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series --series $(SERIES_BEYOND) \
		--steps $(SERIES_CHECK_STEPS) --variants nort-debug

.PHONY: check-series-full
check-series-full:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series --series $(SERIES_BEYOND)

bench-bloat:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/check-series --series $(SERIES_BEYOND) -q \
		--steps apply,bloat
	@cat $(OUT)/series-6.1-beyond/bloat.txt

# scripts/export-series: format-patch with a zero From line, no signature
# and the fixed identity, so that the same commits give the same files; the
# cover letter's subject and text come from cover-letter.in; the series
# file keeps its directives and the "# datum:" annotation of every patch.
series-6.1-export:
	$(PY) scripts/export-series --tree $(TREE_61) --range pristine..$(SERIES_61_BRANCH) \
		--dir $(SERIES_61)

# The series beyond upstream's: branch series-6.1-beyond, on top of branch
# series-6.1 (the first series, exported above).
SERIES_BEYOND_BRANCH := series-6.1-beyond
.PHONY: series-beyond-export
series-beyond-export:
	$(PY) scripts/export-series --tree $(TREE_61) \
		--range $(SERIES_61_BRANCH)..$(SERIES_BEYOND_BRANCH) --dir $(SERIES_BEYOND)

# Every #ifdef / IS_ENABLED() branch the series adds or changes, compiled
# with its symbol flipped alone in nort-debug and rt-debug
# (scripts/config-matrix: one configuration and the touched objects per
# symbol and variant). Not in make check, for CI time.
.PHONY: config-matrix
config-matrix:
	WORK=$(WORK) OUT=$(OUT) $(PY) scripts/config-matrix
