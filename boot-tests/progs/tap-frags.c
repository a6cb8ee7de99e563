// SPDX-License-Identifier: GPL-2.0
/*
 * Write numbered UDP datagrams into a tap device of its own whose skbs
 * tun builds from the per-CPU NAPI caches, and read each one back to
 * check it arrived intact.
 *
 *   tap-frags SIDE SECONDS [PERIOD_US PRIO]
 *
 * Creates tap "nbhfSIDE" (SIDE 0..9; IFF_NAPI | IFF_NAPI_FRAGS, removed
 * at exit) with address 10.41.SIDE.1/24 and a UDP socket bound to it,
 * then, until SECONDS have passed (0: for ever), writes frames and reads
 * them back. A frame is one writev(): the Ethernet, IPv4 and UDP headers
 * and the payload's first record in the first iovec, which tun copies
 * into an skb from napi_get_frags() (the skb cache and the small
 * page-frag cache of napi_alloc_cache), and the rest of the payload in
 * CHUNKS iovecs of CHUNK bytes (one in a periodic writer, which should
 * be quick), each copied into a fragment from netdev_alloc_frag()
 * (napi_alloc_cache's page-frag cache). tun hands the skb to GRO and
 * delivers it within the write.
 *
 * Without PERIOD_US the writer runs flat out, BURST frames at a time,
 * reading a burst back only after writing all of it: a frame that
 * shares memory with another has time to be overwritten. With PERIOD_US
 * it runs SCHED_FIFO at PRIO and writes one frame each time a ticker
 * wakes it: a child process on another CPU that writes to a pipe every
 * PERIOD_US microseconds, timed by a busy loop calibrated against the
 * clock first (a sleeping ticker would be as coarse as the timer tick,
 * and guests without a TSC clocksource read time in jiffies). On the
 * CPU of a flat-out writer each wake-up preempts that writer, or
 * whatever else runs there, at an arbitrary instruction, thousands of
 * times a second, which is what it takes to land inside an allocation
 * a few instructions long. It reads each frame back LAG frames later:
 * a task it preempted inside an allocation, and was handed the same
 * memory, writes its data there only once it runs again.
 *
 * The payload is a run of 16-byte records (magic, side, sequence
 * number, record index), so a frame damaged by another's data, by
 * pktgen's zeros or by a header of the other side, no longer matches.
 *
 * Prints "tap-frags side S: N frames intact" at the end. Exit 1 on the
 * first damaged, missing or unexpected frame (naming it, and saying how
 * many seconds into the run it was found), 2 on bad arguments or a
 * failing system call.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "tap-frags"
#include "prog.h"

#define MAGIC 0x6e626866u
#define PORT 9000
#define CHUNKS 16
#define CHUNK 256
#define HEADERS (14 + 20 + 8)
#define RECORD 16
#define BURST 16
#define LAG 8

struct record {
	uint32_t magic, side, seq, index;
};

static void records(unsigned char *p, size_t len, uint32_t side, uint32_t seq, uint32_t first)
{
	for (size_t i = 0; i < len / RECORD; i++) {
		struct record r = { htonl(MAGIC), htonl(side), htonl(seq), htonl(first + i) };

		memcpy(p + i * RECORD, &r, RECORD);
	}
}

static uint16_t ip_csum(const unsigned char *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static void ifreq_addr(struct ifreq *ifr, uint32_t addr)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr->ifr_addr;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(addr);
}

/* The tap, up with LOCAL/24; its MAC address into MAC. */
static int make_tap(const char *name, uint32_t local, unsigned char *mac)
{
	struct ifreq ifr = { 0 };
	int fd = open("/dev/net/tun", O_RDWR), s;

	if (fd < 0)
		die("open /dev/net/tun");
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NAPI | IFF_NAPI_FRAGS;
	if (ioctl(fd, TUNSETIFF, &ifr))
		die("TUNSETIFF");
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		die("socket");
	ifreq_addr(&ifr, local);
	if (ioctl(s, SIOCSIFADDR, &ifr))
		die("SIOCSIFADDR");
	ifreq_addr(&ifr, 0xffffff00);
	if (ioctl(s, SIOCSIFNETMASK, &ifr))
		die("SIOCSIFNETMASK");
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		die("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		die("SIOCSIFFLAGS");
	if (ioctl(s, SIOCGIFHWADDR, &ifr))
		die("SIOCGIFHWADDR");
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(s);
	return fd;
}

static int bound_socket(uint32_t local)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(PORT),
				   .sin_addr.s_addr = htonl(local) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rcvbuf = 8 << 20;

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("bind");
	return fd;
}

