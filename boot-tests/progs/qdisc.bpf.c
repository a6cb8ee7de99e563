// SPDX-License-Identifier: GPL-2.0
/*
 * tc programs for places that run a classifier without a bpf_net_context:
 * the root qdisc's enqueue() (loaded as a classifier of htb, prio, drr,
 * fq_codel) and red's qevent block. Loaded by tc (iproute2's libbpf
 * loader, which picks a program by section name and sets its type).
 * Each returns what the helper answers, as a program would.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("qdisc/redirect")
int qdisc_redirect(struct __sk_buff *skb)
{
	return bpf_redirect(skb->ifindex, 0);
}

SEC("qdisc/redirect_peer")
int qdisc_redirect_peer(struct __sk_buff *skb)
{
	return bpf_redirect_peer(skb->ifindex, 0);
}

SEC("qdisc/redirect_neigh")
int qdisc_redirect_neigh(struct __sk_buff *skb)
{
	return bpf_redirect_neigh(skb->ifindex, NULL, 0, 0);
}

/* A direct-action verdict of TC_ACT_REDIRECT without any helper call. */
SEC("qevent/redirect")
int qevent_redirect(struct __sk_buff *skb)
{
	return TC_ACT_REDIRECT;
}

char _license[] SEC("license") = "GPL";
