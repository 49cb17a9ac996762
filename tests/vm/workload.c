// SPDX-License-Identifier: GPL-2.0
/*
 * workload: a memory access pattern with a known hot range, for the VM tests
 * and the demo.
 *
 *   workload [-s TOTAL_MB] [-o HOT_OFF_MB] [-h HOT_MB] [-t SECONDS]
 *            [-n THREADS] [-w] [-f]
 *
 * Maps TOTAL_MB of anonymous memory (no transparent huge pages, so each 4 KiB
 * page is its own NUMA hinting fault; where madvise() is missing, the
 * caller sets /sys/kernel/mm/transparent_hugepage/enabled to never), touches all of it once, then loops
 * over [HOT_OFF_MB, HOT_OFF_MB + HOT_MB) with THREADS threads (default 2: a
 * single thread touching only pages local to it gets no NUMA hinting
 * faults) until SECONDS have passed (0: until killed). -w makes the loop
 * write instead of read. -f drops the hot range (MADV_DONTNEED) after each
 * pass of thread 0, so that every touch of the next pass is a page fault:
 * a steady stream of faults without NUMA balancing.
 *
 * Prints one parseable line before the loop starts, and flushes it:
 *   WORKLOAD pid=123 base=0x7f.. size=0x.. hot_start=0x7f.. hot_end=0x7f..
 * and when it ends:
 *   WORKLOAD done pid=123 passes=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MB (1024UL * 1024UL)
#define PAGE 4096UL

static volatile sig_atomic_t stop;
static unsigned char *hot;
static size_t hot_len;
static int do_write;
static int do_refault;
static unsigned long passes[64];

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *loop(void *arg)
{
	unsigned long idx = (unsigned long)arg;
	volatile unsigned char *p = hot;
	unsigned long sum = 0;
	size_t off;

	while (!stop) {
		/* Every page, one cache line per page, in page order. */
		for (off = 0; off < hot_len && !stop; off += PAGE) {
			if (do_write)
				p[off] = (unsigned char)(off + idx);
			else
				sum += p[off];
		}
		passes[idx]++;
		if (do_refault && !idx)
			madvise(hot, hot_len, MADV_DONTNEED);
	}
	return (void *)sum;
}

static unsigned long arg_ul(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "workload: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long total_mb = 64, hot_off_mb = 16, hot_mb = 8, secs = 10;
	unsigned long nthreads = 2, i, all = 0;
	pthread_t tids[64];
	struct sigaction sa;
	unsigned char *base;
	size_t size;
	int opt;

	while ((opt = getopt(argc, argv, "s:o:h:t:n:wf")) != -1) {
		switch (opt) {
		case 's': total_mb = arg_ul(optarg, "size"); break;
		case 'o': hot_off_mb = arg_ul(optarg, "hot offset"); break;
		case 'h': hot_mb = arg_ul(optarg, "hot size"); break;
		case 't': secs = arg_ul(optarg, "duration"); break;
		case 'n': nthreads = arg_ul(optarg, "threads"); break;
		case 'w': do_write = 1; break;
		case 'f': do_refault = 1; break;
		default:
			fprintf(stderr, "usage: %s [-s TOTAL_MB] [-o HOT_OFF_MB] "
				"[-h HOT_MB] [-t SECONDS] [-n THREADS] [-w] [-f]\n",
				argv[0]);
			return 2;
		}
	}
	if (!total_mb || !hot_mb || hot_off_mb + hot_mb > total_mb ||
	    !nthreads || nthreads > 64) {
		fprintf(stderr, "workload: need 0 < hot range within total, "
			"1..64 threads\n");
		return 2;
	}

	size = total_mb * MB;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("workload: mmap");
		return 1;
	}
	/* EINVAL: no THP in this kernel; ENOSYS: no madvise (tinyconfig). */
	if (madvise(base, size, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		perror("workload: madvise");
		return 1;
	}
	memset(base, 1, size);
	hot = base + hot_off_mb * MB;
	hot_len = hot_mb * MB;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	printf("WORKLOAD pid=%d base=%p size=0x%zx hot_start=%p hot_end=%p\n",
	       (int)getpid(), (void *)base, size, (void *)hot,
	       (void *)(hot + hot_len));
	fflush(stdout);

	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&tids[i], NULL, loop, (void *)i)) {
			fprintf(stderr, "workload: pthread_create failed\n");
			return 1;
		}
	}
	if (secs) {
		struct timespec end, now;

		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += secs;
		do {
			usleep(100 * 1000);
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (!stop && (now.tv_sec < end.tv_sec ||
			 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec)));
		stop = 1;
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		all += passes[i];
	}
	printf("WORKLOAD done pid=%d passes=%lu\n", (int)getpid(), all);
	return 0;
}
