// SPDX-License-Identifier: GPL-2.0
/*
 * pagestate: what the kernel holds of a range, the ground truth of the
 * schemes tests of the madvise actions.
 *
 *   pagestate PID START END
 *   pagestate -f FILE OFFSET LENGTH
 *
 * The first form reads /proc/PID/pagemap for each 4 KiB page of
 * [START, END) (addresses, 0x hex; root: the frame numbers) and
 * /proc/kpageflags for each frame, and prints one line:
 *   PAGESTATE pages=N present=N active=N lru=N thp=N referenced=N accessed=N
 * present: a frame is mapped; active: on an active LRU list (KPF_ACTIVE:
 * the classic LRU's; the multi-generational LRU does not keep the flag);
 * lru: on an LRU list; thp: part of a transparent huge page (KPF_THP);
 * referenced: KPF_REFERENCED; accessed: KPF_REFERENCED or KPF_ACTIVE (what
 * folio_mark_accessed() leaves: the one set, or the folio activated).
 *
 * The second maps [OFFSET, OFFSET + LENGTH) of FILE and asks mincore(2)
 * which of its pages are in the page cache, whoever maps them:
 *   PAGESTATE pages=N incore=N
 * Exits 1 when a read or the mapping fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define KPF_REFERENCED 2
#define KPF_LRU 5
#define KPF_ACTIVE 6
#define KPF_THP 22

static unsigned long arg(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "pagestate: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int incore(const char *path, unsigned long off, unsigned long len)
{
	unsigned long i, n = len / PAGE, in = 0;
	unsigned char *vec;
	void *p;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "pagestate: %s: %s\n", path, strerror(errno));
		return 1;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	vec = malloc(n + 1);
	if (p == MAP_FAILED || !vec || mincore(p, len, vec)) {
		fprintf(stderr, "pagestate: mincore %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		in += vec[i] & 1;
	printf("PAGESTATE pages=%lu incore=%lu\n", n, in);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long start, end, a, present = 0, active = 0, lru = 0;
	unsigned long thp = 0, referenced = 0, accessed = 0;
	uint64_t pm, flags;
	char path[64];
	int pfd, kfd;

	if (argc == 5 && !strcmp(argv[1], "-f"))
		return incore(argv[2], arg(argv[3]), arg(argv[4]));
	if (argc != 4) {
		fprintf(stderr, "usage: pagestate PID START END\n"
				"       pagestate -f FILE OFFSET LENGTH\n");
		return 2;
	}
	start = arg(argv[2]) & ~(PAGE - 1);
	end = arg(argv[3]);
	snprintf(path, sizeof(path), "/proc/%s/pagemap", argv[1]);
	pfd = open(path, O_RDONLY);
	kfd = open("/proc/kpageflags", O_RDONLY);
	if (pfd < 0 || kfd < 0) {
		fprintf(stderr, "pagestate: %s or /proc/kpageflags: %s\n", path,
			strerror(errno));
		return 1;
	}
	for (a = start; a < end; a += PAGE) {
		if (pread(pfd, &pm, sizeof(pm), (a / PAGE) * sizeof(pm)) !=
		    sizeof(pm)) {
			fprintf(stderr, "pagestate: %s: %s\n", path,
				strerror(errno));
			return 1;
		}
		if (!(pm & PM_PRESENT))
			continue;
		present++;
		if (pread(kfd, &flags, sizeof(flags),
			  (pm & PM_PFN_MASK) * sizeof(flags)) != sizeof(flags))
			continue;
		active += (flags >> KPF_ACTIVE) & 1;
		lru += (flags >> KPF_LRU) & 1;
		thp += (flags >> KPF_THP) & 1;
		referenced += (flags >> KPF_REFERENCED) & 1;
		accessed += !!(flags &
			       (1ULL << KPF_REFERENCED | 1ULL << KPF_ACTIVE));
	}
	printf("PAGESTATE pages=%lu present=%lu active=%lu lru=%lu thp=%lu referenced=%lu accessed=%lu\n",
	       (end - start) / PAGE, present, active, lru, thp, referenced,
	       accessed);
	return 0;
}
