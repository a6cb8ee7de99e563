// SPDX-License-Identifier: GPL-2.0
/*
 * Install IPv6 per-CPU route copies from two tasks on one CPU at once:
 *
 *   route6-race DEV ADDR SECONDS
 *
 * ADDR is an IPv6 address reached through DEV by a /128 route (DEV
 * must not resolve neighbours: a dummy device). A replacer on CPU 1
 * replaces that route over rtnetlink again and again (RTM_NEWROUTE,
 * NLM_F_REPLACE): each replace makes a new fib6_info, whose per-CPU
 * route slots start empty. On CPU 0 a SCHED_OTHER sender sends UDP
 * datagrams to ADDR from an unconnected socket flat out, so that each
 * send looks the route up (ip6_pol_route()); its first send after a
 * replace finds CPU 0's slot empty, allocates a copy and installs it
 * with cmpxchg() (rt6_make_pcpu_route()). After each replace the
 * replacer waits a random time of up to two of that sender's sends
 * (a busy loop calibrated against the clock first) and wakes a
 * SCHED_FIFO sender on CPU 0 through a pipe, which sends one datagram
 * to ADDR at once: it preempts the first sender wherever it is, also
 * between its look at the empty slot and its install. Without the
 * softirq lock of PREEMPT_RT both then install a copy in the same slot,
 * and the second cmpxchg() fails; 6.1 answered that with BUG_ON().
 *
 * Prints one line of counts:
 *
 *   route6-race replaces=R sends=S wakeups=W unreachable=U
 *
 * S and W count the datagrams sent; U the sends of either whose lookup
 * met the route in the middle of its replacement (ENETUNREACH), which
 * are not failures.
 *
 * Exit status: 0 when every replace succeeded, every send either sent
 * or met a replacement, and R, S and W are positive; 1 otherwise (naming the first failure); 2 on bad
 * arguments or a failing system call.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "route6-race"
#include "prog.h"

#define HIGH_PRIO 10

/* What the three tasks share. */
struct shared {
	volatile long sends;		/* the flat-out sender's */
	volatile long wakeups;		/* the woken sender's sends */
	volatile long replaces;
	volatile long unreachable;	/* sends that raced a replace */
	volatile int failed;		/* first failure: 1 + which task */
	char why[200];
};

static struct shared *sh;

static void fail(int who, const char *what)
{
	if (!__sync_bool_compare_and_swap(&sh->failed, 0, who))
		return;
	snprintf(sh->why, sizeof(sh->why), "%s: %s", what, strerror(errno));
}

static void pin(int cpu, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	if (sched_setscheduler(0, policy, &sp))
		die("sched_setscheduler");
}

static int udp6(void)
{
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	if (fd < 0)
		die("socket");
	return fd;
}

/* 0 when sent; a lookup that met the route being replaced
 * (ENETUNREACH) is counted, not failed. */
static int send_one(int fd, const struct sockaddr_in6 *to)
{
	static const char payload[64];

	if (sendto(fd, payload, sizeof(payload), 0, (const struct sockaddr *)to,
		   sizeof(*to)) == sizeof(payload))
		return 0;
	if (errno == ENETUNREACH) {
		__sync_fetch_and_add(&sh->unreachable, 1);
		return 1;
	}
	return -1;
}

/* One RTM_NEWROUTE replacing ADDR/128 via IFINDEX; 0 once acknowledged. */
static int replace_route(int nl, const struct in6_addr *addr, int ifindex, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	struct rtattr *rta;
	char ack[512];
	struct nlmsghdr *nh = (struct nlmsghdr *)ack;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	req.nh.nlmsg_seq = seq;
	req.rt.rtm_family = AF_INET6;
	req.rt.rtm_dst_len = 128;
	req.rt.rtm_table = RT_TABLE_MAIN;
	req.rt.rtm_protocol = RTPROT_STATIC;
	req.rt.rtm_scope = RT_SCOPE_UNIVERSE;
	req.rt.rtm_type = RTN_UNICAST;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = RTA_LENGTH(sizeof(*addr));
	memcpy(RTA_DATA(rta), addr, sizeof(*addr));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	rta = (struct rtattr *)((char *)&req + req.nh.nlmsg_len);
	rta->rta_type = RTA_OIF;
	rta->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(rta), &ifindex, sizeof(int));
	req.nh.nlmsg_len += RTA_ALIGN(rta->rta_len);

	if (send(nl, &req, req.nh.nlmsg_len, 0) != (ssize_t)req.nh.nlmsg_len)
		return -1;
	n = recv(nl, ack, sizeof(ack), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || nh->nlmsg_type != NLMSG_ERROR)
		return -1;
	errno = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	return errno ? -1 : 0;
}

