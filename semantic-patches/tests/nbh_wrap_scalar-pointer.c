// spatch: -D datum=ipv4_tcp_sk -D lock=bh_lock -D valname=sock -D wrapper=sock_bh_locked
#include <net/sock.h>

static DEFINE_PER_CPU(struct sock *, ipv4_tcp_sk);
static DEFINE_PER_CPU(struct sock *, other_sk);

static void tcp_v4_send_reset(struct net *net)
{
	struct sock *ctl_sk, *s2, **pp;
	int cpu;

	local_bh_disable();
	ctl_sk = this_cpu_read(ipv4_tcp_sk);
	s2 = __this_cpu_read(ipv4_tcp_sk);
	s2 = raw_cpu_read(ipv4_tcp_sk);
	this_cpu_write(ipv4_tcp_sk, ctl_sk);
	pp = this_cpu_ptr(&ipv4_tcp_sk);
	pp = raw_cpu_ptr(&ipv4_tcp_sk);
	cpu = smp_processor_id();
	pp = per_cpu_ptr(&ipv4_tcp_sk, cpu);
	per_cpu(ipv4_tcp_sk, cpu) = ctl_sk;
	s2 = this_cpu_read(other_sk);
	local_bh_enable();
}
