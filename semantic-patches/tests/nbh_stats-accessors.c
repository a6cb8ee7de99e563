// spatch: -D datum=pf
/* The accessor forms on a __percpu field: E->pf->member. */
#include <linux/percpu.h>

struct tc_basic_pcnt {
	__u64 rcnt;
	__u64 rhit;
};

struct basic_filter {
	struct tc_basic_pcnt __percpu *pf;
	struct tc_basic_pcnt __percpu *other;
};

#define BASIC_HIT(f) __this_cpu_inc((f)->pf->rhit)

static int basic_classify(struct sk_buff *skb, struct basic_filter *f)
{
	__this_cpu_inc(f->pf->rcnt);
	__this_cpu_dec(f->pf->rcnt);
	__this_cpu_add(f->pf->rhit, skb->len);
	__this_cpu_sub(f->pf->rhit, 2);
	BASIC_HIT(f);
	/* already IRQ-safe, and another datum */
	this_cpu_inc(f->pf->rcnt);
	__this_cpu_inc(f->other->rcnt);
	return 0;
}

/* Another CPU's copy: not an update site. */
static u64 basic_dump(struct basic_filter *f)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(f->pf, cpu)->rcnt;
	return sum;
}