/* Headers of frame SEQ from PEER to LOCAL, into HEAD. */
static void headers(unsigned char *head, size_t payload, const unsigned char *mac, uint32_t side,
		    uint32_t local, uint32_t peer, uint32_t seq)
{
	unsigned char *ip = head + 14, *udp = ip + 20;
	uint16_t ip_len = 20 + 8 + payload, udp_len = 8 + payload;
	uint32_t src = htonl(peer), dst = htonl(local);
	uint16_t csum;

	memcpy(head, mac, 6);
	memcpy(head + 6, "\x02\x00\x00\x00\x41", 5);
	head[11] = side;
	head[12] = 0x08, head[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = ip_len >> 8, ip[3] = ip_len;
	ip[4] = seq >> 8, ip[5] = seq;
	ip[8] = 64, ip[9] = 17;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	csum = ip_csum(ip, 20);
	ip[10] = csum >> 8, ip[11] = csum;
	udp[0] = (PORT + 1) >> 8, udp[1] = (PORT + 1) & 0xff;
	udp[2] = PORT >> 8, udp[3] = PORT & 0xff;
	udp[4] = udp_len >> 8, udp[5] = udp_len;
	udp[6] = udp[7] = 0;	/* no checksum: a damaged frame reaches the socket */
}

/* 0 when BUF (N bytes) is frame SEQ of SIDE, else prints why and 1. */
static int verify(const unsigned char *buf, ssize_t n, size_t payload, uint32_t side,
		  uint32_t seq)
{
	static unsigned char want[RECORD + CHUNKS * CHUNK];

	if (n != (ssize_t)payload) {
		printf("tap-frags side %u: frame %u: %zd bytes, wanted %zu\n", side, seq, n, payload);
		return 1;
	}
	records(want, payload, side, seq, 0);
	for (size_t i = 0; i < payload; i += RECORD) {
		struct record r;

		if (!memcmp(buf + i, want + i, RECORD))
			continue;
		memcpy(&r, buf + i, RECORD);
		printf("tap-frags side %u: frame %u damaged at byte %zu: record %08x side %u "
		       "seq %u index %u\n", side, seq, i, ntohl(r.magic), ntohl(r.side),
		       ntohl(r.seq), ntohl(r.index));
		return 1;
	}
	return 0;
}

static void write_frame(int tap, unsigned char *head, unsigned char *payload, long chunks,
			const unsigned char *mac, uint32_t side, uint32_t local, uint32_t peer,
			uint32_t seq)
{
	struct iovec iov[1 + CHUNKS];

	headers(head, RECORD + chunks * CHUNK, mac, side, local, peer, seq);
	records(head + HEADERS, RECORD, side, seq, 0);
	records(payload, chunks * CHUNK, side, seq, 1);
	iov[0] = (struct iovec){ head, HEADERS + RECORD };
	for (int c = 0; c < chunks; c++)
		iov[1 + c] = (struct iovec){ payload + c * CHUNK, CHUNK };
	while (writev(tap, iov, 1 + chunks) < 0)
		if (errno != ENOMEM && errno != ENOBUFS)
			die("writev");
}

/* 0 when the next datagram on RX is frame SEQ, intact; else 1. */
static int read_frame(int rx, unsigned char *buf, long chunks, uint32_t side, uint32_t seq)
{
	struct pollfd p = { rx, POLLIN, 0 };
	ssize_t n;

	if (poll(&p, 1, 2000) <= 0) {
		printf("tap-frags side %u: frame %u missing\n", side, seq);
		return 1;
	}
	n = recv(rx, buf, 65536, 0);
	if (n < 0)
		die("recv");
	return verify(buf, n, RECORD + chunks * CHUNK, side, seq);
}

static volatile uint64_t spun;

static int64_t spin(int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		spun++;
	return n;
}

static void drain(int fd)
{
	char ticks[256];

	while (read(fd, ticks, sizeof(ticks)) > 0)
		;
}

/* A child on every CPU but the caller's that writes a byte to the pipe
 * it returns every PERIOD ns, spinning in between; its pid in *PID. */
static int ticker(int64_t period, pid_t *pid)
{
	int cpu = sched_getcpu(), fds[2], n = 0;
	cpu_set_t set;

	if (cpu < 0 || pipe2(fds, O_NONBLOCK))
		die("ticker");
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE && c < sysconf(_SC_NPROCESSORS_ONLN); c++)
		if (c != cpu) {
			CPU_SET(c, &set);
			n++;
		}
	if (!n) {
		fprintf(stderr, "tap-frags: PERIOD_US needs a second CPU for the ticker\n");
		exit(2);
	}
	*pid = fork();
	if (*pid < 0)
		die("fork");
	if (*pid == 0) {
		struct sched_param sp = { 0 };
		int64_t loops = 0, per_tick;
		double t0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sched_setscheduler(0, SCHED_OTHER, &sp);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
		close(fds[0]);
		/* Loops per period, over a fifth of a second: 2% with jiffies. */
		t0 = now();
		while (now() - t0 < 0.2)
			loops += spin(1000);
		per_tick = loops * (period / 1e9) / (now() - t0);
		for (;;) {
			spin(per_tick ? per_tick : 1);
			if (write(fds[1], "t", 1) < 0 && errno != EAGAIN)
				_exit(0);	/* the writer is gone */
		}
	}
	close(fds[1]);
	return fds[0];
}

