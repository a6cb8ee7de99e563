// spatch: -D datum=napi_alloc_cache -D lock=bh_lock
/* Value computed under the lock and returned. */
void *__napi_alloc_frag_align(unsigned int fragsz, unsigned int align_mask)
{
	struct napi_alloc_cache *nc = this_cpu_ptr(&napi_alloc_cache);

	fragsz = SKB_DATA_ALIGN(fragsz);

	return page_frag_alloc_align(&nc->page, fragsz, GFP_ATOMIC, align_mask);
}

/* Lexical BH section; the other branch uses another per-CPU cache
 * under the same pointer name and stays alone.
 */
void *__netdev_alloc_frag_align(unsigned int fragsz, unsigned int align_mask)
{
	void *data;

	if (in_hardirq() || irqs_disabled()) {
		struct page_frag_cache *nc = this_cpu_ptr(&netdev_alloc_cache);

		data = page_frag_alloc_align(nc, fragsz, GFP_ATOMIC, align_mask);
	} else {
		struct napi_alloc_cache *nc;

		local_bh_disable();
		nc = this_cpu_ptr(&napi_alloc_cache);
		data = page_frag_alloc_align(&nc->page, fragsz, GFP_ATOMIC, align_mask);
		local_bh_enable();
	}
	return data;
}

/* An early return inside the section; sizeof() is no access. */
static struct sk_buff *napi_skb_cache_get(unsigned int n)
{
	struct napi_alloc_cache *nc = this_cpu_ptr(&napi_alloc_cache);
	struct sk_buff *skb;

	if (n > sizeof(nc->skb_cache))
		return NULL;
	if (unlikely(!nc->skb_count)) {
		nc->skb_count = kmem_cache_alloc_bulk(skbuff_head_cache,
						      GFP_ATOMIC, 16,
						      nc->skb_cache);
		if (unlikely(!nc->skb_count))
			return NULL;
	}

	skb = nc->skb_cache[--nc->skb_count];
	kasan_unpoison_object_data(skbuff_head_cache, skb);

	return skb;
}

/* goto out of the section, break out of a loop holding it, a loop
 * inside the section whose break stays inside.
 */
static int napi_cache_fill(int n)
{
	struct napi_alloc_cache *nc;
	int i, err = 0;

	while (n--) {
		nc = this_cpu_ptr(&napi_alloc_cache);
		if (nc->skb_count > 8)
			break;
		for (i = 0; i < 4; i++) {
			if (!nc->skb_cache[i])
				break;
		}
		if (nc->skb_count == 0)
			goto fail;
		nc->skb_count--;
	}
	return 0;
fail:
	err = -ENOMEM;
	return err;
}

/* No access at all: left alone. */
static int unrelated(int x)
{
	return x + 1;
}
