// SPDX-License-Identifier: GPL-2.0
/*
 * pagestate: what the kernel holds of a range, the ground truth of the
 * schemes tests of the madvise actions.
 *
 *   pagestate [-w MS [-m]] PID START END
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
 * -w MS reads the pagemap again and again for MS milliseconds and keeps
 * the frame of each page seen mapped at any time, then reads the flags of
 * every frame it learned: the state of a file's pages that the process
 * maps and drops all the time (the workload's -f), whose page-cache
 * frames stay while they are unmapped. present counts the pages whose
 * frame was learned. -m prints a second line, one character per page:
 *   PAGEMASK A.i...
 * A active, i on an LRU list but not active, . frame not learned or not
 * on an LRU list.
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
#include <time.h>
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

static int read_at(int fd, void *buf, size_t len, off_t off, const char *path)
{
	if (pread(fd, buf, len, off) == (ssize_t)len)
		return 0;
	fprintf(stderr, "pagestate: %s: %s\n", path, strerror(errno));
	return 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	unsigned long start, end, i, n, present = 0, active = 0, lru = 0;
	unsigned long thp = 0, wait_ms = 0, referenced = 0, accessed = 0;
	uint64_t *pm, *pfn, flags, t_end;
	char path[64], *mask = NULL;
	int pfd, kfd, opt, want_mask = 0;

	if (argc == 5 && !strcmp(argv[1], "-f"))
		return incore(argv[2], arg(argv[3]), arg(argv[4]));
	while ((opt = getopt(argc, argv, "w:m")) != -1) {
		if (opt == 'w') {
			wait_ms = arg(optarg);
		} else if (opt == 'm') {
			want_mask = 1;
		} else {
			optind = argc + 1;
			break;
		}
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: pagestate [-w MS [-m]] PID START END\n"
				"       pagestate -f FILE OFFSET LENGTH\n");
		return 2;
	}
	start = arg(argv[optind + 1]) & ~(PAGE - 1);
	end = arg(argv[optind + 2]);
	n = end > start ? (end - start + PAGE - 1) / PAGE : 0;
	snprintf(path, sizeof(path), "/proc/%s/pagemap", argv[optind]);
	pfd = open(path, O_RDONLY);
	kfd = open("/proc/kpageflags", O_RDONLY);
	if (pfd < 0 || kfd < 0) {
		fprintf(stderr, "pagestate: %s or /proc/kpageflags: %s\n", path,
			strerror(errno));
		return 1;
	}
	pm = calloc(n + 1, sizeof(*pm));
	pfn = calloc(n + 1, sizeof(*pfn));
	mask = calloc(n + 1, 1);
	if (!pm || !pfn || !mask) {
		fprintf(stderr, "pagestate: out of memory\n");
		return 1;
	}
	/* pfn[i]: the frame of page i plus one, 0 while none was seen */
	t_end = now_ms() + wait_ms;
	do {
		if (n && read_at(pfd, pm, n * sizeof(*pm),
				 (off_t)(start / PAGE * sizeof(*pm)), path))
			return 1;
		for (i = 0; i < n; i++)
			if (pm[i] & PM_PRESENT)
				pfn[i] = (pm[i] & PM_PFN_MASK) + 1;
	} while (wait_ms && now_ms() < t_end && !usleep(1000));
	for (i = 0; i < n; i++) {
		mask[i] = '.';
		if (!pfn[i])
			continue;
		present++;
		if (pread(kfd, &flags, sizeof(flags),
			  (off_t)((pfn[i] - 1) * sizeof(flags))) !=
		    sizeof(flags))
			continue;
		active += (flags >> KPF_ACTIVE) & 1;
		lru += (flags >> KPF_LRU) & 1;
		thp += (flags >> KPF_THP) & 1;
		referenced += (flags >> KPF_REFERENCED) & 1;
		accessed += !!(flags &
			       (1ULL << KPF_REFERENCED | 1ULL << KPF_ACTIVE));
		if ((flags >> KPF_ACTIVE) & 1)
			mask[i] = 'A';
		else if ((flags >> KPF_LRU) & 1)
			mask[i] = 'i';
	}
	printf("PAGESTATE pages=%lu present=%lu active=%lu lru=%lu thp=%lu referenced=%lu accessed=%lu\n",
	       n, present, active, lru, thp, referenced, accessed);
	if (want_mask)
		printf("PAGEMASK %s\n", mask);
	return 0;
}