/* After the first bad frame: when it was found (the rate of a rare race). */
static int damaged(long side, double start, uint32_t intact)
{
	printf("tap-frags side %ld: found after %.1f s, %u frames intact before it\n", side,
	       now() - start, intact);
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char head[HEADERS + RECORD], payload[CHUNKS * CHUNK], buf[65536];
	int64_t period = 0;
	pid_t tick_pid = 0;
	int tick = -1;
	uint32_t local, peer, sent = 0, checked = 0;
	long side, seconds, burst = BURST, chunks = CHUNKS, lag = 0;
	char name[IFNAMSIZ];
	unsigned char mac[6];
	double start, until;
	int tap, rx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: tap-frags SIDE SECONDS [PERIOD_US PRIO]\n");
		return 2;
	}
	side = number(argv[1], 0, 9, "side");
	seconds = number(argv[2], 0, 86400, "seconds");
	if (argc == 5) {
		struct sched_param sp = { .sched_priority = number(argv[4], 1, 99, "prio") };

		period = number(argv[3], 1, 1000000, "period") * 1000;
		burst = 1;
		chunks = 1;
		lag = LAG;
		if (mlockall(MCL_CURRENT | MCL_FUTURE) || sched_setscheduler(0, SCHED_FIFO, &sp))
			die("SCHED_FIFO");
	}
	local = 0x0a290001 | side << 8;	/* 10.41.SIDE.1 */
	peer = local + 1;
	snprintf(name, sizeof(name), "nbhf%ld", side);
	tap = make_tap(name, local, mac);
	rx = bound_socket(local);
	if (period)
		tick = ticker(period, &tick_pid);
	start = now();
	until = start + seconds;
	while (!seconds || now() < until) {
		if (period) {
			struct pollfd p = { tick, POLLIN, 0 };

			/* The ticks of the last frame's time are gone: wait for
			 * the next, so that the writer leaves the CPU between
			 * frames even when a frame takes longer than a period. */
			drain(tick);
			if (poll(&p, 1, -1) < 0)
				die("poll ticker");
			drain(tick);
		}
		for (long i = 0; i < burst; i++)
			write_frame(tap, head, payload, chunks, mac, side, local, peer, sent++);
		while (sent - checked > lag)
			if (read_frame(rx, buf, chunks, side, checked++))
				return damaged(side, start, checked - 1);
	}
	while (checked < sent)
		if (read_frame(rx, buf, chunks, side, checked++))
			return damaged(side, start, checked - 1);
	if (tick_pid) {
		kill(tick_pid, SIGKILL);
		waitpid(tick_pid, NULL, 0);
	}
	printf("tap-frags side %ld: %u frames intact\n", side, checked);
	return 0;
}
