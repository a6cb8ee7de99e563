// spatch: -D datum=napi_alloc_cache -D lock=bh_lock
#include <linux/kernel.h>
#include <linux/percpu.h>

struct napi_alloc_cache {
	struct page_frag_cache page;
	unsigned int skb_count;
	void *skb_cache[64];
};

/* Another per-CPU datum of the same file stays alone. */
static DEFINE_PER_CPU(struct page_frag_cache, netdev_alloc_cache);
static DEFINE_PER_CPU(struct napi_alloc_cache, napi_alloc_cache);
