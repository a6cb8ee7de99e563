// SPDX-License-Identifier: GPL-2.0
/*
 * Two tasks on one CPU running the same command over and over, one
 * preempting the other at random points:
 *
 *   preempt-pair CPU SECONDS PERIOD_US CMD [ARG...]
 *
 * A "low" runner (SCHED_OTHER) and a "high" runner (SCHED_FIFO 10 for
 * CMD, 11 for the runner itself) are pinned to CPU, each in its own
 * process group, and start CMD again each time it exits until SECONDS
 * have passed; a run still going then is killed and counted as cut, not
 * failed (CMD may run for ever: a flat-out sender whose checks are made
 * elsewhere). A runner none of whose runs finished says so: its command
 * was never seen to succeed, only to run. The controller (SCHED_FIFO
 * 20, same CPU) stops the high runner's group with SIGSTOP for a random
 * time of PERIOD_US/2 to 3*PERIOD_US/2, during which the low runner
 * runs, and resumes it with SIGCONT: the high runner becomes runnable
 * at once and preempts the low one wherever it is, also inside a
 * section that holds a sleeping lock on PREEMPT_RT; if the high runner
 * then takes the same lock, the lock is contended (the guest's
 * contention-check counts that).
 *
 * CMD sees PREEMPT_PAIR_SIDE=0 in the low runner and 1 in the high one
 * (to pick ports of its own, say). Its standard output goes to a
 * temporary file, shown on standard error (at most 40 lines) for the
 * first failing run of each runner, after a line saying how it ended;
 * the output of the other runs is dropped.
 *
 * Prints one line per runner and the number of stops:
 *
 *   preempt-pair low runs=N failed=F cut=C
 *   preempt-pair high runs=N failed=F cut=C
 *   preempt-pair stops=S
 *
 * Exit status: 0 when both runners ran CMD at least once and every run
 * that was not cut exited 0; 1 otherwise; 2 on bad arguments or a
 * failing system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "preempt-pair"
#include "prog.h"

#define HIGH_PRIO 10
#define CONTROL_PRIO 20

static void set_policy(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, policy, &sp))
		die("sched_setscheduler");
}

static volatile pid_t running;

/* The first failing run of a runner: how it ended and its output. */
static void show_failure(const char *name, long run, int status, FILE *out)
{
	char line[512];
	int n = 0;

	if (WIFEXITED(status))
		fprintf(stderr, "preempt-pair %s: run %ld exited %d, its output:\n", name, run,
			WEXITSTATUS(status));
	else
		fprintf(stderr, "preempt-pair %s: run %ld killed by signal %d, its output:\n",
			name, run, WTERMSIG(status));
	rewind(out);
	while (n++ < 40 && fgets(line, sizeof(line), out))
		fprintf(stderr, "  %s%s", line, strchr(line, '\n') ? "" : "\n");
}

static void cut(int sig)
{
	(void)sig;
	if (running)
		kill(running, SIGKILL);
}

/* A runner: CMD again and again until DEADLINE, CMD with POLICY and
 * PRIO; its exit status carries whether every run succeeded, its output
 * the counts. A SCHED_FIFO runner sits one priority above its CMD: at
 * the same priority, a CMD that never sleeps (a sender whose datagrams
 * are dropped without ENOBUFS) would keep the runner from ever running
 * its alarm handler, and so from ever cutting it. */
static void runner(const char *name, int side, int policy, int prio, double deadline,
		   char **cmd)
{
	long runs = 0, failed = 0, cuts = 0;
	char value[2] = { '0' + side, 0 };
	sigset_t alrm, old;
	FILE *out = tmpfile();
	int status;
	pid_t pid;

	if (!out)
		die("tmpfile");
	if (setenv("PREEMPT_PAIR_SIDE", value, 1))
		die("setenv");
	signal(SIGALRM, cut);
	alarm((unsigned int)(deadline - now()) + 1);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);

	while (now() < deadline) {
		/* A SIGALRM between fork() and running = pid would be lost. */
		sigprocmask(SIG_BLOCK, &alrm, &old);
		if (ftruncate(fileno(out), 0) || lseek(fileno(out), 0, SEEK_SET))
			die("truncating the output file");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			set_policy(policy, prio);
			if (dup2(fileno(out), STDOUT_FILENO) < 0)
				die("dup2");
			execvp(cmd[0], cmd);
			fprintf(stderr, "preempt-pair: %s: %s\n", cmd[0], strerror(errno));
			_exit(127);
		}
		running = pid;
		sigprocmask(SIG_SETMASK, &old, NULL);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
		running = 0;
		runs++;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && now() >= deadline)
			cuts++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!failed++)
				show_failure(name, runs, status, out);
		}
	}
	printf("preempt-pair %s runs=%ld failed=%ld cut=%ld%s\n", name, runs, failed, cuts,
	       runs > cuts ? "" : " (none finished: cut at the deadline, not seen to succeed)");
	exit(runs && !failed ? 0 : 1);
}

static pid_t start(const char *name, int side, int policy, int prio, double deadline,
		   char **cmd)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (setpgid(0, 0))
			die("setpgid");
		set_policy(policy, policy == SCHED_FIFO ? prio + 1 : prio);
		runner(name, side, policy, prio, deadline, cmd);
	}
	setpgid(pid, pid);
	return pid;
}

static void pause_us(long us)
{
	struct timespec t = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	long cpu, secs, period, stops = 0;
	pid_t low, high;
	double deadline;
	int status, rc = 0;
	cpu_set_t set;

	if (argc < 5) {
		fprintf(stderr, "usage: preempt-pair CPU SECONDS PERIOD_US CMD [ARG...]\n");
		return 2;
	}
	cpu = number(argv[1], 0, CPU_SETSIZE - 1, "CPU");
	secs = number(argv[2], 1, 86400, "seconds");
	period = number(argv[3], 20, 10000000, "period");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom(getpid());
	deadline = now() + secs;
	low = start("low", 0, SCHED_OTHER, 0, deadline, argv + 4);
	/* Above the high runner before it exists: it never sleeps for long. */
	set_policy(SCHED_FIFO, CONTROL_PRIO);
	high = start("high", 1, SCHED_FIFO, HIGH_PRIO, deadline, argv + 4);
	while (now() < deadline) {
		pause_us(period / 2 + random() % period);
		if (kill(-high, SIGSTOP))
			break;
		stops++;
		pause_us(period / 2 + random() % period);
		kill(-high, SIGCONT);
	}
	kill(-high, SIGCONT);
	/*
	 * Cut the runs still going now rather than by the runners' own
	 * alarms: on PREEMPT_RT their timers expire in the timer softirq
	 * thread, which a SCHED_FIFO command that never sleeps keeps off
	 * the CPU; a signal sent from here wakes the runner at once.
	 */
	kill(high, SIGALRM);
	kill(low, SIGALRM);
	printf("preempt-pair stops=%ld\n", stops);
	if (waitpid(low, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		rc = 1;
	if (waitpid(high, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		rc = 1;
	return rc;
}
