// SPDX-License-Identifier: GPL-2.0
/*
 * Hash through AF_ALG hash sockets, for an asynchronous hash such as
 * cryptd(sha256-generic): every init, update and final of such a socket
 * is one request on cryptd's per-CPU queue.
 *
 *   alg-hash digest ALG
 *   alg-hash run ALG REF TASKS COUNT SIZE
 *
 * digest reads standard input and sends it to ALG in pieces of 4096
 * bytes with MSG_MORE (one update request each), ends with an empty
 * send (the final) and prints the digest in hex, as sha256sum does,
 * followed by " -".
 *
 * run forks TASKS tasks (1..64; they stay on the caller's CPUs), each
 * hashing COUNT messages of SIZE bytes (1..61440, at most 15 pages: one
 * update each), every byte derived from the task, the message and the
 * offset. Each message goes to ALG in one send (an init, an update and
 * a final: three requests) and to REF, a hash whose requests do not pass
 * through ALG's queue (sha256-generic for cryptd(sha256-generic)); the
 * two digests must be equal. Prints
 *
 *   alg-hash tasks=T messages=N requests=R mismatched=M failed=F
 *
 * R being the requests ALG was given (3 per message), M the tasks that
 * saw a digest differ (each prints its first), F the tasks that failed
 * otherwise (a system call, a signal).
 *
 * Exit status: 0 every digest equal to REF's; 1 a digest differed; 2 on
 * bad arguments or a failing system call, in a task too (an unknown ALG
 * or REF: the bind fails).
 */
#include <errno.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "alg-hash"
#include "prog.h"

#define MAX_DIGEST 64
#define CHUNK 4096
#define MAX_SIZE (15 * 4096)
#define REQUESTS_PER_MESSAGE 3

/* An operation socket of the hash NAME (a transform socket accepted). */
static int hash_socket(const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
	int tfm, op;

	if (strlen(name) >= sizeof(sa.salg_name)) {
		fprintf(stderr, "%s: algorithm name too long: %s\n", PROG, name);
		exit(2);
	}
	strcpy((char *)sa.salg_name, name);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0)
		die("socket(AF_ALG)");
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: bind %s: %s\n", PROG, name, strerror(errno));
		exit(2);
	}
	op = accept(tfm, NULL, 0);
	if (op < 0)
		die("accept");
	close(tfm);
	return op;
}

/* One send of LEN bytes (a hash socket takes all of it or fails). */
static void send_all(int op, const unsigned char *buf, size_t len, int flags)
{
	ssize_t n = send(op, buf, len, flags);

	if (n < 0)
		die("send");
	if ((size_t)n != len) {
		fprintf(stderr, "%s: send took %zd of %zu bytes\n", PROG, n, len);
		exit(2);
	}
}

/* The digest of what was sent, its length returned. */
static size_t read_digest(int op, unsigned char *digest)
{
	ssize_t n = read(op, digest, MAX_DIGEST);

	if (n <= 0) {
		if (n == 0)
			errno = ENODATA;
		die("read digest");
	}
	return n;
}

static void hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static int do_digest(const char *alg)
{
	unsigned char buf[CHUNK], digest[MAX_DIGEST];
	char text[2 * MAX_DIGEST + 1];
	int op = hash_socket(alg);
	ssize_t n;
	size_t len;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0)
			die("read standard input");
		send_all(op, buf, n, MSG_MORE);
	}
	if (send(op, NULL, 0, 0) < 0)
		die("send (final)");
	len = read_digest(op, digest);
	hex(digest, len, text);
	printf("%s  -\n", text);
	return 0;
}

static unsigned char pattern(long task, long msg, long i)
{
	return (unsigned char)(task * 151 + msg * 13 + i * 7 + (i >> 8));
}

/* One task's messages: 0 all equal, 1 one differed. */
static int task_run(const char *alg, const char *ref, long task, long count, long size)
{
	unsigned char *buf = malloc(size), a[MAX_DIGEST], r[MAX_DIGEST];
	char ta[2 * MAX_DIGEST + 1], tr[2 * MAX_DIGEST + 1];
	int op = hash_socket(alg), rop = hash_socket(ref);
	size_t na, nr;

	if (!buf)
		die("malloc");
	for (long m = 0; m < count; m++) {
		for (long i = 0; i < size; i++)
			buf[i] = pattern(task, m, i);
		send_all(op, buf, size, 0);
		na = read_digest(op, a);
		send_all(rop, buf, size, 0);
		nr = read_digest(rop, r);
		if (na != nr || memcmp(a, r, na)) {
			hex(a, na, ta);
			hex(r, nr, tr);
			fprintf(stderr, "%s: task %ld message %ld: %s gave %s, %s gave %s\n",
				PROG, task, m, alg, ta, ref, tr);
			return 1;
		}
	}
	return 0;
}

static int do_run(char **argv)
{
	const char *alg = argv[2], *ref = argv[3];
	long tasks = number(argv[4], 1, 64, "TASKS");
	long count = number(argv[5], 1, 1000000, "COUNT");
	long size = number(argv[6], 1, MAX_SIZE, "SIZE");
	long mismatched = 0, failed = 0;
	int status;

	/* Both names bind here first, so that a bad one is bad input. */
	close(hash_socket(alg));
	close(hash_socket(ref));
	fflush(stdout);
	for (long t = 0; t < tasks; t++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(task_run(alg, ref, t, count, size));
	}
	for (long t = 0; t < tasks; t++) {
		if (wait(&status) < 0)
			die("wait");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			mismatched++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	printf("%s tasks=%ld messages=%ld requests=%ld mismatched=%ld failed=%ld\n", PROG,
	       tasks, tasks * count, tasks * count * REQUESTS_PER_MESSAGE, mismatched, failed);
	return failed ? 2 : mismatched ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "digest"))
		return do_digest(argv[2]);
	if (argc == 7 && !strcmp(argv[1], "run"))
		return do_run(argv);
	fprintf(stderr, "usage: %s digest ALG\n       %s run ALG REF TASKS COUNT SIZE\n",
		PROG, PROG);
	return 2;
}
