// SPDX-License-Identifier: GPL-2.0
/*
 * Send or receive numbered UDP datagrams whose every byte is derived from
 * the sender id, the sequence number and the offset, so the receiver can
 * tell an intact datagram from a damaged one.
 *
 *   udp-check send ADDR PORT COUNT SIZE [ID [USEC_GAP]]
 *   udp-check recv ADDR PORT MIN_COUNT SIZE SECONDS [EXPECT_SRC]
 *
 * recv binds ADDR:PORT, stops after SECONDS or MIN_COUNT intact ones,
 * prints "received N intact, M damaged, D duplicated, K from other
 * sources" and exits 0 only if at least MIN_COUNT datagrams arrived
 * intact, none damaged, none twice (the same sender id and sequence
 * number: a datagram delivered twice is a fault, not a delivery), and
 * (with EXPECT_SRC) all came from that source address. Exit 2 on bad
 * arguments or socket errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "udp-check"
#include "prog.h"

#define MAGIC 0x6e626821u

struct head {
	uint32_t magic, id, seq, size;
};

static int resolve(const char *addr, const char *port, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai;

	if (getaddrinfo(addr, port, &hints, &ai)) {
		fprintf(stderr, "udp-check: bad address %s port %s\n", addr, port);
		exit(2);
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return ss->ss_family;
}

static uint8_t pattern(uint32_t id, uint32_t seq, size_t i)
{
	return (uint8_t)(id * 131 + seq * 7 + i);
}

static int do_send(char **argv, int argc)
{
	struct sockaddr_storage ss;
	socklen_t len;
	long count = atol(argv[4]), size = atol(argv[5]);
	uint32_t id = argc > 6 ? atoi(argv[6]) : 0;
	long gap = argc > 7 ? atol(argv[7]) : 0;
	unsigned char *buf;
	int fd;

	if (size < (long)sizeof(struct head) || size > 65000 || count < 1) {
		fprintf(stderr, "udp-check: SIZE must be 16..65000, COUNT positive\n");
		return 2;
	}
	fd = socket(resolve(argv[2], argv[3], &ss, &len), SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	buf = malloc(size);
	for (long seq = 0; seq < count; seq++) {
		struct head h = { htonl(MAGIC), htonl(id), htonl(seq), htonl(size) };

		for (long i = sizeof(h); i < size; i++)
			buf[i] = pattern(id, seq, i);
		memcpy(buf, &h, sizeof(h));
		while (sendto(fd, buf, size, 0, (struct sockaddr *)&ss, len) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN)
				die("sendto");
			usleep(100);
		}
		if (gap)
			usleep(gap);
	}
	printf("sent %ld datagrams of %ld bytes (id %u)\n", count, size, id);
	return 0;
}

/*
 * The (id, seq) pairs received: open addressing, sized for twice the
 * datagrams the receiver waits for. Returns 1 when KEY was seen before;
 * when the table is full, it stops recording (and says so).
 */
struct seen {
	uint64_t *slot;
	size_t size, used;
	int full;
};

static int seen_before(struct seen *t, uint32_t id, uint32_t seq)
{
	uint64_t key = ((uint64_t)id << 32 | seq) + 1;
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (t->size - 1);

	for (; t->slot[i]; i = (i + 1) & (t->size - 1))
		if (t->slot[i] == key)
			return 1;
	if (t->used + 1 >= t->size / 2) {
		t->full = 1;
		return 0;
	}
	t->slot[i] = key;
	t->used++;
	return 0;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((struct sockaddr_in6 *)a)->sin6_addr,
		       &((struct sockaddr_in6 *)b)->sin6_addr, 16);
}

static int do_recv(char **argv, int argc)
{
	struct sockaddr_storage ss, want_src, from;
	socklen_t len;
	long min = atol(argv[4]), size = atol(argv[5]);
	double until = now() + atof(argv[6]);
	long intact = 0, damaged = 0, foreign = 0, duplicated = 0;
	int check_src = argc > 7, fd, one = 1, rcvbuf = 4 << 20;
	unsigned char *buf = malloc(65536);
	struct seen seen = { .size = 1024 };

	while (seen.size < 4 * (size_t)(min > 0 ? min : 1) && seen.size < (1u << 26))
		seen.size <<= 1;
	seen.slot = calloc(seen.size, sizeof(*seen.slot));
	if (!buf || !seen.slot)
		die("malloc");

	if (check_src)
		resolve(argv[7], "0", &want_src, &len);
	fd = socket(resolve(argv[2], argv[3], &ss, &len), SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&ss, len))
		die("bind");
	printf("listening\n");
	fflush(stdout);
	while (now() < until) {
		struct pollfd p = { fd, POLLIN, 0 };
		socklen_t flen = sizeof(from);
		struct head h;
		ssize_t n;
		int ok;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recvfrom(fd, buf, 65536, 0, (struct sockaddr *)&from, &flen);
		if (n < 0)
			die("recvfrom");
		memcpy(&h, buf, n >= (ssize_t)sizeof(h) ? sizeof(h) : 0);
		ok = n == size && ntohl(h.magic) == MAGIC && ntohl(h.size) == (uint32_t)n;
		for (ssize_t i = sizeof(h); ok && i < n; i++)
			ok = buf[i] == pattern(ntohl(h.id), ntohl(h.seq), i);
		if (!ok)
			damaged++;
		else if (check_src && !same_addr(&from, &want_src))
			foreign++;
		else if (seen_before(&seen, ntohl(h.id), ntohl(h.seq)))
			duplicated++;
		else
			intact++;
		if (intact >= min)
			break;
	}
	printf("received %ld intact, %ld damaged, %ld duplicated, %ld from other sources (wanted %ld)%s\n",
	       intact, damaged, duplicated, foreign, min,
	       seen.full ? "; too many to check them all for duplicates" : "");
	return intact >= min && !damaged && !duplicated && !foreign ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && !strcmp(argv[1], "send"))
		return do_send(argv, argc);
	if (argc >= 7 && !strcmp(argv[1], "recv"))
		return do_recv(argv, argc);
	fprintf(stderr, "usage: udp-check send ADDR PORT COUNT SIZE [ID [USEC_GAP]]\n"
		"       udp-check recv ADDR PORT MIN_COUNT SIZE SECONDS [EXPECT_SRC]\n");
	return 2;
}
