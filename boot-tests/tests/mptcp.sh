#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mptcp_delegated_actions (its bh_lock): an MPTCP connection with two
# subflows, one per veth pair, the client announcing its second address
# as a subflow endpoint. Bulk data the client sends is spread over both
# subflows; when an acknowledgement in softirq lets a subflow other than
# the acknowledged one send, __mptcp_subflow_push_pending() delegates the
# push to it (mptcp_subflow_delegate(): onto the CPU's delegated list,
# under the lock) and the MPTCP NAPI instance takes it off the list
# (mptcp_napi_poll() -> mptcp_subflow_delegated_next()). Every byte must
# arrive in order (progs/mptcp-transfer.py checks the pattern), the
# second subflow must have joined and carried data.
#
#   ma (m0 10.33.1.1) -- (m1 10.33.1.2) mb
#      (m2 10.33.2.1) -- (m3 10.33.2.2)
. "$(dirname "$0")/val-lib.sh"

PY=/usr/bin/python3
MPTCP=$PROGS/mptcp-transfer.py
[[ -f $MPTCP ]] || MPTCP=$(cd "$(dirname "$0")/../progs" && pwd)/mptcp-transfer.py

netns ma mb
for i in 1 2; do
	a=m$((2 * i - 2)) b=m$((2 * i - 1))
	ip link add "$a" netns ma type veth peer name "$b" netns mb
	in_ns ma ip addr add "10.33.$i.1/24" dev "$a"
	in_ns mb ip addr add "10.33.$i.2/24" dev "$b"
	in_ns ma ip link set "$a" up
	in_ns mb ip link set "$b" up
done
for n in ma mb; do
	in_ns "$n" sysctl -qw net.mptcp.enabled=1
	in_ns "$n" ip mptcp limits set subflow 2 add_addr_accepted 2
done
in_ns ma ip mptcp endpoint add 10.33.2.1 dev m2 subflow
# The second path slower than the first (HTB at 30 Mbit/s on m2): when
# an acknowledgement on one subflow lets data out, the scheduler often
# picks the other, and the push is handed over to it (a delegation).
# With two equal paths, a 20 MB transfer on nort-debug delegated none.
in_ns ma tc qdisc add dev m2 root handle 1: htb default 1
in_ns ma tc class add dev m2 parent 1: classid 1:1 htb rate 30mbit

# mptcp_mib NS COUNTER: an MPTcpExt counter of namespace NS.
mptcp_mib() {
	in_ns "$1" cat /proc/net/netstat | awk -v c="$2" '$1 == "MPTcpExt:" {
		if (!n) { for (i = 2; i <= NF; i++) col[$i] = i; n = 1 } else print $col[c] + 0 }'
}
tx_bytes() { in_ns ma cat "/sys/class/net/$1/statistics/tx_bytes"; }

log=/tmp/mptcp-serve.log
in_ns mb "$PY" "$MPTCP" serve 0.0.0.0 9800 >"$log" 2>&1 &
wait_line "$log" listening

transfer() { # BYTES CPU
	local j0 t0 t2 j1 t1 t3
	j0=$(mptcp_mib mb MPJoinAckRx)
	t0=$(tx_bytes m0) t2=$(tx_bytes m2)
	on_cpu "$2" ip netns exec ma "$PY" "$MPTCP" send 10.33.1.2 9800 "$1" || return 1
	j1=$(mptcp_mib mb MPJoinAckRx)
	t1=$(tx_bytes m0) t3=$(tx_bytes m2)
	echo "subflows joined: $((j1 - j0)); bytes sent on m0 $((t1 - t0)), on m2 $((t3 - t2))"
	((j1 - j0 == 1 && t1 - t0 > $1 / 20 && t3 - t2 > $1 / 50))
}
check "20 MB over two subflows from CPU 0, in order and intact" transfer 20000000 0
if ((NCPUS > 1)); then
	check "20 MB over two subflows from CPU 1, in order and intact" transfer 20000000 1
fi
fallback() {
	local f
	f=$(($(mptcp_mib ma MPCapableFallbackACK) + $(mptcp_mib mb MPCapableFallbackACK)))
	echo "fallbacks to TCP: $f"
	((f == 0))
}
check "no connection fell back to plain TCP" fallback

# Two clients preempting each other on CPU 0: the acknowledgements of
# one's subflows, processed in softirq on CPU 0, delegate pushes while
# the other is inside the same section.
stress "MPTCP bulk over two subflows (mptcp_delegated_actions), preempted on CPU 0" \
	ip netns exec ma "$PY" "$MPTCP" send 10.33.1.2 9800 4000000
# A delegated push is taken off the CPU's list by the MPTCP NAPI
# instance: mptcp_napi_poll() runs only then. Whether a push is delegated
# depends on timing (the subflow's socket owned by its user at that
# moment): counted over the transfers and the stress phase, with up to 5
# more transfers while it has not run (in one rt-debug boot of make
# check, neither transfer had delegated a push).
delegated() {
	local n r=0
	n=$(cov_hits mptcp_napi_poll)
	while [[ -n $n ]] && ((n == 0 && r < 5)); do
		r=$((r + 1))
		on_cpu 0 ip netns exec ma "$PY" "$MPTCP" send 10.33.1.2 9800 20000000 >/dev/null ||
			return 1
		n=$(cov_hits mptcp_napi_poll)
	done
	echo "mptcp_napi_poll: ${n:-not recorded} runs ($r more transfer(s))"
	[[ -z $n ]] || ((n > 0))
}
check "pushes handed over to the other subflow (mptcp_napi_poll ran)" delegated
# A client the stress phase kills at its end leaves a connection closed
# early; a byte out of order or changed is a failure.
intact() {
	local bad
	bad=$(grep -c "wrong from offset" "$log" || true)
	grep -v -e intact -e listening "$log" | head -n 5
	echo "$(grep -c intact "$log") connections intact, $bad with wrong bytes," \
		"$(grep -c "closed after" "$log" || true) cut short"
	((bad == 0))
}
check "no connection delivered a wrong byte" intact
finish
