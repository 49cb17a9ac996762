// SPDX-License-Identifier: GPL-2.0
/*
 * perfring: page faults sampled by perf's own path, the reference against
 * which make bench sets damon_perf's handler (tests/vm/bench/share.sh).
 *
 *   perfring [-p PAGES] [-r ROUNDS] [-w FILE] [-n]
 *
 * Opens, on itself, the event damon_perf's page-fault probe opens (software
 * page faults, sample_period 1, exclude_kernel, sample_type TIME | ADDR |
 * DATA_SRC as build_attr() in kmod/perf_source.c makes it) with a ring
 * buffer of 64 pages, as perf record would: each fault's sample goes
 * through perf_event_output_forward(), perf_prepare_sample() and
 * perf_output_sample() into the ring. Then ROUNDS times maps PAGES
 * anonymous pages (no huge pages: a fault each), writes one byte to each
 * and unmaps them, emptying the ring every 256 pages. -n: no event (the
 * baseline). With -w it first waits until
 * FILE exists (so that a monitor can attach to its PID). Prints
 *   PERFRING event=0|1 faults=N samples=N lost=N cpu_ns=N
 * faults: the pages touched; samples: PERF_RECORD_SAMPLE records read;
 * lost: the samples PERF_RECORD_LOST records name; cpu_ns: the process's
 * CPU time over the rounds (CLOCK_PROCESS_CPUTIME_ID), the ring's
 * draining included. Exits 1 on an error.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DATA_PAGES 64

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;
	unsigned long long samples, lost;
};

/* Read every record between data_tail and data_head, then free them. */
static void drain(struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % r->size, i;
		unsigned char *p = (unsigned char *)&h;

		/* a header may wrap around the end of the buffer */
		for (i = 0; i < sizeof(h); i++)
			p[i] = r->data[(off + i) % r->size];
		if (h.type == PERF_RECORD_SAMPLE) {
			r->samples++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t lost;

			for (i = 0; i < sizeof(lost); i++)
				((unsigned char *)&lost)[i] =
					r->data[(off + sizeof(h) + 8 + i) %
						r->size];
			r->lost += lost;
		}
		if (!h.size)
			break;
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long pages = 4096, rounds = 8, psz = sysconf(_SC_PAGESIZE);
	unsigned long long faults = 0;
	struct ring r = { 0 };
	const char *wait = NULL;
	int fd = -1, c, event = 1;
	struct timespec t0, t1;
	long round;
	void *m;

	while ((c = getopt(argc, argv, "p:r:w:n")) != -1) {
		switch (c) {
		case 'p':
			pages = strtol(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 0);
			break;
		case 'w':
			wait = optarg;
			break;
		case 'n':
			event = 0;
			break;
		default:
			fprintf(stderr,
				"usage: perfring [-p PAGES] [-r ROUNDS] [-w FILE] [-n]\n");
			return 1;
		}
	}
	if (pages < 1 || rounds < 1) {
		fprintf(stderr,
			"perfring: PAGES and ROUNDS must be positive\n");
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			   PERF_SAMPLE_DATA_SRC;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	if (event) {
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0) {
			perror("perfring: perf_event_open");
			return 1;
		}
		r.size = DATA_PAGES * psz;
		m = mmap(NULL, r.size + psz, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		if (m == MAP_FAILED) {
			perror("perfring: mmap of the ring");
			return 1;
		}
		r.meta = m;
		r.data = (unsigned char *)m + r.meta->data_offset;
		/* its pages faulted in (read-only) before the clock starts */
		for (size_t off = 0; off < r.size; off += psz)
			(void)*(volatile unsigned char *)(r.data + off);
	}
	while (wait && access(wait, F_OK))
		usleep(10000);
	if (event)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (round = 0; round < rounds; round++) {
		unsigned char *buf = mmap(NULL, pages * psz,
					  PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long i;

		if (buf == MAP_FAILED) {
			perror("perfring: mmap");
			return 1;
		}
		madvise(buf, pages * psz, MADV_NOHUGEPAGE);
		for (i = 0; i < pages; i++) {
			buf[i * psz] = 1;
			/* the ring holds fewer samples than a round faults */
			if (event && !(i & 255))
				drain(&r);
		}
		faults += pages;
		munmap(buf, pages * psz);
		if (event)
			drain(&r);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	if (event) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		drain(&r);
	}
	printf("PERFRING event=%d faults=%llu samples=%llu lost=%llu cpu_ns=%lld\n",
	       event, faults, r.samples, r.lost,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
