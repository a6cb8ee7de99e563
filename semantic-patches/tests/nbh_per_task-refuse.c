// spatch: -D datum=softnet_data -D outer=xmit -D member=recursion -D taskfield=net_xmit_recursion
/* Accesses the script cannot move to the task: reported, left alone. */
struct softnet_data {
	struct {
		u16 recursion;
		u8  more;
	} xmit;
};

DECLARE_PER_CPU_ALIGNED(struct softnet_data, softnet_data);

static inline void dev_xmit_recursion_inc(void)
{
	__this_cpu_inc(softnet_data.xmit.recursion);
}

/* An accessor form without a per-task equivalent. */
static inline u16 dev_xmit_recursion_swap(u16 v)
{
	return this_cpu_xchg(softnet_data.xmit.recursion, v);
}

/* Not a helper: the caller touches the counter itself. */
int dev_direct_xmit_count(void)
{
	int level = __this_cpu_read(softnet_data.xmit.recursion);

	return level + 1;
}
