// spatch: -D datum=bpf_sp -D lock=bh_lock
/* Already converted: nothing changes. */
BPF_CALL_5(bpf_csum_diff, __be32 *, from, u32, from_size,
	   __be32 *, to, u32, to_size, __wsum, seed)
{
	struct bpf_scratchpad *sp = this_cpu_ptr(&bpf_sp);
	u32 diff_size = from_size + to_size;
	int i, j = 0;
	__wsum ret;

	if (unlikely(diff_size > sizeof(sp->diff)))
		return -EINVAL;

	local_lock_nested_bh(&bpf_sp.bh_lock);
	for (i = 0; i < from_size / sizeof(__be32); i++, j++)
		sp->diff[j] = ~from[i];

	ret = csum_partial(sp->diff, diff_size, seed);
	local_unlock_nested_bh(&bpf_sp.bh_lock);
	return ret;
}
