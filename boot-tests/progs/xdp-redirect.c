// SPDX-License-Identifier: GPL-2.0
/*
 * Attach one of the redirect programs of redirect.bpf.c, let traffic run,
 * then print what the programs counted:
 *
 *   xdp-redirect MODE IN TARGET SECONDS
 *
 * IN may name several devices, IN1,IN2,...: the XDP modes attach the one
 * program, with its maps, to each (two devices' receive paths redirecting
 * into the same cpumap entries, whose bulk queues are per entry and CPU).
 *
 *   cpumap[-generic]   XDP on IN redirects into a cpumap spread over all
 *                      CPUs; a cpumap program passes frames to the stack
 *   devmap[-generic]   XDP on IN redirects through a devmap to TARGET
 *   ifindex[-generic]  XDP on IN calls bpf_redirect(TARGET)
 *   xsk                XDP on IN redirects into an AF_XDP socket (copy
 *                      mode) bound to IN queue 0; frames are counted here
 *   tc-redirect|tc-peer|tc-neigh
 *                      tc ingress on IN: bpf_redirect, bpf_redirect_peer,
 *                      bpf_redirect_neigh to TARGET
 *   count              XDP on IN counts and drops (receiver of a redirect)
 *   live               no attach: BPF_PROG_TEST_RUN with live frames from
 *                      one thread per CPU, SECONDS * 1000 frames each,
 *                      redirected through a devmap to TARGET; then 100
 *                      runs of xdp_count without live frames
 *   bench              live frames from CPU 0 for SECONDS, redirected to
 *                      the cpumap entry of the last CPU whose program
 *                      drops them; prints "rate N" (frames/s dropped)
 *
 * Prints "ready" once attached, then after SECONDS (or SIGTERM) one line
 * "count NAME N" per non-zero counter, detaches and exits 0; exit 1 on a
 * setup error, naming it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define PROG "xdp-redirect"
#include "prog.h"
#include "redirect.skel.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#define XSK_FRAMES 2048
#define XSK_FRAME_SIZE 2048

static const char *const counter_names[] = {
	"cpumap", "devmap", "xsk", "ifindex", "count", "cpumap_prog", "tc", "live", "bench",
};

static volatile sig_atomic_t stop;
static struct redirect_bpf *skel;
#define MAX_IN 4
static unsigned int in_ifindex, target_ifindex;
static unsigned int in_ifindexes[MAX_IN];
static int nr_in;
static long xsk_received, live_frames;
static double bench_until;
static int nr_cpus;

static void fail(const char *what)
{
	fprintf(stderr, "xdp-redirect: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void attach_xdp(int prog_fd, __u32 flags)
{
	for (int i = 0; i < nr_in; i++)
		if (bpf_xdp_attach(in_ifindexes[i], prog_fd, flags, NULL))
			fail("attach XDP program");
}

/* IN: one device, or up to MAX_IN separated by commas; 0 on a bad name. */
static int parse_in(const char *arg)
{
	char buf[256], *save, *name;

	if (strlen(arg) >= sizeof(buf))
		return 0;
	strcpy(buf, arg);
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (nr_in == MAX_IN || !(in_ifindexes[nr_in] = if_nametoindex(name))) {
			fprintf(stderr, "xdp-redirect: no such interface %s (or more than %d)\n",
				name, MAX_IN);
			return 0;
		}
		nr_in++;
	}
	return nr_in;
}

static void setup_cpumap(void)
{
	struct bpf_cpumap_val val = {
		.qsize = 256,
		.bpf_prog.fd = bpf_program__fd(skel->progs.xdp_cpumap_prog),
	};

	for (__u32 cpu = 0; cpu < (__u32)nr_cpus; cpu++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cpu_map), &cpu, &val, 0))
			fail("cpumap entry with program");
}

static void setup_devmap(void)
{
	struct bpf_devmap_val val = { .ifindex = target_ifindex };
	__u32 key = 0;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.dev_map), &key, &val, 0))
		fail("devmap entry");
}

