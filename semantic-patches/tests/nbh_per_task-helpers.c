// spatch: -D datum=softnet_data -D outer=xmit -D member=recursion -D taskfield=net_xmit_recursion
/* The accessor helpers of a nested per-CPU counter (include/linux/netdevice.h). */
struct softnet_data {
	struct Qdisc		*output_queue;
	/* written and read only by owning cpu: */
	struct {
		u16 recursion;
		u8  more;
#ifdef CONFIG_NET_EGRESS
		u8  skip_txqueue;
#endif
	} xmit;
	unsigned int		dropped;
};

DECLARE_PER_CPU_ALIGNED(struct softnet_data, softnet_data);

static inline int dev_recursion_level(void)
{
	return this_cpu_read(softnet_data.xmit.recursion);
}

#define XMIT_RECURSION_LIMIT	8
static inline bool dev_xmit_recursion(void)
{
	return unlikely(__this_cpu_read(softnet_data.xmit.recursion) >
			XMIT_RECURSION_LIMIT);
}

static inline void dev_xmit_recursion_inc(void)
{
	__this_cpu_inc(softnet_data.xmit.recursion);
}

static inline void dev_xmit_recursion_dec(void)
{
	__this_cpu_dec(softnet_data.xmit.recursion);
}

static inline void dev_xmit_recursion_add(int n)
{
	this_cpu_add(softnet_data.xmit.recursion, n);
}

static inline void dev_xmit_recursion_reset(void)
{
	raw_cpu_write(softnet_data.xmit.recursion, 0);
}

/* Another member of the same struct: not this datum. */
static inline bool dev_xmit_more(void)
{
	return __this_cpu_read(softnet_data.xmit.more);
}
