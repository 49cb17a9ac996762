// SPDX-License-Identifier: GPL-2.0
/*
 * rthog: a SCHED_FIFO task that never sleeps, pinned to one CPU, so that
 * the CPU's kworkers run only in what RT throttling leaves them.
 *
 *   rthog CPU [PRIO]      (PRIO 1..99, default 50)
 *
 * Prints "hogging CPU N at FIFO P" once it runs there, then spins until
 * it is killed. Exit 1 when the CPU or the policy cannot be set.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	volatile unsigned long spins = 0;
	cpu_set_t set;
	int cpu;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rthog CPU [PRIO]\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	if (argc == 3)
		sp.sched_priority = atoi(argv[2]);
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
	printf("hogging CPU %d at FIFO %d\n", sched_getcpu(),
	       sp.sched_priority);
	fflush(stdout);
	for (;;)
		spins++;
}
