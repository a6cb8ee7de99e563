// spatch: -D datum=softnet_data -D member=processed
/* One member of a static per-CPU struct; the others are other data. */
#include <linux/netdevice.h>

struct softnet_data {
	unsigned int processed;
	unsigned int time_squeeze;
	unsigned int dropped;
};

DECLARE_PER_CPU_ALIGNED(struct softnet_data, softnet_data);

static inline void sd_processed_inc(struct softnet_data *sd)
{
	sd->processed++;
}

static int netif_receive(struct sk_buff *skb)
{
	__this_cpu_inc(softnet_data.processed);
	__this_cpu_inc(softnet_data.dropped);
	return 0;
}

static void net_rx_action(struct softirq_action *h)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);
	int budget = 300;

	while (budget > 0) {
		budget -= poll(sd);
		if (budget <= 0) {
			sd->time_squeeze++;
			sd->processed += 2;
			break;
		}
	}
	--sd->processed;
	this_cpu_ptr(&softnet_data)->processed -= 3;
	sd_processed_inc(sd);
	sd_processed_inc(this_cpu_ptr(&softnet_data));
}
