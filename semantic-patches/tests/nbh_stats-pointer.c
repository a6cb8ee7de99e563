// spatch: -D datum=cpu_qstats
/* Through this_cpu_ptr(): directly, in a variable, through a helper. */
#include <net/act_api.h>

struct gnet_stats_queue {
	__u32 qlen;
	__u32 drops;
	__u32 overlimits;
};

static inline void qstats_drop_inc(struct gnet_stats_queue *qstats)
{
	qstats->drops++;
}

static inline void qstats_overlimit_inc(struct gnet_stats_queue *qstats)
{
	qstats->overlimits++;
}

static inline void tcf_action_inc_drop_qstats(struct tc_action *a)
{
	if (likely(a->cpu_qstats)) {
		qstats_drop_inc(this_cpu_ptr(a->cpu_qstats));
		return;
	}
	spin_lock(&a->tcfa_lock);
	qstats_drop_inc(&a->tcfa_qstats);
	spin_unlock(&a->tcfa_lock);
}

void tcf_action_update_stats(struct tc_action *a, u64 drops)
{
	this_cpu_ptr(a->cpu_qstats)->drops += drops;
	++this_cpu_ptr(a->cpu_qstats)->qlen;
}

static int tcf_police_act(struct tcf_police *police, int n)
{
	struct gnet_stats_queue *q = this_cpu_ptr(police->common.cpu_qstats);

	q->overlimits++;
	q->drops -= n;
	qstats_drop_inc(q);
	return 0;
}

static int tcf_ife_act(struct tcf_ife_info *ife, int ret)
{
	struct gnet_stats_queue *q;

	if (ret)
		return ret;
	q = this_cpu_ptr(ife->common.cpu_qstats);
	q->drops--;
	qstats_overlimit_inc(q);
	return 0;
}
