# SPDX-License-Identifier: GPL-2.0
# Boot validation (issue 6): guest tests for every datum the 6.1 series
# converts, run on pristine and patched nort-debug and rt-debug kernels.
#
#   make progs             build the guest test programs and BPF objects
#                          into $(VAL_PROGS) (the guest sees the host's /)
#   make boot-test         full matrix: pristine and patched 6.1 nort-debug
#                          and rt-debug, all validation tests, one table
#   make check-boot-validation
#                          the CI subset, see below
#
# Results (tables, per-run KTAP, coverage hit counts) go to $(OUT)/validation.

VAL_PROGS := $(WORK)/val/progs
VAL_SERIES := generated-patches/linux-6.1
DEBIAN_PACKAGES += clang llvm libbpf-dev bpftool iptables nftables

VAL_BINS := udp-check tcp-md5 tcp-tw-ack srh-sniff xdp-redirect tun-xdp
VAL_BPF := redirect.bpf.o csum.bpf.o seg6.bpf.o
VAL_CFLAGS := -O2 -Wall -Wextra -Werror

.PHONY: progs

progs: $(addprefix $(VAL_PROGS)/,$(VAL_BINS) $(VAL_BPF))

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
		$(VAL_PROGS)/redirect.skel.h
	gcc $(VAL_CFLAGS) -I$(VAL_PROGS) -o $@.tmp $< -lbpf -lpthread && mv $@.tmp $@

$(VAL_PROGS)/%: boot-tests/progs/%.c | $(VAL_PROGS)
	gcc $(VAL_CFLAGS) -o $@.tmp $< && mv $@.tmp $@
