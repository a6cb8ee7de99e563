#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tcp_md5sig_pool: TCP between two namespaces with TCP_MD5SIG on both
# ends, one client per CPU at once; every byte must arrive intact. A
# client with the wrong key must not get a connection, and the server
# must count the bad signatures (TcpExtTCPMD5Failure).
. "$(dirname "$0")/val-lib.sh"

netns ma mb
ip link add m0 netns ma type veth peer name m1 netns mb
in_ns ma ip addr add 10.9.0.1/24 dev m0
in_ns mb ip addr add 10.9.0.2/24 dev m1
in_ns ma ip link set m0 up
in_ns mb ip link set m1 up

per_client=2097152
rounds=3
in_ns mb "$PROGS/tcp-md5" server 10.9.0.2 6000 nbh-secret 10.9.0.1 120 \
	$((per_client * NCPUS * rounds)) >/tmp/md5.srv 2>&1 &
srv=$!
wait_line /tmp/md5.srv listening
clients() {
	local r c pids=()
	for ((r = 0; r < rounds; r++)); do
		for ((c = 0; c < NCPUS; c++)); do
			on_cpu "$c" ip netns exec ma "$PROGS/tcp-md5" client 10.9.0.2 6000 nbh-secret \
				"$per_client" &
			pids+=($!)
		done
	done
	for c in "${pids[@]}"; do wait "$c" || return 1; done
}
check "signed connections from every CPU send their data" clients
check "server received every byte intact" wait "$srv"
cat /tmp/md5.srv

fails_before=$(in_ns mb nstat -az TcpExtTCPMD5Failure | awk '/TCPMD5Failure/ {print $2}')
in_ns mb "$PROGS/tcp-md5" server 10.9.0.2 6001 nbh-secret 10.9.0.1 8 1 >/tmp/md5.srv2 2>&1 &
srv=$!
wait_line /tmp/md5.srv2 listening
wrong_key() {
	local rc=0
	in_ns ma "$PROGS/tcp-md5" client 10.9.0.2 6001 not-the-key 1000 || rc=$?
	[[ $rc == 1 ]]
}
check "a client with the wrong key gets no connection" wrong_key
wait "$srv" || true
fails_after=$(in_ns mb nstat -az TcpExtTCPMD5Failure | awk '/TCPMD5Failure/ {print $2}')
echo "TcpExtTCPMD5Failure: $fails_before -> $fails_after"
check "the server counted the bad signatures" test "$fails_after" -gt "$fails_before"

# Signed connections preempted on CPU 0: a server reads them one after
# the other; a client's 16 KiB fit in the socket buffers, so clients end
# without waiting for it.
if ((STRESS)); then
	in_ns mb "$PROGS/tcp-md5" server 10.9.0.2 6002 nbh-secret 10.9.0.1 $((STRESS + 30)) \
		$((1 << 40)) >/tmp/md5.srv3 2>&1 &
	srv=$!
	wait_line /tmp/md5.srv3 listening
fi
stress "signed connections (tcp_md5sig_pool), preempted on CPU 0" \
	ip netns exec ma "$PROGS/tcp-md5" client 10.9.0.2 6002 nbh-secret 16384
if ((STRESS)); then
	kill "$srv"
	wait "$srv" || true
fi
finish
