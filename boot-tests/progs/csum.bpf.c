// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress program that rewrites the IPv4 source address of UDP packets
 * (10.18.0.1 -> 10.18.0.77 for an even destination port, 10.18.0.78 for
 * an odd one: the addresses of tests/bpf-csum.sh) and fixes both
 * checksums from a bpf_csum_diff() of the old and new address. A wrong
 * checksum makes the receiver drop the packet, so delivery proves the
 * helper computed it right; two senders on one CPU that use ports of
 * both parities get different sums from the same per-CPU scratchpad, so
 * one computed over the other's data shows as a checksum error. The count
 * of rewritten packets is kept for the test.
 */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define IP_OFF ETH_HLEN
#define IP_CSUM_OFF (IP_OFF + offsetof(struct iphdr, check))
#define IP_SRC_OFF (IP_OFF + offsetof(struct iphdr, saddr))

#define FROM_ADDR 0x0a120001	/* 10.18.0.1 */
#define TO_ADDR 0x0a12004d	/* 10.18.0.77 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rewritten SEC(".maps");

SEC("tc")
int snat_csum_diff(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct iphdr *ip = data + IP_OFF;
	struct udphdr *udp = (void *)(ip + 1);
	__be32 old_addr, new_addr;
	__u32 zero = 0;
	__s64 diff;
	__u64 *c;

	if ((void *)(udp + 1) > end || skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	if (ip->protocol != IPPROTO_UDP || ip->saddr != bpf_htonl(FROM_ADDR) || ip->ihl != 5)
		return TC_ACT_OK;
	old_addr = ip->saddr;
	new_addr = bpf_htonl(TO_ADDR + (bpf_ntohs(udp->dest) & 1));
	diff = bpf_csum_diff(&old_addr, 4, &new_addr, 4, 0);
	if (diff < 0)
		return TC_ACT_SHOT;
	if (bpf_skb_store_bytes(skb, IP_SRC_OFF, &new_addr, 4, 0) ||
	    bpf_l3_csum_replace(skb, IP_CSUM_OFF, 0, diff, 0) ||
	    bpf_l4_csum_replace(skb, IP_OFF + sizeof(struct iphdr) +
				offsetof(struct udphdr, check), 0, diff,
				BPF_F_PSEUDO_HDR | BPF_F_MARK_MANGLED_0))
		return TC_ACT_SHOT;
	c = bpf_map_lookup_elem(&rewritten, &zero);
	if (c)
		*c += 1;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
