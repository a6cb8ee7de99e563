// spatch: -D datum=ip_rt_acct
/* A file-scope __percpu pointer to an array, indexed through a variable. */
#include <net/route.h>

struct ip_rt_acct {
	__u32 o_bytes;
	__u32 o_packets;
	__u32 i_bytes;
	__u32 i_packets;
};

extern struct ip_rt_acct __percpu *ip_rt_acct;

static int ip_rcv_finish_core(struct net *net, struct sk_buff *skb)
{
	if (unlikely(skb_dst(skb)->tclassid)) {
		struct ip_rt_acct *st = this_cpu_ptr(ip_rt_acct);
		u32 idx = skb_dst(skb)->tclassid;
		st[idx&0xFF].o_packets++;
		st[idx&0xFF].o_bytes += skb->len;
		st[(idx>>16)&0xFF].i_packets++;
		st[(idx>>16)&0xFF].i_bytes += skb->len;
	}
	return 0;
}
