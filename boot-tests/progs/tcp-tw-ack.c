// SPDX-License-Identifier: GPL-2.0
/*
 * Make the IPv4 TCP control socket (ipv4_tcp_sk) answer, over loopback:
 *
 *   - a connection attempt to a closed port gets a RST (ECONNREFUSED),
 *     sent by tcp_v4_send_reset();
 *   - an out-of-window segment to a TIME_WAIT socket gets an ACK, sent
 *     by tcp_v4_send_ack() through tcp_v4_timewait_ack().
 *
 *   tcp-tw-ack PORT ROUNDS
 *
 * Uses ports PORT (listener) and PORT+1 (closed). Needs CAP_NET_RAW and
 * net.ipv4.tcp_invalid_ratelimit=0 (else the ACKs are rate limited).
 * Prints the counts; exits 0 only if every round got its RST and ACK.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "tcp-tw-ack"
#include "prog.h"

static struct sockaddr_in lo(int port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port),
				     .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
}

static uint16_t csum(const void *data, size_t len, uint32_t sum)
{
	const uint16_t *p = data;

	for (; len > 1; len -= 2)
		sum += *p++;
	if (len)
		sum += *(const uint8_t *)p;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* Send a bare ACK with an arbitrary (out-of-window) sequence number. */
static void send_oow_ack(int raw, int sport, int dport)
{
	struct {
		uint32_t src, dst;
		uint8_t zero, proto;
		uint16_t len;
	} pseudo = { htonl(INADDR_LOOPBACK), htonl(INADDR_LOOPBACK), 0, IPPROTO_TCP,
		     htons(sizeof(struct tcphdr)) };
	unsigned char buf[sizeof(pseudo) + sizeof(struct tcphdr)];
	struct tcphdr th = { 0 };
	struct sockaddr_in to = lo(dport);

	th.source = htons(sport);
	th.dest = htons(dport);
	th.seq = htonl(random());
	th.ack_seq = htonl(random());
	th.doff = 5;
	th.ack = 1;
	th.window = htons(1024);
	memcpy(buf, &pseudo, sizeof(pseudo));
	memcpy(buf + sizeof(pseudo), &th, sizeof(th));
	th.check = csum(buf, sizeof(buf), 0);
	if (sendto(raw, &th, sizeof(th), 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		die("sendto raw");
}

/* Wait up to 1 s for a pure ACK from sport to dport. */
static int got_ack(int raw, int sport, int dport)
{
	unsigned char buf[256];
	struct pollfd p = { raw, POLLIN, 0 };

	while (poll(&p, 1, 1000) == 1) {
		ssize_t n = recv(raw, buf, sizeof(buf), 0);
		struct iphdr *ip = (struct iphdr *)buf;
		struct tcphdr *th;

		if (n < (ssize_t)sizeof(*ip))
			continue;
		th = (struct tcphdr *)(buf + ip->ihl * 4);
		if (n < ip->ihl * 4 + (ssize_t)sizeof(*th))
			continue;
		if (ntohs(th->source) == sport && ntohs(th->dest) == dport &&
		    th->ack && !th->syn && !th->fin && !th->rst)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int port, rounds, lfd, raw, one = 1, acks = 0, resets = 0;
	struct sockaddr_in sin;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (port = atoi(argv[1])) <= 0 || (rounds = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: tcp-tw-ack PORT ROUNDS\n");
		return 2;
	}
	srandom(getpid());
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (raw < 0 || lfd < 0)
		die("socket");
	sin = lo(port);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 8))
		die("bind/listen");
	for (int i = 0; i < rounds; i++) {
		struct sockaddr_in me, closed = lo(port + 1);
		socklen_t len = sizeof(me);
		int c, s;
		char b;

		/* RST: nobody listens on port + 1. */
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&closed, sizeof(closed)) && errno == ECONNREFUSED)
			resets++;
		close(c);

		/* TIME_WAIT on the server side: it closes first. */
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&sin, sizeof(sin)))
			die("connect");
		getsockname(c, (struct sockaddr *)&me, &len);
		s = accept(lfd, NULL, NULL);
		if (s < 0)
			die("accept");
		close(s);
		if (read(c, &b, 1) != 0)
			die("expected EOF");
		close(c);
		usleep(20000);
		send_oow_ack(raw, ntohs(me.sin_port), port);
		acks += got_ack(raw, port, ntohs(me.sin_port));
	}
	printf("rounds %d: %d RSTs from a closed port, %d ACKs from TIME_WAIT\n",
	       rounds, resets, acks);
	return resets == rounds && acks == rounds ? 0 : 1;
}
