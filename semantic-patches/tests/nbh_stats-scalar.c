// spatch: -D datum=pcpu_success
/* A __percpu pointer to a plain counter. */
#include <linux/percpu.h>

struct tc_u_knode {
	u32 __percpu *pcpu_success;
};

static int u32_classify(struct sk_buff *skb, struct tc_u_knode *n)
{
	if ((skb->mark & n->mask) == n->val)
		__this_cpu_inc(*n->pcpu_success);
	return 0;
}
