// SPDX-License-Identifier: GPL-2.0
/*
 * Connection attempts to a closed TCP port of another host, each answered
 * by a RST that the receiver's tcp_v4_send_reset() sends through its
 * per-CPU control socket (ipv4_tcp_sk), in whatever context receives the
 * SYN there: a NAPI kthread of a veth, for the stress phases.
 *
 *   syn-rst ADDR PORT COUNT
 *
 * ADDR is an IPv4 address. Prints the count of refused attempts; exits 0
 * only if every attempt was refused (ECONNREFUSED), 1 otherwise.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "syn-rst"
#include "prog.h"

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	long count, i, refused = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT COUNT\n", PROG);
		return 2;
	}
	if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "%s: bad IPv4 address '%s'\n", PROG, argv[1]);
		return 2;
	}
	to.sin_port = htons(number(argv[2], 1, 65535, "port"));
	count = number(argv[3], 1, 1000000000, "count");
	for (i = 0; i < count; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0 && errno == ECONNREFUSED)
			refused++;
		close(fd);
	}
	printf("%ld of %ld attempts refused\n", refused, count);
	return refused == count ? 0 : 1;
}
