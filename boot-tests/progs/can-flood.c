// SPDX-License-Identifier: GPL-2.0
/*
 * Send COUNT CAN frames on DEV from a raw CAN socket, back to back:
 *
 *   can-flood DEV COUNT
 *
 * DEV (vcan) has no qdisc, so every frame goes through __dev_queue_xmit()
 * under the device queue's xmit lock. A frame the device cannot take now
 * (ENOBUFS) is sent again; any other error ends the run: ENETDOWN is what
 * __dev_queue_xmit() answers when it takes the sender for the holder of
 * that lock ("Dead loop on virtual device"). The socket receives nothing
 * (an empty filter), so the loopback copies do not fill it.
 * Prints "sent N frames on DEV, R sent again"; exit 0 when all COUNT were
 * sent, 1 when a send failed, 2 on bad arguments or a failing setup call.
 */
#include <linux/can.h>
#include <linux/can/raw.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "can-flood"
#include "prog.h"

int main(int argc, char **argv)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	struct can_frame cf = { .can_id = 0x321, .len = 8 };
	long long count, sent = 0, again = 0;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV COUNT\n", PROG);
		return 2;
	}
	count = number(argv[2], 1, 1000000000, "COUNT");
	addr.can_ifindex = if_nametoindex(argv[1]);
	if (!addr.can_ifindex)
		die(argv[1]);
	fd = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0))
		die("CAN_RAW_FILTER");
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die("bind");
	while (sent < count) {
		memcpy(cf.data, &sent, sizeof(cf.data));	/* the sequence number */
		if (write(fd, &cf, sizeof(cf)) == sizeof(cf)) {
			sent++;
			continue;
		}
		if (errno == ENOBUFS) {
			again++;
			usleep(100);
			continue;
		}
		fprintf(stderr, "%s: frame %lld on %s: %s\n", PROG, sent, argv[1], strerror(errno));
		printf("sent %lld frames on %s, %lld sent again\n", sent, argv[1], again);
		return 1;
	}
	printf("sent %lld frames on %s, %lld sent again\n", sent, argv[1], again);
	return 0;
}
