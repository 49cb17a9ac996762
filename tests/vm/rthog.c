// SPDX-License-Identifier: GPL-2.0
/*
 * rthog: a SCHED_FIFO task that never sleeps, pinned to one CPU, so that
 * the CPU's kworkers run only in what RT throttling leaves them.
 *
 *   rthog CPU [PRIO]      (PRIO 1..98, default 50)
 *
 * The CPU's ksoftirqd is raised to FIFO PRIO+1 first: with throttling
 * off, a 6.1 kernel defers every softirq of the CPU to its ksoftirqd once
 * that thread has been woken, and a starved ksoftirqd keeps RCU_SOFTIRQ
 * from reporting the CPU's quiescent states, an RCU stall of the hog's
 * making (rcu_sched self-detected stall on the hog's CPU, softirq=N/N)
 * that says nothing of the code under test. Only the kworkers starve.
 *
 * Prints "hogging CPU N at FIFO P (ksoftirqd/N at FIFO P+1)" once it
 * runs there, then spins until it is killed: SIGTERM (kill's default)
 * gives the ksoftirqd back its normal policy first. Exit 1 when the CPU
 * or a policy cannot be set.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

/* the ksoftirqd raised above the hog, given back at SIGTERM */
static volatile pid_t raised = -1;

static void give_back(int sig)
{
	struct sched_param normal = { .sched_priority = 0 };

	(void)sig;
	if (raised > 0)
		sched_setscheduler(raised, SCHED_OTHER, &normal);
	_exit(0);
}

/* The pid of ksoftirqd/@cpu, from /proc/PID/comm; -1 when none. */
static int ksoftirqd_pid(int cpu)
{
	char want[32], path[300], comm[32];
	struct dirent *d;
	int pid = -1;
	DIR *proc;
	FILE *f;

	snprintf(want, sizeof(want), "ksoftirqd/%d\n", cpu);
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while (pid < 0 && (d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			pid = atoi(d->d_name);
		fclose(f);
	}
	closedir(proc);
	return pid;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 }, soft;
	volatile unsigned long spins = 0;
	cpu_set_t set;
	int cpu, pid;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rthog CPU [PRIO]\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	if (argc == 3)
		sp.sched_priority = atoi(argv[2]);
	if (sp.sched_priority < 1 || sp.sched_priority > 98) {
		fprintf(stderr, "rthog: PRIO %s: not in 1..98\n", argv[2]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rthog: CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rthog: SCHED_FIFO %d: %s\n", sp.sched_priority,
			strerror(errno));
		return 1;
	}
	/* raised before the spin starts */
	pid = ksoftirqd_pid(cpu);
	soft.sched_priority = sp.sched_priority + 1;
	if (pid < 0 || sched_setscheduler(pid, SCHED_FIFO, &soft)) {
		fprintf(stderr, "rthog: ksoftirqd/%d at FIFO %d: %s\n", cpu,
			soft.sched_priority,
			pid < 0 ? "no such thread" : strerror(errno));
		return 1;
	}
	raised = pid;
	signal(SIGTERM, give_back);
	printf("hogging CPU %d at FIFO %d (ksoftirqd/%d at FIFO %d)\n",
	       sched_getcpu(), sp.sched_priority, cpu, soft.sched_priority);
	fflush(stdout);
	for (;;)
		spins++;
}
