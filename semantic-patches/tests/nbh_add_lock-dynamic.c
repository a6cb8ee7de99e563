// spatch: -D datum=xdp_bulkq -D lock=bh_lock -D structname=xdp_dev_bulk_queue
#include <linux/netdevice.h>

static int dev_map_notification(struct net_device *netdev)
{
	netdev->xdp_bulkq = alloc_percpu(struct xdp_dev_bulk_queue);
	if (!netdev->xdp_bulkq)
		return NOTIFY_BAD;
	return NOTIFY_OK;
}
