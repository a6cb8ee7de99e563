// spatch: -D datum=seg6_bpf_srh_states -D lock=bh_lock -D helpers
/* BPF helpers run inside the owner's section: assert, do not lock. */
BPF_CALL_4(bpf_lwt_seg6_store_bytes, struct sk_buff *, skb, u32, offset,
	   const void *, from, u32, len)
{
	struct seg6_bpf_srh_state *srh_state =
		this_cpu_ptr(&seg6_bpf_srh_states);
	struct ipv6_sr_hdr *srh = srh_state->srh;
	int srhoff = 0;

	if (srh == NULL)
		return -EINVAL;
	srh_state->valid = false;
	return 0;
}

static int unrelated(struct sk_buff *skb)
{
	int x = 0;

	x++;
	return x;
}
