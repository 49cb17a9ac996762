// SPDX-License-Identifier: GPL-2.0
/*
 * nsprobe: a process whose page faults never stop, for tests that need a
 * target identified by pid and tid as its own PID namespace sees them
 * (target_ns.sh).
 *
 *   nsprobe [-x] [-t SECONDS]
 *
 * A worker thread writes every page of 4 MiB and drops them with
 * MADV_DONTNEED, over and over, so a page-fault probe samples it without
 * NUMA balancing. Prints, and flushes, one line once the worker runs:
 *   NSPROBE pid=P tid=T
 * (getpid() and the worker's gettid(), in the caller's PID namespace).
 * With -x the thread-group leader then calls pthread_exit(): the process
 * lives on in its worker, with a zombie leader. Ends after SECONDS
 * (default 30).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SIZE (4UL << 20)
#define PAGE 4096UL

static unsigned long secs = 30;
static pid_t worker_tid; /* __atomic: set by the worker */

static void *worker(void *arg)
{
	unsigned char *p;
	time_t end = time(NULL) + (time_t)secs;
	size_t off;

	(void)arg;
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("nsprobe: mmap");
		exit(1);
	}
	__atomic_store_n(&worker_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	while (time(NULL) < end) {
		for (off = 0; off < SIZE; off += PAGE)
			p[off] = (unsigned char)off;
		madvise(p, SIZE, MADV_DONTNEED);
	}
	exit(0);
}

int main(int argc, char **argv)
{
	int leader_exits = 0, opt;
	pthread_t t;

	while ((opt = getopt(argc, argv, "xt:")) != -1) {
		switch (opt) {
		case 'x':
			leader_exits = 1;
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: nsprobe [-x] [-t SECONDS]\n");
			return 2;
		}
	}
	if (pthread_create(&t, NULL, worker, NULL)) {
		fprintf(stderr, "nsprobe: pthread_create failed\n");
		return 1;
	}
	while (!__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	printf("NSPROBE pid=%d tid=%d\n", (int)getpid(),
	       (int)__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE));
	fflush(stdout);
	if (leader_exits)
		pthread_exit(NULL);
	pthread_join(t, NULL);
	return 0;
}
