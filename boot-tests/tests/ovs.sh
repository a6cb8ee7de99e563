#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ovs_pcpu_storage (action FIFOs, flow key clones, recursion level,
# fragmentation data): an openvswitch kernel datapath driven by ovs-dpctl
# alone (no ovs-vswitchd: misses have no listener, so every packet must
# match a flow), between two namespaces.
#
#   oa (o0 10.33.0.1) -- (o1 port 1) [dp0 in or] (o3 port 2) -- (o2 10.33.0.2) ob
#
# IPv4 from port 1 goes through ct() (which reassembles fragments)
# and recirculates; the recirculated flow nests sample() and clone()s
# deep enough that the innermost clone finds no flow key left and is
# deferred to the action FIFO, from which its output to port 2 runs.
# UDP from every CPU at once, 1200-byte datagrams and 3000-byte ones
# (fragmented by the sender, reassembled by ct, refragmented on output by
# ovs_fragment), must arrive intact, each exactly once. Then datagrams
# injected with OVS_PACKET_CMD_EXECUTE (progs/ovs-execute.py, what
# ovs-vswitchd does for a packet-out) from every CPU at once, with an
# output action and with a recirculation into a flow of its own.
# ovs-dpctl comes from Debian's openvswitch-switch unpacked (not
# installed) into the validation directory's ovs/.
. "$(dirname "$0")/val-lib.sh"

OVS=$VAL/ovs
if [[ ! -x $OVS/usr/bin/ovs-dpctl ]]; then
	echo "no ovs-dpctl in $OVS (openvswitch-switch and -common unpacked there)"
	exit 1
fi
dpctl() { ip netns exec or env LD_LIBRARY_PATH="$OVS/usr/lib/x86_64-linux-gnu" \
	OVS_RUNDIR=/tmp/ovs OVS_LOGDIR=/tmp/ovs "$OVS/usr/bin/ovs-dpctl" "$@"; }
mkdir -p /tmp/ovs

netns oa ob or
# IPv4 only: router solicitations and MLD reports would be misses.
for n in oa ob or; do in_ns "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1; done
ip link add o0 netns oa address 02:00:00:00:33:01 type veth peer name o1 netns or
ip link add o2 netns ob address 02:00:00:00:33:02 type veth peer name o3 netns or
in_ns oa ip addr add 10.33.0.1/24 dev o0
in_ns ob ip addr add 10.33.0.2/24 dev o2
for l in "oa o0" "or o1" "ob o2" "or o3"; do
	read -r n d <<<"$l"
	in_ns "$n" ip link set "$d" up
done
in_ns oa ip neigh replace 10.33.0.2 lladdr 02:00:00:00:33:02 dev o0
in_ns ob ip neigh replace 10.33.0.1 lladdr 02:00:00:00:33:01 dev o2

check "datapath dp0 created" dpctl add-dp dp0
check "ports o1 and o3 added" eval 'dpctl add-if dp0 o1 && dpctl add-if dp0 o3'
in_ns or ip link set dp0 up
dpctl show dp0
port_of() { dpctl show dp0 | sed -n "s/^ *port \([0-9]*\): $1\( .*\)\?$/\1/p"; }
check "o1 is port 1, o3 port 2" test "$(port_of o1)$(port_of o3)" = 12

# ovs-dpctl reads recirc()'s argument in decimal only.
# level 1: ct, recirc (flow key clone 1) -> level 2: sample (clone 2,
# level 3) -> clone (clone 3, level 4) -> clone: no clone left, deferred.
# The actions after each clone keep it from being the last one, which
# would let it run on the caller's key.
deep='sample(sample=100%,actions(clone(clone(set(skb_mark(5)),2),set(skb_mark(1))),'
deep+='set(skb_mark(2)))),set(skb_mark(3))'
flows() {
	dpctl add-flow dp0 "in_port(1),eth(),eth_type(0x0806),arp()" 2 &&
		dpctl add-flow dp0 "in_port(2),eth(),eth_type(0x0806),arp()" 1 &&
		dpctl add-flow dp0 "recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4()" \
			"ct,recirc(1)" &&
		dpctl add-flow dp0 "recirc_id(0x1),in_port(1),eth(),eth_type(0x0800),ipv4()" "$deep" &&
		dpctl add-flow dp0 "recirc_id(0x2),in_port(1),eth(),eth_type(0x0800),ipv4()" \
			"clone(set(skb_mark(6)),2),set(skb_mark(7))" &&
		dpctl add-flow dp0 "recirc_id(0),in_port(2),eth(),eth_type(0x0800),ipv4()" 1
}
check "flows added" flows
dpctl dump-flows dp0

