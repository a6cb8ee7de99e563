# SPDX-License-Identifier: GPL-2.0
# Semantic patches (semantic-patches/) and the raw patch generator
# (scripts/generate-raw-patches).  Included by the top Makefile, which
# provides WORK, PY, TREE_61, TREE_612 and OUT.

COCCI_DIR := semantic-patches

# OCaml scripting in nbh_lock_sections.cocci needs the OCaml compiler.
DEBIAN_PACKAGES += ocaml-nox
RAW_DIR := generated-patches/raw/linux-6.1
# The upstream datums by default; GENERATE_ALL=1 for every needs-lock datum
# (about an hour on two cores).
GENERATE_SCOPE = $(if $(GENERATE_ALL),,--datums-file $(COCCI_DIR)/upstream-datums-6.1.txt)

.PHONY: check-cocci generate check-generated

# The .cocci tests: patch output, report output, idempotence, lint.
check-cocci:
	$(PY) $(COCCI_DIR)/run-tests

# Audit the pristine 6.1 tree and write one raw patch per needs-lock datum.
generate:
	$(PY) scripts/generate-raw-patches --tree $(TREE_61) $(GENERATE_SCOPE) --out $(RAW_DIR)

# Regenerate into a temporary directory; fail if the committed copies differ.
check-generated:
	$(PY) scripts/generate-raw-patches --tree $(TREE_61) $(GENERATE_SCOPE) --check $(RAW_DIR)

CHECK_TARGETS += check-cocci check-generated
