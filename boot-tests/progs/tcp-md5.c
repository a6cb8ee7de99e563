// SPDX-License-Identifier: GPL-2.0
/*
 * TCP with an RFC 2385 signature (TCP_MD5SIG) on both ends.
 *
 *   tcp-md5 server ADDR PORT KEY PEER SECONDS MIN_BYTES
 *   tcp-md5 client ADDR PORT KEY BYTES
 *
 * The server signs with KEY for PEER, checks that every byte received
 * follows the sender's pattern, and exits 0 if at least MIN_BYTES arrived
 * intact within SECONDS. The client exits 0 when it connected and sent
 * BYTES, 1 when the connection could not be set up in 5 s (what a wrong
 * key must give), 2 on other errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "tcp-md5"
#include "prog.h"

static struct sockaddr_in addr_of(const char *a, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };

	if (inet_pton(AF_INET, a, &sin.sin_addr) != 1) {
		fprintf(stderr, "tcp-md5: bad IPv4 address %s\n", a);
		exit(2);
	}
	return sin;
}

static void sign(int fd, const char *peer, const char *key)
{
	struct tcp_md5sig sig = { .tcpm_keylen = strlen(key) };
	struct sockaddr_in p = addr_of(peer, "0");

	if (sig.tcpm_keylen > TCP_MD5SIG_MAXKEYLEN) {
		fprintf(stderr, "tcp-md5: key too long\n");
		exit(2);
	}
	memcpy(&sig.tcpm_addr, &p, sizeof(p));
	memcpy(sig.tcpm_key, key, sig.tcpm_keylen);
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &sig, sizeof(sig)))
		die("setsockopt TCP_MD5SIG");
}

static unsigned char pattern(long off)
{
	return (unsigned char)(off * 13 + (off >> 8));
}

static int client(char **argv)
{
	struct sockaddr_in srv = addr_of(argv[2], argv[3]);
	long total = atol(argv[5]), off = 0;
	unsigned char buf[16384];
	struct pollfd p;
	int fd, err = 0;
	socklen_t len = sizeof(err);

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	sign(fd, argv[2], argv[4]);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)&srv, sizeof(srv)) && errno != EINPROGRESS)
		die("connect");
	p = (struct pollfd){ fd, POLLOUT, 0 };
	if (poll(&p, 1, 5000) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		printf("connection not established (%s)\n", err ? strerror(err) : "timeout");
		return 1;
	}
	fcntl(fd, F_SETFL, 0);
	while (off < total) {
		long n = total - off < (long)sizeof(buf) ? total - off : (long)sizeof(buf);
		ssize_t w;

		for (long i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		w = write(fd, buf, n);
		if (w < 0)
			die("write");
		off += w;
	}
	close(fd);
	printf("sent %ld bytes\n", off);
	return 0;
}

static int server(char **argv)
{
	struct sockaddr_in sin = addr_of(argv[2], argv[3]);
	double until = now() + atof(argv[6]);
	long min = atol(argv[7]), bytes = 0, bad = 0, conns = 0;
	unsigned char buf[16384];
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sign(fd, argv[5], argv[4]);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 16))
		die("bind/listen");
	printf("listening\n");
	fflush(stdout);
	while (now() < until && bytes < min) {
		struct pollfd p = { fd, POLLIN, 0 };
		long off = 0;
		ssize_t n;
		int c;

		if (poll(&p, 1, 200) != 1)
			continue;
		c = accept(fd, NULL, NULL);
		if (c < 0)
			die("accept");
		conns++;
		while ((n = read(c, buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++, off++)
				if (buf[i] != pattern(off))
					bad++;
			bytes += n;
		}
		close(c);
	}
	printf("%ld connections, %ld bytes, %ld damaged (wanted %ld)\n", conns, bytes, bad, min);
	return bytes >= min && !bad ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 8 && !strcmp(argv[1], "server"))
		return server(argv);
	if (argc == 6 && !strcmp(argv[1], "client"))
		return client(argv);
	fprintf(stderr, "usage: tcp-md5 server ADDR PORT KEY PEER SECONDS MIN_BYTES\n"
		"       tcp-md5 client ADDR PORT KEY BYTES\n");
	return 2;
}
