#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel tree's own selftests that cover the converted paths
# (built by boot-tests/make-selftests into the nbhval share), each from a
# writable copy, and print one "selftest DIR/NAME OUTCOME rc=N" line each
# (pass: 0, skip: 4, fail: other) with the reason of any skip. The
# outcomes are compared across kernels by run-selftests, so this test
# itself fails only when the selftests are missing.
. "$(dirname "$0")/val-lib.sh"

# The selftests of the running kernel's tree (6.1 or 6.12).
src=$VAL/selftests-$(kernel_tree)
[[ -d $src ]] || { echo "no selftests in $src (run make-selftests)"; exit 1; }
cp -a "$src" /tmp/selftests
# bridge_brouter.sh needs the broute table: the legacy ebtables has it.
mkdir -p /tmp/selftests/bin
ln -sf /usr/sbin/ebtables-legacy /tmp/selftests/bin/ebtables
# The guest kernels build no module (everything a test needs is
# built in), while /lib/modules is the host's: modprobe would fail, and
# ip_defrag.sh runs it under set -e. A missing feature still fails the
# test that needs it.
printf '#!/bin/sh\nexit 0\n' >/tmp/selftests/bin/modprobe
chmod +x /tmp/selftests/bin/modprobe
export PATH=/tmp/selftests/bin:$PATH
# nft_concat_range.sh: the correctness, concurrency and timeout tests of
# the pipapo sets, not the performance ones (minutes each under TCG).
export quicktest=1
for t in bpf/test_lwt_seg6local.sh bpf/test_xdp_redirect.sh bpf/test_xdp_redirect_multi.sh \
	bpf/test_xdp_veth.sh net/srv6_end_dt46_l3vpn_test.sh net/veth.sh net/udpgro_fwd.sh \
	net/ip_defrag.sh netfilter/bridge_brouter.sh \
	net/test_vxlan_under_vrf.sh netfilter/nft_concat_range.sh netfilter/conntrack_tcp_unreplied.sh; do
	log=/tmp/selftests/${t//\//_}.log
	rc=0
	(cd "/tmp/selftests/${t%/*}" && timeout 900 bash "./${t#*/}") >"$log" 2>&1 || rc=$?
	# The verdict lines of every sub-test that failed, then the end.
	grep -i -m 20 -E '^(fail|not ok)|\[ *fail(ed)? *\]' "$log" | sed 's/^/failed: /' || true
	tail -n 15 "$log"
	case $rc in
	0) outcome=pass ;;
	4) outcome=skip ;;
	*) outcome=fail ;;
	esac
	reason=$(grep -m1 -i 'skip' "$log" || true)
	echo "selftest $t $outcome rc=$rc${reason:+ # $reason}"
done
