// SPDX-License-Identifier: GPL-2.0
/*
 * Check the Segment Routing Headers arriving on an interface: every SRH
 * must carry tag 0x2a2a and a PadN TLV after its segment list, which is
 * what the End.BPF program of seg6.bpf.c writes.
 *
 *   srh-sniff IFNAME MIN_COUNT SECONDS
 *
 * Prints the counts; exits 0 when at least MIN_COUNT SRHs matched and
 * none did not, 1 otherwise, 2 on setup errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ipv6.h>
#include <linux/seg6.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "srh-sniff"
#include "prog.h"

#define SRH_TAG 0x2a2a
#define PADN 4

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IPV6) };
	long min, good = 0, bad = 0;
	unsigned char buf[2048];
	double until;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4 || (min = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: srh-sniff IFNAME MIN_COUNT SECONDS\n");
		return 2;
	}
	until = now() + atof(argv[3]);
	sll.sll_ifindex = if_nametoindex(argv[1]);
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IPV6));
	if (!sll.sll_ifindex || fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "srh-sniff: packet socket on %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	printf("listening\n");
	while (now() < until && good < min) {
		struct pollfd p = { fd, POLLIN, 0 };
		struct ipv6hdr *ip6 = (struct ipv6hdr *)buf;
		struct ipv6_sr_hdr *srh = (struct ipv6_sr_hdr *)(ip6 + 1);
		ssize_t n;
		size_t tlv;

		if (poll(&p, 1, 100) != 1)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < (ssize_t)(sizeof(*ip6) + sizeof(*srh)) || ip6->nexthdr != IPPROTO_ROUTING ||
		    srh->type != IPV6_SRCRT_TYPE_4)
			continue;
		tlv = sizeof(*ip6) + 8 + 16 * (srh->first_segment + 1);
		if (ntohs(srh->tag) == SRH_TAG && (size_t)n >= tlv + 8 &&
		    (srh->hdrlen + 1) * 8 >= 8 + 16 * (srh->first_segment + 1) + 8 &&
		    buf[tlv] == PADN && buf[tlv + 1] == 6)
			good++;
		else
			bad++;
	}
	printf("SRHs with the program's tag and PadN TLV: %ld, without: %ld (wanted %ld)\n",
	       good, bad, min);
	return good >= min && !bad ? 0 : 1;
}
