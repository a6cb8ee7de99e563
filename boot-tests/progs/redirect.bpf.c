// SPDX-License-Identifier: GPL-2.0
/*
 * XDP and tc programs for the bpf_redirect_info / flush-list test. Every
 * program counts what it handles in a per-CPU slot of `counters`, which
 * the loader (xdp-redirect.c) reads back.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

enum { C_CPUMAP, C_DEVMAP, C_XSK, C_IFINDEX, C_COUNT, C_CPUMAP_PROG,
       C_TC, C_LIVE, C_BENCH, C_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, C_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} cpu_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} dev_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} xsk_map SEC(".maps");

/* Set by the loader before load: redirect target and CPU count. */
volatile const __u32 target_ifindex;
volatile const __u32 nr_cpus = 1;

static __always_inline void count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &what);

	if (c)
		*c += 1;
}

/* Spread frames over all CPUs' cpumap entries: remote and local queues. */
SEC("xdp")
int xdp_cpumap(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_prandom_u32() % nr_cpus;

	count(C_CPUMAP);
	return bpf_redirect_map(&cpu_map, cpu, XDP_DROP);
}

SEC("xdp")
int xdp_devmap(struct xdp_md *ctx)
{
	count(C_DEVMAP);
	return bpf_redirect_map(&dev_map, 0, XDP_DROP);
}

SEC("xdp")
int xdp_xsk(struct xdp_md *ctx)
{
	count(C_XSK);
	return bpf_redirect_map(&xsk_map, ctx->rx_queue_index, XDP_DROP);
}

SEC("xdp")
int xdp_ifindex(struct xdp_md *ctx)
{
	count(C_IFINDEX);
	return bpf_redirect(target_ifindex, 0);
}

/*
 * Receiver side of a redirect: drop everything, count the test frames.
 * Every test sends IPv4 UDP; the ARP and IGMP frames the stack sends on
 * its own now and then are not counted, so counts can be exact.
 */
SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(ip + 1) <= end && eth->h_proto == bpf_htons(ETH_P_IP) &&
	    ip->protocol == IPPROTO_UDP)
		count(C_COUNT);
	return XDP_DROP;
}

/* Runs on the cpumap kthread for each frame, then hands it to the stack. */
SEC("xdp/cpumap")
int xdp_cpumap_prog(struct xdp_md *ctx)
{
	count(C_CPUMAP_PROG);
	return XDP_PASS;
}

/* BPF_PROG_TEST_RUN with live frames: every frame goes out of the devmap. */
SEC("xdp")
int xdp_live(struct xdp_md *ctx)
{
	count(C_LIVE);
	return bpf_redirect_map(&dev_map, 0, XDP_DROP);
}

/*
 * Benchmark (xdp-bench redirect-cpu shape): every live frame goes to the
 * cpumap entry of the last CPU, whose program counts and drops it.
 */
SEC("xdp")
int xdp_bench(struct xdp_md *ctx)
{
	return bpf_redirect_map(&cpu_map, nr_cpus - 1, XDP_DROP);
}

SEC("xdp/cpumap")
int xdp_cpumap_drop(struct xdp_md *ctx)
{
	count(C_BENCH);
	return XDP_DROP;
}

SEC("tc")
int tc_redirect(struct __sk_buff *skb)
{
	count(C_TC);
	return bpf_redirect(target_ifindex, 0);
}

SEC("tc")
int tc_redirect_peer(struct __sk_buff *skb)
{
	count(C_TC);
	return bpf_redirect_peer(target_ifindex, 0);
}

SEC("tc")
int tc_redirect_neigh(struct __sk_buff *skb)
{
	count(C_TC);
	return bpf_redirect_neigh(target_ifindex, NULL, 0, 0);
}

char LICENSE[] SEC("license") = "GPL";
