// SPDX-License-Identifier: GPL-2.0
/*
 * The latency of a short operation that disables bottom halves, done
 * periodically by a high-priority task.
 *
 *   bh-latency ADDR PORT CPU PRIO COUNT PERIOD_US
 *
 * Pins itself to CPU, runs SCHED_FIFO at PRIO with its memory locked,
 * and COUNT times, every PERIOD_US microseconds (absolute deadlines),
 * sends one 64-byte UDP datagram to ADDR:PORT: the transmit path runs
 * under rcu_read_lock_bh(). Prints three lines, in nanoseconds:
 *
 *   bh-latency op n=N median=M p99=P max=X stalls=S
 *   bh-latency wakeup n=N median=M p99=P max=X stalls=S
 *   bh-latency response n=N median=M p99=P max=X stalls=S missed=D
 *
 * "op" is the time send() took, "wakeup" how late the task woke up
 * against the deadline it slept until, "response" the two together
 * (from that deadline to the end of the send: what the task's user
 * waits for). A deadline that passed while the task was still in an
 * earlier send is not slept for: it is skipped and counted as D, and
 * the task sleeps until the next deadline still ahead, so that no
 * figure carries the lateness of an earlier round. COUNT is the number
 * of deadlines, N the sends made (COUNT - D - S). A wake-up later than
 * a second is a stall of the whole guest (under TCG the host did not
 * run it; its clock then jumps by up to tens of seconds), not a latency
 * of the kernel: such rounds are left out of the three figures and
 * counted as S. Exit 2 on bad arguments or a failing system call, 1
 * when more than one round in a hundred stalled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "bh-latency"
#include "prog.h"

static int64_t ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

#define STALL_NS 1000000000

static void report(const char *what, int64_t *v, long n, long stalls, const char *extra)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("bh-latency %s n=%ld median=%lld p99=%lld max=%lld stalls=%ld%s\n", what, n,
	       (long long)v[n / 2], (long long)v[(n * 99) / 100], (long long)v[n - 1], stalls,
	       extra);
}

static void advance(struct timespec *t, long period_us)
{
	t->tv_nsec += period_us * 1000;
	while (t->tv_nsec >= 1000000000) {
		t->tv_nsec -= 1000000000;
		t->tv_sec++;
	}
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST };
	struct sched_param sp;
	struct timespec next, t0, t1;
	int64_t *op, *wake, *resp;
	char buf[64] = "bh-latency";
	struct addrinfo *ai;
	long cpu, count, period, i, n = 0, missed = 0, stalls = 0;
	char extra[32];
	cpu_set_t set;
	int fd;

	if (argc != 7) {
		fprintf(stderr, "usage: bh-latency ADDR PORT CPU PRIO COUNT PERIOD_US\n");
		return 2;
	}
	cpu = number(argv[3], 0, CPU_SETSIZE - 1, "CPU");
	sp.sched_priority = number(argv[4], 1, 99, "priority");
	count = number(argv[5], 1, 10000000, "count");
	period = number(argv[6], 10, 10000000, "period");
	if (getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "bh-latency: bad address %s port %s\n", argv[1], argv[2]);
		return 2;
	}
	op = calloc(count, sizeof(*op));
	resp = calloc(count, sizeof(*resp));
	wake = calloc(count, sizeof(*wake));
	if (!op || !wake || !resp)
		die("calloc");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, ai->ai_addr, ai->ai_addrlen))
		die("connect");
	freeaddrinfo(ai);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler");
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < count; i++) {
		advance(&next, period);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (ns(&next) <= ns(&t0)) {
			missed++;	/* overrun by the previous send */
			continue;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (send(fd, buf, sizeof(buf), 0) < 0 && errno != ENOBUFS)
			die("send");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ns(&t0) - ns(&next) > STALL_NS) {
			stalls++;
			next = t1;	/* the deadlines start again after a stall */
			continue;
		}
		op[n] = ns(&t1) - ns(&t0);
		resp[n] = ns(&t1) - ns(&next);
		wake[n++] = ns(&t0) - ns(&next);
	}
	if (!n) {
		fprintf(stderr, "bh-latency: no round was measured (%ld stalled, %ld missed)\n", stalls, missed);
		return 1;
	}
	report("op", op, n, stalls, "");
	report("wakeup", wake, n, stalls, "");
	snprintf(extra, sizeof(extra), " missed=%ld", missed);
	report("response", resp, n, stalls, extra);
	return stalls * 100 > count ? 1 : 0;
}
