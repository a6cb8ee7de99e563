/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest test programs share: exits on a failing system call
 * and on a bad numeric argument, both with status 2 and one line naming
 * the program (PROG, defined before this header is included), and the
 * monotonic clock in seconds.
 */
#ifndef NBH_PROG_H
#define NBH_PROG_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(errno));
	exit(2);
}

/* S as a decimal number in MIN..MAX, else exit 2 naming WHAT. */
static inline long number(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad %s '%s' (%ld..%ld)\n", PROG, what, s, min, max);
		exit(2);
	}
	return v;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