/* AF_XDP in copy mode, RX only: umem, fill ring, RX ring, bind, xskmap. */
static void *xsk_loop(void *arg)
{
	struct xdp_umem_reg mr = { .len = XSK_FRAMES * XSK_FRAME_SIZE,
				   .chunk_size = XSK_FRAME_SIZE };
	struct sockaddr_xdp sxdp = { .sxdp_family = AF_XDP, .sxdp_ifindex = in_ifindex,
				     .sxdp_queue_id = 0, .sxdp_flags = XDP_COPY };
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int ring = XSK_FRAMES, fd, key = 0;
	__u32 *fill_prod, *rx_prod, *rx_cons;
	struct xdp_desc *rx_desc;
	__u64 *fill_desc;
	void *area, *fill, *rx;

	(void)arg;
	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0)
		fail("AF_XDP socket");
	area = mmap(NULL, mr.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		fail("umem mmap");
	mr.addr = (__u64)(unsigned long)area;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring, sizeof(ring)) ||
	    setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring, sizeof(ring)) ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring)))
		fail("AF_XDP rings");
	if (getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen))
		fail("XDP_MMAP_OFFSETS");
	fill = mmap(NULL, off.fr.desc + ring * sizeof(__u64), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, XDP_UMEM_PGOFF_FILL_RING);
	rx = mmap(NULL, off.rx.desc + ring * sizeof(struct xdp_desc), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, XDP_PGOFF_RX_RING);
	if (fill == MAP_FAILED || rx == MAP_FAILED)
		fail("ring mmap");
	fill_prod = fill + off.fr.producer;
	fill_desc = fill + off.fr.desc;
	rx_prod = rx + off.rx.producer;
	rx_cons = rx + off.rx.consumer;
	rx_desc = rx + off.rx.desc;
	for (int i = 0; i < ring; i++)
		fill_desc[i] = (__u64)i * XSK_FRAME_SIZE;
	__atomic_store_n(fill_prod, ring, __ATOMIC_RELEASE);
	if (bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)))
		fail("bind AF_XDP socket");
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xsk_map), &key, &fd, 0))
		fail("xskmap entry");
	while (!stop) {
		struct pollfd p = { fd, POLLIN, 0 };
		__u32 prod, cons, fprod;

		if (poll(&p, 1, 100) <= 0)
			continue;
		prod = __atomic_load_n(rx_prod, __ATOMIC_ACQUIRE);
		cons = *rx_cons;
		fprod = *fill_prod;
		for (; cons != prod; cons++, fprod++) {
			/* Give the frame straight back to the kernel. */
			fill_desc[fprod & (ring - 1)] = rx_desc[cons & (ring - 1)].addr;
			xsk_received++;
		}
		__atomic_store_n(rx_cons, cons, __ATOMIC_RELEASE);
		__atomic_store_n(fill_prod, fprod, __ATOMIC_RELEASE);
	}
	close(fd);
	return NULL;
}

static void attach_tc(int prog_fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = in_ifindex, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = prog_fd);
	int err = bpf_tc_hook_create(&hook);

	if (err && err != -EEXIST) {
		errno = -err;
		fail("clsact qdisc");
	}
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		errno = -err;
		fail("tc attach");
	}
}

static void detach_tc(void)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = in_ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

	bpf_tc_hook_destroy(&hook);
}

static void setup_bench(void)
{
	struct bpf_cpumap_val val = {
		.qsize = 2048,
		.bpf_prog.fd = bpf_program__fd(skel->progs.xdp_cpumap_drop),
	};
	__u32 cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.cpu_map), &cpu, &val, 0))
		fail("cpumap entry for the benchmark");
}

/* One thread per CPU runs the program on live frames: real redirects. */
static void *live_thread(void *arg)
{
	static const unsigned char frame[64] = {
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,	/* Ethernet */
		0x45, 0, 0, 50, 0, 0, 0, 0, 64, 17, 0, 0, 10, 9, 0, 1, 10, 9, 0, 2,
		0x30, 0x39, 0x30, 0x39, 0, 30, 0, 0,			/* UDP */
	};
	long cpu = (long)arg, frames;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	frames = live_frames;
	while ((bench_until ? now() < bench_until : frames > 0) && !stop) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
			    .data_size_in = sizeof(frame), .repeat = 1000,
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);
		int prog = bench_until ? bpf_program__fd(skel->progs.xdp_bench) :
					 bpf_program__fd(skel->progs.xdp_live);

		if (bpf_prog_test_run_opts(prog, &opts))
			fail("BPF_PROG_TEST_RUN with live frames");
		frames -= 1000;
	}
	return NULL;
}

static void print_counters(void)
{
	__u64 *vals = calloc(nr_cpus, sizeof(__u64));

	for (__u32 k = 0; k < sizeof(counter_names) / sizeof(*counter_names); k++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &k, vals))
			fail("read counters");
		for (int c = 0; c < nr_cpus; c++)
			sum += vals[c];
		if (sum)
			printf("count %s %llu\n", counter_names[k], (unsigned long long)sum);
	}
	if (xsk_received)
		printf("count xsk_received %ld\n", xsk_received);
	free(vals);
}

