// spatch: -D datum=softnet_data -D lock=bh_lock
/* A header (include/linux/netdevice.h): the struct is found from the
 * DECLARE_PER_CPU() of the datum, without -D structname. */
#include <linux/percpu.h>

struct softnet_data {
	struct list_head	poll_list;
	unsigned int		processed;
};

DECLARE_PER_CPU_ALIGNED(struct softnet_data, softnet_data);
