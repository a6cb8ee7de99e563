# SPDX-License-Identifier: GPL-2.0
# Semantic patches (semantic-patches/) and the raw patch generator
# (scripts/generate-raw-patches).  Included by the top Makefile, which
# provides WORK, PY, TREE_61, TREE_612 and OUT.

COCCI_DIR := semantic-patches

# OCaml scripting in nbh_lock_sections.cocci needs the OCaml compiler;
# run-tests applies make coccicheck's diffs with patch.
DEBIAN_PACKAGES += ocaml-nox patch
RAW_DIR := generated-patches/raw/linux-6.1
# The upstream datums by default; GENERATE_ALL=1 for every needs-lock datum
# (about an hour on two cores).
GENERATE_SCOPE = $(if $(GENERATE_ALL),,--datums-file $(COCCI_DIR)/upstream-datums-6.1.txt)
# The series beyond upstream's: its data, from the 6.1 tree with the first
# series applied (the generator applies $(SERIES_61) on a branch of its own).
RAW_BEYOND_DIR := generated-patches/raw/linux-6.1-beyond
GENERATE_BEYOND = $(PY) scripts/generate-raw-patches --tree $(TREE_61) --series $(SERIES_61) \
	--datums-file $(COCCI_DIR)/beyond-datums-6.1.txt

.PHONY: check-cocci check-generator generate check-generated check-generated-6.12 raw-report
.PHONY: generate-beyond check-generated-beyond

# The .cocci tests: patch output, report output, idempotence, lint, usage
# errors; each case also through the README's plain spatch and make
# coccicheck command lines in the 6.1 tree (read only: O= is a scratch
# directory), and bpf_sp on its net/core/filter.c.
check-cocci:
	$(PY) $(COCCI_DIR)/run-tests --tree $(TREE_61)

# The generator's bad input and its scratch worktrees, on throw-away trees.
check-generator:
	$(PY) scripts/check-generator

# Audit the pristine 6.1 tree and write one raw patch per needs-lock datum.
# Then the same for the data of the series beyond it, on top of the first.
generate:
	$(PY) scripts/generate-raw-patches --tree $(TREE_61) $(GENERATE_SCOPE) --out $(RAW_DIR)
	$(GENERATE_BEYOND) --out $(RAW_BEYOND_DIR)

generate-beyond:
	$(GENERATE_BEYOND) --out $(RAW_BEYOND_DIR)

# The main job's step: the same raw patches into the work directory,
# leaving the committed copies alone.
.PHONY: generate-work
MAIN_TARGETS += generate-work
generate-work:
	mkdir -p $(OUT)/generated
	$(PY) scripts/generate-raw-patches --tree $(TREE_61) $(GENERATE_SCOPE) \
		--out $(OUT)/generated/linux-6.1
	$(GENERATE_BEYOND) --out $(OUT)/generated/linux-6.1-beyond

# Regenerate into a temporary directory; fail if the committed copies differ.
check-generated:
	$(PY) scripts/generate-raw-patches --tree $(TREE_61) $(GENERATE_SCOPE) --check $(RAW_DIR)

check-generated-beyond:
	$(GENERATE_BEYOND) --check $(RAW_BEYOND_DIR)

# The 6.12 tree carries the upstream series: running the pipeline on the
# datums the audit finds converted there must produce no patch at all.
check-generated-6.12:
	mkdir -p $(OUT)
	$(PY) scripts/generate-raw-patches --tree $(TREE_612) --verdict converted \
		--datums-file $(COCCI_DIR)/upstream-datums-6.1.txt --datum sigpool_scratch \
		--out $(OUT)/raw-6.12-converted

# Distance of each raw patch to the hand-fixed series; COMPILE=1 also builds
# the touched objects in nort-debug and rt-debug (slow).
raw-report:
	$(PY) scripts/generate-raw-report --raw $(RAW_DIR) --tree $(TREE_61) $(if $(COMPILE),--compile)

CHECK_TARGETS += check-cocci check-generator check-generated check-generated-beyond \
	check-generated-6.12
