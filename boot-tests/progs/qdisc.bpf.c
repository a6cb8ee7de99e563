// SPDX-License-Identifier: GPL-2.0
/*
 * tc programs for places that run a classifier without a bpf_net_context:
 * the root qdisc's enqueue() (loaded as a classifier of htb) and red's
 * qevent block. Loaded by tc (iproute2's libbpf loader, which picks a
 * program by section name and sets its type itself); the counters are
 * pinned so that every load shares them and bpftool can read them.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

enum { Q_SHOT, Q_REDIRECT, Q_OTHER, Q_QEVENT, Q_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, Q_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} qdisc_counts SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&qdisc_counts, &what);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* Count what the helper answered and return it, as a program would. */
static __always_inline int verdict(long ret)
{
	count(ret == TC_ACT_SHOT ? Q_SHOT : ret == TC_ACT_REDIRECT ? Q_REDIRECT : Q_OTHER);
	return ret;
}

SEC("qdisc/redirect")
int qdisc_redirect(struct __sk_buff *skb)
{
	return verdict(bpf_redirect(skb->ifindex, 0));
}

SEC("qdisc/redirect_peer")
int qdisc_redirect_peer(struct __sk_buff *skb)
{
	return verdict(bpf_redirect_peer(skb->ifindex, 0));
}

SEC("qdisc/redirect_neigh")
int qdisc_redirect_neigh(struct __sk_buff *skb)
{
	return verdict(bpf_redirect_neigh(skb->ifindex, NULL, 0, 0));
}

/* A direct-action verdict of TC_ACT_REDIRECT without any helper call. */
SEC("qevent/redirect")
int qevent_redirect(struct __sk_buff *skb)
{
	count(Q_QEVENT);
	return TC_ACT_REDIRECT;
}

char _license[] SEC("license") = "GPL";
