// spatch: -D datum=stats
/* What stays as it is, and why; counter_ok() is converted. */
#include <linux/u64_stats_sync.h>

struct pcpu_sw_stats {
	u64 packets;
	u64 bytes;
	unsigned int count;
	struct sk_buff *q[16];
	struct u64_stats_sync syncp;
};

struct dev {
	struct pcpu_sw_stats __percpu *stats;
};

static inline void stats_count_inc(struct pcpu_sw_stats *s)
{
#ifdef CONFIG_STATS_COUNT
	s->count++;
#endif
}

/* A u64_stats_sync pair: readers on 32-bit fetch it with the seqcount. */
static void stats_u64(struct dev *d, struct sk_buff *skb)
{
	struct pcpu_sw_stats *s = this_cpu_ptr(d->stats);

	u64_stats_update_begin(&s->syncp);
	s->packets++;
	s->bytes += skb->len;
	u64_stats_update_end(&s->syncp);
}

/* The count indexes the queue: both under one BH-disabled section. */
static void stats_enqueue(struct dev *d, struct sk_buff *skb)
{
	struct pcpu_sw_stats *s = this_cpu_ptr(d->stats);

	if (s->count == 16)
		return;
	s->q[s->count] = skb;
	s->count++;
}

/* The value of the update is used. */
static unsigned int stats_next(struct dev *d)
{
	return this_cpu_ptr(d->stats)->count++;
}

/* The pointer points elsewhere on one path. */
static void stats_mixed(struct dev *d, struct pcpu_sw_stats *fallback)
{
	struct pcpu_sw_stats *s = this_cpu_ptr(d->stats);

	if (!d)
		s = fallback;
	s->packets++;
}

/* Handed to a function that is no counter helper, or to one that
 * updates the counter under #ifdef. */
static void stats_handed(struct dev *d)
{
	struct pcpu_sw_stats *s = this_cpu_ptr(d->stats);

	stats_fill(s, 1);
	stats_count_inc(this_cpu_ptr(d->stats));
}

/* Returned. */
static struct pcpu_sw_stats *stats_get(struct dev *d)
{
	return this_cpu_ptr(d->stats);
}

/* Read, or updated with its value returned. */
static unsigned int stats_read(struct dev *d)
{
	return __this_cpu_read(d->stats->count) + __this_cpu_inc_return(d->stats->count);
}

static void counter_ok(struct dev *d)
{
	__this_cpu_inc(d->stats->count);
}
