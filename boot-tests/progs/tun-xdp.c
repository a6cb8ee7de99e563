// SPDX-License-Identifier: GPL-2.0
/*
 * Write Ethernet frames into a tap device that has a native XDP program,
 * from one thread per CPU with non-blocking writes: that is the path
 * where tun_build_skb() runs the program (and sets up a bpf_net_context).
 *
 *   tun-xdp FRAMES_PER_CPU
 *
 * Then a second tap with IFF_NAPI_FRAGS gets two-part writes (headers,
 * payload) from every CPU: tun builds those skbs from netdev_alloc_frag()
 * fragments, the page-frag cache of napi_alloc_cache.
 *
 * Exits 0 when the XDP program counted every frame written and every
 * fragmented write was accepted, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "redirect.skel.h"

#define C_COUNT 4	/* slot of xdp_count in redirect.bpf.c */

static int tap, frags_tap;
static long per_cpu, written[64], frag_written[64];

static void fail(const char *what)
{
	fprintf(stderr, "tun-xdp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *writer(void *arg)
{
	long cpu = (long)arg;
	/* Ethernet + IPv4 + UDP: what xdp_count counts. */
	unsigned char frame[98] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0x02, 0, 0, 0, 0, 7, 0x08, 0x00,
				    0x45, 0, 0, 84, 0, 0, 0x40, 0, 64, 17, 0, 0,
				    10, 99, 0, 1, 10, 99, 0, 2, 0x30, 0x39, 0x30, 0x39, 0, 64 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (long i = 0; i < per_cpu; i++) {
		frame[19] = i;	/* IP ID */
		if (write(tap, frame, sizeof(frame)) == sizeof(frame))
			written[cpu]++;
		else if (errno != EAGAIN)
			fail("write to tap");
	}
	return NULL;
}

/* Ethernet + IPv4 + UDP headers in one segment, the payload in another. */
static void *frag_writer(void *arg)
{
	long cpu = (long)arg;
	unsigned char hdr[42] = { 0x02, 0, 0, 0, 0, 9, 0x02, 0, 0, 0, 0, 7, 0x08, 0x00,
				  0x45, 0, 0x02, 0x1c, 0, 0, 0x40, 0, 64, 17, 0, 0,
				  10, 99, 0, 1, 10, 99, 0, 2, 0x30, 0x39, 0x30, 0x39, 0x02, 0x08 };
	unsigned char payload[512];
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { payload, sizeof(payload) } };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	memset(payload, cpu, sizeof(payload));
	for (long i = 0; i < per_cpu; i++)
		if (writev(frags_tap, iov, 2) == (ssize_t)(sizeof(hdr) + sizeof(payload)))
			frag_written[cpu]++;
	return NULL;
}

int main(int argc, char **argv)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), total = 0;
	pthread_t th[64];
	struct redirect_bpf *skel;
	__u64 vals[64] = { 0 }, counted = 0;
	__u32 key = C_COUNT;
	unsigned int ifindex;
	int sk;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || (per_cpu = atol(argv[1])) <= 0 || ncpu > 64) {
		fprintf(stderr, "usage: tun-xdp FRAMES_PER_CPU\n");
		return 1;
	}
	tap = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (tap < 0)
		fail("open /dev/net/tun");
	strcpy(ifr.ifr_name, "nbhtap%d");
	if (ioctl(tap, TUNSETIFF, &ifr))
		fail("TUNSETIFF");
	ifindex = if_nametoindex(ifr.ifr_name);
	sk = socket(AF_INET, SOCK_DGRAM, 0);
	ifr.ifr_flags = IFF_UP;
	if (ioctl(sk, SIOCSIFFLAGS, &ifr))
		fail("set tap up");
	skel = redirect_bpf__open();
	if (!skel)
		fail("open BPF object");
	/* A cpumap may not be larger than the kernel's NR_CPUS (1 when !SMP). */
	if (bpf_map__set_max_entries(skel->maps.cpu_map, libbpf_num_possible_cpus()) ||
	    redirect_bpf__load(skel))
		fail("load BPF object");
	if (bpf_xdp_attach(ifindex, bpf_program__fd(skel->progs.xdp_count),
			   XDP_FLAGS_DRV_MODE, NULL))
		fail("attach XDP to tap");
	for (long c = 0; c < ncpu; c++)
		pthread_create(&th[c], NULL, writer, (void *)c);
	for (long c = 0; c < ncpu; c++) {
		pthread_join(th[c], NULL);
		total += written[c];
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &key, vals))
		fail("read counter");
	for (long c = 0; c < libbpf_num_possible_cpus() && c < 64; c++)
		counted += vals[c];
	printf("%s: %ld frames written from %ld CPUs, %llu seen by XDP\n",
	       ifr.ifr_name, total, ncpu, (unsigned long long)counted);
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);

	struct ifreq fr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NAPI | IFF_NAPI_FRAGS };
	long frag_total = 0;

	frags_tap = open("/dev/net/tun", O_RDWR);
	if (frags_tap < 0)
		fail("open /dev/net/tun");
	strcpy(fr.ifr_name, "nbhfrag%d");
	if (ioctl(frags_tap, TUNSETIFF, &fr))
		fail("TUNSETIFF with IFF_NAPI_FRAGS");
	fr.ifr_flags = IFF_UP;
	if (ioctl(sk, SIOCSIFFLAGS, &fr))
		fail("set frags tap up");
	for (long c = 0; c < ncpu; c++)
		pthread_create(&th[c], NULL, frag_writer, (void *)c);
	for (long c = 0; c < ncpu; c++) {
		pthread_join(th[c], NULL);
		frag_total += frag_written[c];
	}
	printf("%s: %ld of %ld two-part writes accepted\n", fr.ifr_name, frag_total,
	       per_cpu * ncpu);
	return total > 0 && (long)counted == total && frag_total == per_cpu * ncpu ? 0 : 1;
}