static volatile uint64_t spun;

static void spin(int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		spun++;
}

/* Busy-loop iterations per nanosecond, over a tenth of a second. */
static double loops_per_ns(void)
{
	int64_t loops = 0;
	double t0 = now();

	while (now() - t0 < 0.1) {
		spin(1000);
		loops += 1000;
	}
	return loops / ((now() - t0) * 1e9);
}

static void replacer(const struct in6_addr *addr, int ifindex, int wake, double deadline)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	double per_ns, t0, send_ns;
	long s0;
	uint32_t seq = 0;
	int nl;

	pin(1, SCHED_OTHER, 0);
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0 || bind(nl, (struct sockaddr *)&local, sizeof(local)))
		die("netlink socket");
	per_ns = loops_per_ns();
	/* The flat-out sender's time per send, while nothing else runs. */
	s0 = sh->sends;
	t0 = now();
	usleep(200000);
	send_ns = (now() - t0) * 1e9 / (sh->sends - s0 + 1);
	srandom(getpid());
	while (now() < deadline && !sh->failed) {
		if (replace_route(nl, addr, ifindex, ++seq)) {
			fail(2, "replacing the route");
			break;
		}
		sh->replaces++;
		spin((int64_t)(per_ns * send_ns * 2 * (random() / (double)RAND_MAX)));
		if (write(wake, "w", 1) < 0 && errno != EAGAIN) {
			fail(2, "waking the SCHED_FIFO sender");
			break;
		}
	}
	_exit(0);
}

static void flat_out(const struct sockaddr_in6 *to, double deadline)
{
	int fd = udp6();

	pin(0, SCHED_OTHER, 0);
	while (now() < deadline && !sh->failed) {
		int r = send_one(fd, to);

		if (r < 0) {
			fail(3, "sending flat out");
			break;
		}
		if (!r)
			sh->sends++;
	}
	_exit(0);
}

static void woken(const struct sockaddr_in6 *to, int wake, double deadline)
{
	int fd = udp6();
	char c;

	pin(0, SCHED_FIFO, HIGH_PRIO);
	while (now() < deadline && !sh->failed) {
		if (read(wake, &c, 1) != 1) {
			fail(4, "waiting for a wake-up");
			break;
		}
		int r = send_one(fd, to);

		if (r < 0) {
			fail(4, "sending when woken");
			break;
		}
		if (!r)
			sh->wakeups++;
	}
	_exit(0);
}

static pid_t child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	pid_t pids[3];
	double deadline;
	int wake[2], ifindex, ok;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV ADDR SECONDS\n", PROG);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "%s: no device '%s'\n", PROG, argv[1]);
		return 2;
	}
	if (inet_pton(AF_INET6, argv[2], &to.sin6_addr) != 1) {
		fprintf(stderr, "%s: bad IPv6 address '%s'\n", PROG, argv[2]);
		return 2;
	}
	deadline = now() + number(argv[3], 1, 86400, "SECONDS");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "%s: needs two CPUs\n", PROG);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	/* The write end never blocks: a wake-up while the sender is busy
	 * is one the pipe still holds. */
	if (pipe(wake) || fcntl(wake[1], F_SETFL, O_NONBLOCK))
		die("pipe");

	pids[0] = child();
	if (!pids[0])
		flat_out(&to, deadline);
	pids[1] = child();
	if (!pids[1])
		woken(&to, wake[0], deadline + 1);
	pids[2] = child();
	if (!pids[2])
		replacer(&to.sin6_addr, ifindex, wake[1], deadline);
	waitpid(pids[0], NULL, 0);
	waitpid(pids[2], NULL, 0);
	/* The woken sender may be waiting for a wake-up that never comes. */
	kill(pids[1], SIGKILL);
	waitpid(pids[1], NULL, 0);

	printf("%s replaces=%ld sends=%ld wakeups=%ld unreachable=%ld\n", PROG, sh->replaces,
	       sh->sends, sh->wakeups, sh->unreachable);
	ok = !sh->failed && sh->replaces > 0 && sh->sends > 0 && sh->wakeups > 0;
	if (sh->failed)
		printf("%s: %s\n", PROG,  sh->why);
	else if (!ok)
		printf("%s: a count is zero\n", PROG);
	return ok ? 0 : 1;
}
