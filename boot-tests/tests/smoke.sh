#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test: the kernel flavour is the expected one, two network
# namespaces joined by a veth pair reach each other, and a TCP connection
# carries 1 MiB intact.
set -eu
uname -a
cpus=$(nproc)
echo "vCPUs: $cpus"
[[ $cpus -ge 2 ]] || { echo "need at least 2 vCPUs, have $cpus"; exit 1; }
if [[ ${NBH_EXPECT_RT:-0} == 1 ]]; then
	uname -v | grep -q PREEMPT_RT || { echo "expected a PREEMPT_RT kernel"; exit 1; }
else
	! uname -v | grep -q PREEMPT_RT || { echo "unexpected PREEMPT_RT kernel"; exit 1; }
fi

ip netns add a
ip netns add b
trap 'ip netns del a; ip netns del b' EXIT
ip link add va netns a type veth peer name vb netns b
ip -n a addr add 10.0.0.1/24 dev va
ip -n b addr add 10.0.0.2/24 dev vb
ip -n a link set va up
ip -n b link set vb up
ip -n a link set lo up
ip -n b link set lo up
ip netns exec a ping -c 2 -W 2 10.0.0.2

head -c 1048576 /dev/urandom >/tmp/send
ip netns exec b socat -u TCP-LISTEN:5000,reuseaddr OPEN:/tmp/recv,creat,trunc &
srv=$!
for _ in $(seq 50); do
	ip netns exec b ss -ltn | grep -q ':5000' && break
	sleep 0.1
done
ip netns exec a socat -u OPEN:/tmp/send TCP:10.0.0.2:5000
wait "$srv"
cmp /tmp/send /tmp/recv
echo "TCP transfer of 1 MiB: intact"
