// SPDX-License-Identifier: GPL-2.0
/*
 * Write Ethernet frames into a tap device that has a native XDP program,
 * from one thread per CPU with non-blocking writes: that is the path
 * where tun_build_skb() runs the program (and sets up a bpf_net_context).
 *
 *   tun-xdp FRAMES_PER_CPU
 *
 * Exits 0 when the XDP program counted every frame written, 1 otherwise.
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
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "redirect.skel.h"

#define C_COUNT 4	/* slot of xdp_count in redirect.bpf.c */

static int tap;
static long per_cpu, written[64];

static void fail(const char *what)
{
	fprintf(stderr, "tun-xdp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *writer(void *arg)
{
	long cpu = (long)arg;
	unsigned char frame[98] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0x02, 0, 0, 0, 0, 7, 0x08, 0x00 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (long i = 0; i < per_cpu; i++) {
		frame[20] = i;
		if (write(tap, frame, sizeof(frame)) == sizeof(frame))
			written[cpu]++;
		else if (errno != EAGAIN)
			fail("write to tap");
	}
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
	skel = redirect_bpf__open_and_load();
	if (!skel)
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
	return total > 0 && (long)counted == total ? 0 : 1;
}