int main(int argc, char **argv)
{
	const char *mode;
	pthread_t threads[64];
	int nthreads = 0, is_tc;
	__u32 flags = XDP_FLAGS_DRV_MODE;
	double seconds, until;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 5) {
		fprintf(stderr, "usage: xdp-redirect MODE IN TARGET SECONDS\n");
		return 1;
	}
	mode = argv[1];
	if (!parse_in(argv[2]))
		return 1;
	in_ifindex = in_ifindexes[0];
	target_ifindex = if_nametoindex(argv[3]);
	seconds = atof(argv[4]);
	if (!target_ifindex) {
		fprintf(stderr, "xdp-redirect: no such interface %s\n", argv[3]);
		return 1;
	}
	if (nr_in > 1 && (!strncmp(mode, "tc-", 3) || !strcmp(mode, "xsk") ||
			  !strcmp(mode, "live") || !strcmp(mode, "bench"))) {
		fprintf(stderr, "xdp-redirect: mode %s takes one device, not %s\n", mode, argv[2]);
		return 1;
	}
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus < 1 || nr_cpus > 64)
		fail("number of CPUs");
	if (strstr(mode, "-generic"))
		flags = XDP_FLAGS_SKB_MODE;
	skel = redirect_bpf__open();
	if (!skel)
		fail("open BPF object");
	skel->rodata->target_ifindex = target_ifindex;
	skel->rodata->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	/* A cpumap may not be larger than the kernel's NR_CPUS (1 when !SMP). */
	if (bpf_map__set_max_entries(skel->maps.cpu_map, nr_cpus))
		fail("size the cpumap");
	if (redirect_bpf__load(skel))
		fail("load BPF object");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	is_tc = !strncmp(mode, "tc-", 3);
	if (!strncmp(mode, "cpumap", 6)) {
		setup_cpumap();
		attach_xdp(bpf_program__fd(skel->progs.xdp_cpumap), flags);
	} else if (!strncmp(mode, "devmap", 6)) {
		setup_devmap();
		attach_xdp(bpf_program__fd(skel->progs.xdp_devmap), flags);
	} else if (!strncmp(mode, "ifindex", 7)) {
		attach_xdp(bpf_program__fd(skel->progs.xdp_ifindex), flags);
	} else if (!strcmp(mode, "xsk")) {
		attach_xdp(bpf_program__fd(skel->progs.xdp_xsk), flags);
		pthread_create(&threads[nthreads++], NULL, xsk_loop, NULL);
	} else if (!strcmp(mode, "count")) {
		attach_xdp(bpf_program__fd(skel->progs.xdp_count), flags);
	} else if (!strcmp(mode, "tc-redirect")) {
		attach_tc(bpf_program__fd(skel->progs.tc_redirect));
	} else if (!strcmp(mode, "tc-peer")) {
		attach_tc(bpf_program__fd(skel->progs.tc_redirect_peer));
	} else if (!strcmp(mode, "tc-neigh")) {
		attach_tc(bpf_program__fd(skel->progs.tc_redirect_neigh));
	} else if (!strcmp(mode, "bench")) {
		double start;
		__u64 *vals = calloc(nr_cpus, sizeof(__u64)), sum = 0;
		__u32 key = 8;	/* C_BENCH */

		setup_bench();
		printf("ready\n");
		start = now();
		bench_until = start + seconds;
		live_thread((void *)0L);
		usleep(200000);	/* let the cpumap kthread drain its queue */
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &key, vals))
			fail("read counters");
		for (int c = 0; c < nr_cpus; c++)
			sum += vals[c];
		printf("rate %.0f\n", sum / (now() - start - 0.2));
		redirect_bpf__destroy(skel);
		return sum ? 0 : 1;
	} else if (!strcmp(mode, "live")) {
		setup_devmap();
		live_frames = (long)(seconds * 1000);
		for (long c = 0; c < nr_cpus; c++)
			pthread_create(&threads[nthreads++], NULL, live_thread, (void *)c);
	} else {
		fprintf(stderr, "xdp-redirect: unknown mode %s\n", mode);
		return 1;
	}
	printf("ready\n");
	if (!strcmp(mode, "live")) {
		static const unsigned char pkt[64] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1,
						      0x08, 0x00 };
		LIBBPF_OPTS(bpf_test_run_opts, plain, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 100);

		for (int i = 0; i < nthreads; i++)
			pthread_join(threads[i], NULL);
		/* And once without live frames: the plain bpf_test_run() loop. */
		if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xdp_count), &plain) ||
		    plain.retval != XDP_DROP)
			fail("BPF_PROG_TEST_RUN without live frames");
	} else {
		until = now() + seconds;
		while (!stop && now() < until)
			usleep(50000);
		stop = 1;
		for (int i = 0; i < nthreads; i++)
			pthread_join(threads[i], NULL);
	}
	print_counters();
	if (is_tc)
		detach_tc();
	else if (strcmp(mode, "live"))
		for (int i = 0; i < nr_in; i++)
			bpf_xdp_detach(in_ifindexes[i], flags, NULL);
	redirect_bpf__destroy(skel);
	return 0;
}
