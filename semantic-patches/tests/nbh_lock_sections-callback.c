// spatch: -D datum=brnf_frag_data_storage -D lock=bh_lock
/* Sections that would span a call re-entering the datum: refused. */
struct brnf_frag_data {
	char mac[22];
	u8 size;
};

static DEFINE_PER_CPU(struct brnf_frag_data, brnf_frag_data_storage);

/* The callback reads what the caller stored: the caller's section would
 * have to span the call running it, which takes the lock again. */
static int frag_push(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	struct brnf_frag_data *data;

	data = this_cpu_ptr(&brnf_frag_data_storage);
	skb_copy_to_linear_data_offset(skb, -data->size, data->mac, data->size);
	return dev_queue_xmit(skb);
}

static int frag_xmit(struct net *net, struct sock *sk, struct sk_buff *skb)
{
	struct brnf_frag_data *data;

	data = this_cpu_ptr(&brnf_frag_data_storage);
	data->size = ETH_HLEN;
	skb_copy_from_linear_data_offset(skb, -data->size, data->mac, data->size);

	return ip_do_fragment(net, sk, skb, frag_push);
}

/* An output callback (okfn) called inside the section. */
static int frag_okfn(struct net *net, struct sock *sk, struct sk_buff *skb,
		     int (*okfn)(struct net *, struct sock *, struct sk_buff *))
{
	struct brnf_frag_data *data;

	data = this_cpu_ptr(&brnf_frag_data_storage);
	data->size = ETH_HLEN;
	okfn(net, sk, skb);
	data->size = 0;
	return 0;
}

/* A call through an ops table inside the section. */
static int frag_ops(struct net *net, struct sk_buff *skb, const struct nf_ipv6_ops *v6ops)
{
	struct brnf_frag_data *data;

	data = this_cpu_ptr(&brnf_frag_data_storage);
	data->size = ETH_HLEN;
	v6ops->fragment(net, NULL, skb, NULL);
	data->size = 0;
	return 0;
}

/* A function pointer call after the section is fine. */
static int frag_after(struct net *net, struct sk_buff *skb, const struct nf_ipv6_ops *v6ops)
{
	struct brnf_frag_data *data;

	data = this_cpu_ptr(&brnf_frag_data_storage);
	data->size = ETH_HLEN;
	return v6ops->fragment(net, NULL, skb, NULL);
}

/* Init code registering a callback for every CPU: no section, no hand-off. */
static void frag_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct brnf_frag_data *data = per_cpu_ptr(&brnf_frag_data_storage, cpu);

		data->size = 0;
		register_frag_cb(cpu, frag_push);
	}
}
