// spatch: -D datum=nf_skb_duplicated -D lock=bh_lock -D valname=val -D wrapper=nf_skb_duplicated_bh_locked
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned int, nf_skb_duplicated);

void nf_dup_ipv4(struct sk_buff *skb)
{
	if (this_cpu_read(nf_skb_duplicated))
		return;
	__this_cpu_write(nf_skb_duplicated, true);
	this_cpu_inc(nf_skb_duplicated);
	__this_cpu_add(nf_skb_duplicated, 2);
	__this_cpu_write(nf_skb_duplicated, false);
}
