// spatch: -D datum=seg6_bpf_srh_states -D lock=bh_lock
/* preempt_disable() guarding softirq-only per-CPU data becomes the lock;
 * a function of the file called inside that section only asserts it.
 */
bool seg6_bpf_has_valid_srh(struct sk_buff *skb)
{
	struct seg6_bpf_srh_state *srh_state =
		this_cpu_ptr(&seg6_bpf_srh_states);
	struct ipv6_sr_hdr *srh = srh_state->srh;

	if (unlikely(srh == NULL))
		return false;
	srh_state->valid = true;
	return true;
}

static int input_action_end_bpf(struct sk_buff *skb,
				struct seg6_local_lwt *slwt)
{
	struct seg6_bpf_srh_state *srh_state =
		this_cpu_ptr(&seg6_bpf_srh_states);
	int ret;

	preempt_disable();
	srh_state->srh = NULL;
	srh_state->valid = true;

	ret = bpf_prog_run_save_cb(slwt->bpf.prog, skb);
	if (ret == BPF_DROP)
		goto drop;
	if (srh_state->srh && !seg6_bpf_has_valid_srh(skb))
		goto drop;

	preempt_enable();
	return dst_input(skb);

drop:
	preempt_enable();
	kfree_skb(skb);
	return -EINVAL;
}
