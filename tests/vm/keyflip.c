// SPDX-License-Identifier: GPL-2.0
/*
 * keyflip: flip the page-fault software event's static key while every CPU
 * takes page faults, without damon_perf.
 *
 *   keyflip [-n OPENS] [-p PAGES] [-w FILE]
 *
 * Starts one process per online CPU, pinned to it, that maps PAGES (default
 * 16) anonymous pages once and then, until told to stop, writes a byte to
 * each and drops them again with madvise(MADV_DONTNEED): every write is a
 * page fault through do_user_addr_fault(), which holds the
 * perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS) static branch. Meanwhile the
 * main thread opens and closes a PERF_TYPE_SOFTWARE /
 * PERF_COUNT_SW_PAGE_FAULTS counter OPENS times (default 1000). With no
 * other such counter in the system, each open turns the key
 * perf_swevent_enabled[PERF_COUNT_SW_PAGE_FAULTS] on and each close turns
 * it off: two text_poke_bp() patches of every site of the branch per
 * round, under the feet of the faulting CPUs. (Processes, not threads: in
 * one mm each MADV_DONTNEED would send a TLB shootdown IPI to the other
 * CPUs, which under TCG costs more than the fault.)
 *
 * -n 0: no counter, fault only: a workload on whose PID damon_perf's
 * page-fault probes can be opened and closed instead. Then with -w the
 * processes fault until FILE exists; without, until killed.
 *
 * Prints "KEYFLIP pid=N cpus=N faulter=N" (the first faulting process)
 * once the processes run, "KEYFLIP opens=N"
 * every 100 opens, and at the end
 *   KEYFLIP opens=N flips=N faults=N ms=N
 * flips being 2 x opens (the patches, if no other page-fault counter
 * exists), faults the pages the processes touched, ms the time the opens
 * took (information only). Exits 1 on an error.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* shared with the faulting processes */
struct shared {
	int stop;
	unsigned long long faults;
};

static long pages = 16, psz;

static void faulter(struct shared *sh, int cpu)
{
	unsigned long long n = 0;
	unsigned char *buf;
	cpu_set_t set;
	long i;

	/* not left faulting if the parent is killed */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* best effort: a CPU gone offline meanwhile still faults elsewhere */
	sched_setaffinity(0, sizeof(set), &set);
	buf = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("keyflip: mmap");
		_exit(1);
	}
	madvise(buf, pages * psz, MADV_NOHUGEPAGE);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < pages; i++)
			buf[i * psz] = 1;
		n += pages;
		madvise(buf, pages * psz, MADV_DONTNEED);
	}
	__atomic_fetch_add(&sh->faults, n, __ATOMIC_RELAXED);
	_exit(0);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long opens = 1000, done = 0, ncpu, i;
	struct perf_event_attr attr;
	const char *wait = NULL;
	struct shared *sh;
	int c, bad = 0;
	long long t0;
	pid_t *pids;

	psz = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "n:p:w:")) != -1) {
		switch (c) {
		case 'n':
			opens = strtol(optarg, NULL, 0);
			break;
		case 'p':
			pages = strtol(optarg, NULL, 0);
			break;
		case 'w':
			wait = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: keyflip [-n OPENS] [-p PAGES] [-w FILE]\n");
			return 1;
		}
	}
	if (opens < 0 || pages < 1) {
		fprintf(stderr, "keyflip: OPENS >= 0 and PAGES > 0\n");
		return 1;
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(ncpu, sizeof(*pids));
	if (sh == MAP_FAILED || !pids)
		return 1;
	for (i = 0; i < ncpu; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("keyflip: fork");
			return 1;
		}
		if (!pids[i])
			faulter(sh, (int)i);
	}
	printf("KEYFLIP pid=%d cpus=%ld faulter=%d\n", getpid(), ncpu,
	       (int)pids[0]);
	fflush(stdout);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	if (!opens) {
		for (;;) {
			if (wait && !access(wait, F_OK))
				break;
			usleep(10000);
		}
	}
	t0 = now_ms();
	for (done = 0; done < opens; done++) {
		/* this process, any CPU: perf_swevent_init() takes the key */
		int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

		if (fd < 0) {
			perror("keyflip: perf_event_open");
			break;
		}
		/* the release drops it again (sw_perf_event_destroy()) */
		close(fd);
		if (done && !(done % 100)) {
			printf("KEYFLIP opens=%ld\n", done);
			fflush(stdout);
		}
	}
	t0 = now_ms() - t0;
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < ncpu; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	}
	printf("KEYFLIP opens=%ld flips=%ld faults=%llu ms=%lld\n", done,
	       2 * done, sh->faults, t0);
	return done == opens && !bad ? 0 : 1;
}
