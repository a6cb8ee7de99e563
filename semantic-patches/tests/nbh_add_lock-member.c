// spatch: -D datum=softnet_data -D member=process_queue -D lock=process_queue_bh_lock
#include <linux/netdevice.h>
#include <linux/local_lock.h>

struct softnet_data {
	struct list_head	poll_list;
	struct sk_buff_head	process_queue;

	/* stats */
	unsigned int		processed;
};

DEFINE_PER_CPU_ALIGNED(struct softnet_data, softnet_data);
EXPORT_PER_CPU_SYMBOL(softnet_data);