flow_packets() { # RECIRC_ID: packets of the flow from port 1 with that recirc_id
	dpctl dump-flows dp0 | awk -v r="recirc_id($1)" \
		'index($0, r) && index($0, "in_port(1)") && /eth_type\(0x0800\)/ {
			sub(/.*packets:/, ""); sub(/,.*/, ""); n += $0 } END {print n + 0}'
}
missed() { dpctl show dp0 | sed -n 's/.*lookups: hit:[0-9]* missed:\([0-9]*\) lost:\([0-9]*\).*/\1 \2/p'; }
udp_in() { in_ns ob nstat -az UdpInDatagrams | awk '$1 == "UdpInDatagrams" {print $2}'; }
warnings() { dmesg | grep -c -e 'deferred action limit' -e 'recursion limit reached' || true; }

count=200
through() { # PORT SIZE: UDP from every CPU through the deep flow, each exactly once
	local r0 r1 u0 u1 n=$((count * NCPUS))
	r0=$(flow_packets 0x1)
	u0=$(udp_in)
	udp_flow oa ob 10.33.0.2 "$1" "$count" "$2" 90 || return 1
	sleep 1
	r1=$(flow_packets 0x1)
	u1=$(udp_in)
	echo "recirculated flow ran $((r1 - r0)) times, ob took $((u1 - u0)) datagrams, for $n sent"
	((r1 - r0 == n && u1 - u0 == n))
}
w0=$(warnings)
check "1200-byte UDP from every CPU through recirc, sample, clones and the FIFO" \
	through 9700 1200
check "3000-byte UDP from every CPU reassembled by ct, refragmented by ovs_fragment" \
	through 9701 3000
check "the reply direction (port 2 to 1) carries UDP from every CPU intact" \
	udp_flow ob oa 10.33.0.1 9702 "$count" 1200 90
read -r m l < <(missed) || true
echo "datapath: missed $m, lost $l; deferral or recursion limit warnings: $(($(warnings) - w0))"
check "no packet missed the flows, none lost, no limit reached" \
	test "$m $l $(($(warnings) - w0))" = "0 0 0"

# OVS_PACKET_CMD_EXECUTE from every CPU at once: in_port 1, the frames
# addressed to ob.
execute() { # ACTION PORT
	local log=/tmp/ovs.exec.$2 c pids=() rc=0 u0 u1 n=$((count * NCPUS))
	in_ns ob "$PROGS/udp-check" recv 10.33.0.2 "$2" "$n" 600 90 >"$log" 2>&1 &
	local rcv=$!
	wait_line "$log" listening || return 1
	u0=$(udp_in)
	for ((c = 0; c < NCPUS; c++)); do
		on_cpu "$c" ip netns exec or /usr/bin/python3 "$PROGS/ovs-execute.py" dp0 1 "$1" \
			02:00:00:00:33:01 02:00:00:00:33:02 10.33.0.1 10.33.0.2 "$2" "$count" 600 "$c" &
		pids+=($!)
	done
	for c in "${pids[@]}"; do wait "$c" || rc=1; done
	wait "$rcv" || rc=1
	sleep 1
	u1=$(udp_in)
	cat "$log"
	echo "ob took $((u1 - u0)) datagrams for $n executed"
	((rc == 0 && u1 - u0 == n))
}
check "OVS_PACKET_CMD_EXECUTE with output:2 from every CPU, each delivered once" \
	execute output:2 9703
r0=$(flow_packets 0x2)
check "OVS_PACKET_CMD_EXECUTE with recirc:2 from every CPU, each delivered once" \
	execute recirc:2 9704
r1=$(flow_packets 0x2)
check "the recirculated executions ran the recirc_id(0x2) flow" \
	test $((r1 - r0)) = $((count * NCPUS))

# Two tasks on CPU 0: one sends UDP through the datapath (executed in its
# BH sections, on PREEMPT_RT), the other injects packets with
# OVS_PACKET_CMD_EXECUTE; both take the CPU's ovs_pcpu_storage lock.
# shellcheck disable=SC2016 # expanded by the inner shell
stress "openvswitch actions from the receive path and from packet execute, preempted on CPU 0" \
	sh -c 'if [ "$PREEMPT_PAIR_SIDE" = 1 ]; then
			exec ip netns exec or /usr/bin/python3 '"$PROGS"'/ovs-execute.py dp0 1 output:2 \
				02:00:00:00:33:01 02:00:00:00:33:02 10.33.0.1 10.33.0.2 9705 1000000000 600 1
		fi
		exec ip netns exec oa '"$PROGS"'/udp-check send 10.33.0.2 9705 1000000000 1200'
dpctl del-dp dp0
finish
