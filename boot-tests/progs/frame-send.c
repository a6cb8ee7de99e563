// SPDX-License-Identifier: GPL-2.0
/*
 * Send COUNT identical Ethernet frames through a packet socket, so that
 * a test knows exactly how many frames of one kind a device's tc
 * filters see:
 *
 *   frame-send [-d] DEV COUNT ETHERTYPE HEXPAYLOAD [MARK]
 *
 * The frame is 02:00:00:00:00:02 <- 02:00:00:00:00:01, ETHERTYPE (hex,
 * 0x88b5 say), then the payload given as hex digits ("" or "-" for none),
 * sent with dev_queue_xmit() (no PACKET_QDISC_BYPASS), so it crosses the
 * device's egress tc hook and qdisc. MARK sets SO_MARK (skb->mark).
 * A frame that the egress path drops (a tc action, a full qdisc) fails
 * with ENOBUFS: it is sent again, unless -d says that the egress path is
 * meant to drop them, and then counted as dropped.
 * Prints "sent N frames of L bytes on DEV, D dropped at egress"; exit 0
 * when all COUNT were sent, 2 on bad arguments or a failing system call.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "frame-send"
#include "prog.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int main(int argc, char **argv)
{
	static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 2 }, src[6] = { 2, 0, 0, 0, 0, 1 };
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned char frame[9000];
	long count, type, len = 14, sent, dropped = 0;
	int fd, drops = argc > 1 && !strcmp(argv[1], "-d");
	const char *hex;

	argc -= drops;
	argv += drops;
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: frame-send [-d] DEV COUNT ETHERTYPE HEXPAYLOAD [MARK]\n");
		return 2;
	}
	count = number(argv[2], 1, 100000000, "COUNT");
	errno = 0;
	type = strtol(argv[3], NULL, 16);
	if (errno || type < 0x600 || type > 0xffff) {
		fprintf(stderr, "frame-send: bad ETHERTYPE '%s'\n", argv[3]);
		return 2;
	}
	hex = strcmp(argv[4], "-") ? argv[4] : "";
	if (strlen(hex) % 2 || strlen(hex) / 2 > sizeof(frame) - 14) {
		fprintf(stderr, "frame-send: bad HEXPAYLOAD (even number of digits, at most %zu bytes)\n",
			sizeof(frame) - 14);
		return 2;
	}
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	frame[12] = type >> 8;
	frame[13] = type & 0xff;
	for (; *hex; hex += 2) {
		int hi = hexval(hex[0]), lo = hexval(hex[1]);

		if (hi < 0 || lo < 0) {
			fprintf(stderr, "frame-send: bad hex digit in HEXPAYLOAD\n");
			return 2;
		}
		frame[len++] = hi << 4 | lo;
	}
	ll.sll_ifindex = if_nametoindex(argv[1]);
	if (!ll.sll_ifindex)
		die(argv[1]);
	ll.sll_protocol = htons(type);
	memcpy(ll.sll_addr, dst, 6);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		die("socket");
	if (argc == 6) {
		int mark = number(argv[5], 0, 0x7fffffff, "MARK");

		if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
			die("SO_MARK");
	}
	for (sent = 0; sent < count; sent++) {
		while (sendto(fd, frame, len, 0, (struct sockaddr *)&ll, sizeof(ll)) != len) {
			if (errno != ENOBUFS && errno != EAGAIN)
				die("sendto");
			if (drops && errno == ENOBUFS) {
				dropped++;
				break;
			}
			usleep(100);
		}
	}
	printf("sent %ld frames of %ld bytes on %s, %ld dropped at egress\n", sent, len, argv[1],
	       dropped);
	return 0;
}
