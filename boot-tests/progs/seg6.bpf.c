// SPDX-License-Identifier: GPL-2.0
/*
 * seg6local End.BPF program: tags the SRH (bpf_lwt_seg6_store_bytes) and
 * grows it by an 8-byte PadN TLV (bpf_lwt_seg6_adjust_srh, then
 * store_bytes into the new room). The receiver checks both changes. Also
 * an lwt xmit program that only counts, for run_lwt_bpf().
 */
#include <linux/bpf.h>
#include <linux/ipv6.h>
#include <linux/seg6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define SRH_TAG 0x2a2a
#define PADN 4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

static __always_inline void count(__u32 i)
{
	__u64 *c = bpf_map_lookup_elem(&seen, &i);

	if (c)
		*c += 1;
}

SEC("lwt_seg6local")
int end_bpf_tag(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ipv6hdr *ip6 = data;
	struct ipv6_sr_hdr *srh = (void *)(ip6 + 1);
	__u8 tlv[8] = { PADN, 6 };
	__u16 tag = bpf_htons(SRH_TAG);
	__u32 tlv_off;

	if ((void *)(srh + 1) > end || ip6->nexthdr != IPPROTO_ROUTING)
		return BPF_DROP;
	/* TLVs go after the segment list: 8 + 16 * (first_segment + 1). */
	tlv_off = sizeof(*ip6) + 8 + 16 * (srh->first_segment + 1);
	if (bpf_lwt_seg6_store_bytes(skb, sizeof(*ip6) +
				     __builtin_offsetof(struct ipv6_sr_hdr, tag), &tag, 2))
		return BPF_DROP;
	if (bpf_lwt_seg6_adjust_srh(skb, tlv_off, sizeof(tlv)))
		return BPF_DROP;
	if (bpf_lwt_seg6_store_bytes(skb, tlv_off, tlv, sizeof(tlv)))
		return BPF_DROP;
	count(0);
	return BPF_OK;
}

SEC("lwt_xmit")
int lwt_count(struct __sk_buff *skb)
{
	count(1);
	return BPF_OK;
}

char LICENSE[] SEC("license") = "GPL";
