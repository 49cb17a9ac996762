// SPDX-License-Identifier: GPL-2.0
/*
 * workload: a memory access pattern with known hot ranges, for the VM tests,
 * the accuracy harness and the demo.
 *
 *   workload [-s TOTAL_MB] [-o HOT_OFF_MB] [-h HOT_MB] [-t SECONDS]
 *            [-n THREADS] [-w] [-f] [-r RANGE]... [-m SECS:OFF_MB]
 *            [-P PROCS] [-N NODE | -S NODE] [-F FILE [-a] [-T]] [-H]
 *            [-b MB:NODE]
 *
 * Maps TOTAL_MB of anonymous memory (no transparent huge pages, so each 4 KiB
 * page is its own NUMA hinting fault; where madvise() is missing, the
 * caller sets /sys/kernel/mm/transparent_hugepage/enabled to never), touches
 * all of it once, then THREADS threads (default 2: a single thread touching
 * only pages local to it gets no NUMA hinting faults) loop over the hot
 * ranges until SECONDS have passed (0: until killed).
 *
 * Without -r there is one hot range, [HOT_OFF_MB, HOT_OFF_MB + HOT_MB),
 * read (written with -w), in page order, all the time. Each -r adds a hot
 * range instead (at most 8):
 *
 *   -r OFF_KB,SIZE_KB[,WEIGHT[,r|w[,seq|rand]]]
 *
 * in KiB from the start of the mapping (multiples of 4). WEIGHT 1..10 is
 * its intensity: the range is touched in WEIGHT of every 10 slots of
 * 100 ms (default 10: always); r reads and w writes it (default: -w);
 * seq walks its pages in order, rand in a random order (default seq).
 * -m SECS:OFF_MB moves the first range to OFF_MB after SECS seconds (a
 * phase change), or at SIGUSR2 if that comes first. -f drops the hot ranges (MADV_DONTNEED) after each pass of
 * thread 0, so that every touch of the next pass is a page fault: a steady
 * stream of faults without NUMA balancing. -P PROCS (1..8, default 1)
 * runs PROCS processes, each with its own mapping of TOTAL_MB, the same
 * hot ranges and THREADS threads: the first PROCS - 1 are children
 * (ended with the parent: SIGTERM to the parent ends them all), and the
 * parent prints its own lines after every child printed its own, so its
 * "WORKLOAD pid=" line (pid = $! of the caller) says all are running.
 * SIGUSR1 reports the parent's passes only. -N NODE places the memory on
 * NUMA node NODE: each process binds itself to it (set_mempolicy(2)
 * MPOL_BIND, with MPOL_F_NUMA_BALANCING where the kernel has it, 5.12+)
 * before it maps and touches anything, so NUMA balancing still scans the
 * mapping (hinting faults: samples for a page-fault probe) but moves a
 * page only when the faulting CPU is on NODE; move_pages(2) moves pages
 * anywhere, and the pages a thread faults in again (-f) come from NODE.
 * -S NODE starts the memory on NODE as -N does, then drops the binding
 * (MPOL_DEFAULT) once every page is touched, before the threads start:
 * the kernel may then move any page (NUMA balancing, memory tiering's
 * promotion and demotion), and pages faulted in again come from the
 * faulting CPU's node.
 *
 * -F FILE maps the first TOTAL_MB of FILE (MAP_SHARED, read and write;
 * the file must be that long) instead of anonymous memory, with
 * MADV_RANDOM: a fault reads only its own page into the page cache, so
 * what is resident is what was touched. The first touch reads every page.
 * -a reads FILE twice with read(2) before mapping it: each page-cache
 * page marked accessed twice (on the classic LRU: active). -T skips the
 * first touch: only the hot ranges are ever touched. -H leaves transparent
 * huge pages to the system (no MADV_NOHUGEPAGE) and aligns the anonymous
 * mapping to 2 MiB, so that MADV_COLLAPSE can collapse it.
 *
 * -b MB:NODE adds cold ballast: a second anonymous mapping of MB, its
 * pages preferred from NODE (mbind(2) MPOL_PREFERRED: where NODE runs
 * out they come from another node, never an OOM kill), touched once
 * before the threads start and never again, its policy dropped after the
 * touch. It fills a fast node with cold data of the workload's own, so
 * that promoting the hot ranges needs demoting some of it.
 *
 * Ground truth, one parseable line each, flushed before the loop starts:
 *   WORKLOAD pid=123 base=0x7f.. size=0x.. hot_start=0x7f.. hot_end=0x7f..
 *   WORKLOAD range i=0 start=0x7f.. end=0x7f.. weight=10 access=r order=seq pid=123
 *   ... one range line per hot range (hot_start/hot_end: range 0)
 *   WORKLOAD bind node=1 numa_balancing=1 pid=123   (with -N)
 *   WORKLOAD bind node=1 numa_balancing=1 released=1 pid=123   (with -S)
 *   WORKLOAD ballast start=0x7f.. end=0x7f.. node=0 pid=123   (with -b)
 * at a phase change (t_ns: CLOCK_MONOTONIC, as damonctl's time_ns):
 *   WORKLOAD move i=0 start=0x7f.. end=0x7f.. weight=10 access=r order=seq pid=123 t_ns=123456789
 * on SIGUSR1 (within 10 ms; the benchmarks' progress counter):
 *   WORKLOAD progress pid=123 passes=N t_ns=123456789
 * and when it ends:
 *   WORKLOAD done pid=123 passes=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB (1024UL * 1024UL)
#define HPAGE (2 * MB)
#define KB 1024UL
#define PAGE 4096UL
#define MAX_RANGES 8
#define SLOT_MS 100
#define SLOTS 10
#define MAX_PROCS 8

struct range {
	unsigned char *start; /* moves at a phase change: atomic pointer */
	size_t len;
	unsigned int weight; /* active slots out of SLOTS */
	int write;
	int random;
};

static volatile sig_atomic_t stop, progress, move_now;
static struct range ranges[MAX_RANGES];
static unsigned int nr_ranges;
static unsigned long passes[64];
static int do_refault;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_progress(int sig)
{
	(void)sig;
	progress = 1;
}

static void on_move(int sig)
{
	(void)sig;
	move_now = 1;
}

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT 0
#endif
#ifndef MPOL_BIND
#define MPOL_BIND 2
#endif
#ifndef MPOL_F_NUMA_BALANCING
#define MPOL_F_NUMA_BALANCING (1 << 13)
#endif

#ifndef MPOL_PREFERRED
#define MPOL_PREFERRED 1
#endif

static void node_mask(unsigned long node, unsigned long *mask,
		      unsigned long bits)
{
	if (node >= bits) {
		fprintf(stderr, "workload: node %lu above %lu\n", node,
			bits - 1);
		exit(2);
	}
	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
}

/* -b: @size of cold memory preferred from @node, touched once */
static unsigned char *ballast(size_t size, unsigned long node)
{
	unsigned long mask[16] = { 0 };
	unsigned long bits = sizeof(mask) * 8;
	unsigned char *p;

	node_mask(node, mask, bits);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("workload: mmap (ballast)");
		exit(1);
	}
	if (madvise(p, size, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		perror("workload: madvise (ballast)");
		exit(1);
	}
	if (syscall(SYS_mbind, p, size, MPOL_PREFERRED, mask, bits + 1, 0)) {
		fprintf(stderr,
			"workload: mbind(MPOL_PREFERRED, node %lu): %s\n", node,
			strerror(errno));
		exit(2);
	}
	memset(p, 2, size);
	if (syscall(SYS_mbind, p, size, MPOL_DEFAULT, NULL, 0, 0)) {
		perror("workload: mbind(MPOL_DEFAULT)");
		exit(1);
	}
	return p;
}

/* -N: this process's memory from @node only; 1 with NUMA balancing's flag */
static int bind_node(unsigned long node)
{
	unsigned long mask[16] = { 0 };
	unsigned long bits = sizeof(mask) * 8;

	node_mask(node, mask, bits);
	if (!syscall(SYS_set_mempolicy, MPOL_BIND | MPOL_F_NUMA_BALANCING, mask,
		     bits + 1))
		return 1;
	if (!syscall(SYS_set_mempolicy, MPOL_BIND, mask, bits + 1))
		return 0;
	fprintf(stderr, "workload: set_mempolicy(MPOL_BIND, node %lu): %s\n",
		node, strerror(errno));
	exit(2);
}

/* Passes so far, summed over the threads (each counter is one writer's). */
static unsigned long passes_now(unsigned long nthreads)
{
	unsigned long i, all = 0;

	for (i = 0; i < nthreads; i++)
		all += __atomic_load_n(&passes[i], __ATOMIC_RELAXED);
	return all;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int active(const struct range *r)
{
	if (r->weight >= SLOTS)
		return 1;
	return (now_ns() / (SLOT_MS * 1000000ULL)) % SLOTS < r->weight;
}

/* One pass over @r: every page once, one cache line per page. */
static unsigned long walk(struct range *r, unsigned long idx, uint64_t *rnd)
{
	volatile unsigned char *p =
		__atomic_load_n(&r->start, __ATOMIC_ACQUIRE);
	size_t pages = r->len / PAGE, i, off;
	unsigned long sum = 0;

	for (i = 0; i < pages && !stop; i++) {
		if (r->random) {
			/* xorshift64: a different page order every pass */
			*rnd ^= *rnd << 13;
			*rnd ^= *rnd >> 7;
			*rnd ^= *rnd << 17;
			off = (*rnd % pages) * PAGE;
		} else {
			off = i * PAGE;
		}
		if (r->write)
			p[off] = (unsigned char)(off + idx);
		else
			sum += p[off];
	}
	return sum;
}

static void *loop(void *arg)
{
	unsigned long idx = (unsigned long)arg;
	uint64_t rnd = 0x9e3779b97f4a7c15ULL * (idx + 1);
	unsigned long sum = 0;
	unsigned int i;
	int any;

	while (!stop) {
		any = 0;
		for (i = 0; i < nr_ranges && !stop; i++) {
			if (!active(&ranges[i]))
				continue;
			sum += walk(&ranges[i], idx, &rnd);
			any = 1;
		}
		if (any)
			passes[idx]++;
		else
			usleep(1000);
		for (i = 0; do_refault && !idx && i < nr_ranges; i++)
			madvise(__atomic_load_n(&ranges[i].start,
						__ATOMIC_ACQUIRE),
				ranges[i].len, MADV_DONTNEED);
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

struct spec {
	unsigned long off_kb, size_kb, weight;
	int write, random;
};

/* OFF_KB,SIZE_KB[,WEIGHT[,r|w[,seq|rand]]] */
static void parse_range(char *s, struct spec *sp, int dflt_write)
{
	char *f[5] = { NULL }, *tok;
	int n = 0;

	sp->weight = SLOTS;
	sp->write = dflt_write;
	sp->random = 0;
	for (tok = strtok(s, ","); tok && n < 5; tok = strtok(NULL, ","))
		f[n++] = tok;
	if (n < 2 || tok) {
		fprintf(stderr,
			"workload: -r OFF_KB,SIZE_KB[,WEIGHT[,r|w[,seq|rand]]]\n");
		exit(2);
	}
	sp->off_kb = arg_ul(f[0], "range offset");
	sp->size_kb = arg_ul(f[1], "range size");
	if (f[2])
		sp->weight = arg_ul(f[2], "range weight");
	if (f[3] && strcmp(f[3], "r") && strcmp(f[3], "w")) {
		fprintf(stderr, "workload: range access must be r or w\n");
		exit(2);
	}
	if (f[3])
		sp->write = !strcmp(f[3], "w");
	if (f[4] && strcmp(f[4], "seq") && strcmp(f[4], "rand")) {
		fprintf(stderr, "workload: range order must be seq or rand\n");
		exit(2);
	}
	if (f[4])
		sp->random = !strcmp(f[4], "rand");
	if (!sp->size_kb || sp->off_kb % 4 || sp->size_kb % 4 || !sp->weight ||
	    sp->weight > SLOTS) {
		fprintf(stderr, "workload: range offset and size in 4 KiB "
				"multiples, size > 0, weight 1..10\n");
		exit(2);
	}
}

static void print_range(const char *what, unsigned int i)
{
	const struct range *r = &ranges[i];

	printf("WORKLOAD %s i=%u start=%p end=%p weight=%u access=%s "
	       "order=%s pid=%d",
	       what, i, (void *)r->start, (void *)(r->start + r->len),
	       r->weight, r->write ? "w" : "r", r->random ? "rand" : "seq",
	       (int)getpid());
}

/* -F: the first @size bytes of @path, shared; -a: read twice first */
static unsigned char *map_file(const char *path, size_t size, int twice)
{
	/* a page per read(2): filemap_read() marks only a call's first page */
	static char buf[PAGE];
	unsigned char *p;
	int fd, pass;
	ssize_t n;

	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (pass = 0; twice && pass < 2; pass++) {
		if (lseek(fd, 0, SEEK_SET)) {
			perror("workload: lseek");
			exit(1);
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0) {
			perror("workload: read");
			exit(1);
		}
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("workload: mmap");
		exit(1);
	}
	close(fd);
	if (madvise(p, size, MADV_RANDOM)) {
		perror("workload: madvise(MADV_RANDOM)");
		exit(1);
	}
	return p;
}

/* anonymous memory; -H: 2 MiB aligned, THP as the system says */
static unsigned char *map_anon(size_t size, int thp)
{
	unsigned char *p;
	uintptr_t a;

	p = mmap(NULL, size + (thp ? HPAGE : 0), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("workload: mmap");
		exit(1);
	}
	if (thp) {
		a = ((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1);
		if (a > (uintptr_t)p)
			munmap(p, a - (uintptr_t)p);
		if (a + size < (uintptr_t)p + size + HPAGE)
			munmap((void *)(a + size),
			       (uintptr_t)p + size + HPAGE - a - size);
		return (unsigned char *)a;
	}
	/* EINVAL: no THP in this kernel; ENOSYS: no madvise (tinyconfig). */
	if (madvise(p, size, MADV_NOHUGEPAGE) && errno != EINVAL &&
	    errno != ENOSYS) {
		perror("workload: madvise");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	unsigned long total_mb = 64, hot_off_mb = 16, hot_mb = 8, secs = 10;
	unsigned long nthreads = 2, i, all = 0, move_secs = 0, move_off_mb = 0;
	unsigned long nprocs = 1, node = 0, ballast_mb = 0, ballast_node = 0;
	unsigned char *ballast_p = NULL;
	int bind = 0, balanced = 0, twice = 0, notouch = 0, thp = 0;
	const char *file = NULL;
	pid_t kids[MAX_PROCS];
	int ready[2] = { -1, -1 };
	char c;
	struct spec specs[MAX_RANGES];
	unsigned int nr_specs = 0;
	int do_write = 0, move = 0, release = 0;
	pthread_t tids[64];
	struct sigaction sa;
	unsigned char *base;
	char *colon;
	size_t size;
	int opt;

	while ((opt = getopt(argc, argv, "s:o:h:t:n:wfr:m:P:N:S:F:aTHb:")) !=
	       -1) {
		switch (opt) {
		case 's':
			total_mb = arg_ul(optarg, "size");
			break;
		case 'o':
			hot_off_mb = arg_ul(optarg, "hot offset");
			break;
		case 'h':
			hot_mb = arg_ul(optarg, "hot size");
			break;
		case 't':
			secs = arg_ul(optarg, "duration");
			break;
		case 'n':
			nthreads = arg_ul(optarg, "threads");
			break;
		case 'w':
			do_write = 1;
			break;
		case 'P':
			nprocs = arg_ul(optarg, "processes");
			break;
		case 'f':
			do_refault = 1;
			break;
		case 'N':
		case 'S':
			node = arg_ul(optarg, "node");
			bind = 1;
			release = opt == 'S';
			break;
		case 'F':
			file = optarg;
			break;
		case 'a':
			twice = 1;
			break;
		case 'T':
			notouch = 1;
			break;
		case 'H':
			thp = 1;
			break;
		case 'r':
			if (nr_specs == MAX_RANGES) {
				fprintf(stderr, "workload: at most 8 ranges\n");
				return 2;
			}
			/* -w applies to ranges given after it, too */
			parse_range(optarg, &specs[nr_specs++], -1);
			break;
		case 'b':
			colon = strchr(optarg, ':');
			if (!colon) {
				fprintf(stderr, "workload: -b MB:NODE\n");
				return 2;
			}
			*colon = '\0';
			ballast_mb = arg_ul(optarg, "ballast size");
			ballast_node = arg_ul(colon + 1, "ballast node");
			if (!ballast_mb) {
				fprintf(stderr, "workload: -b needs MB > 0\n");
				return 2;
			}
			break;
		case 'm':
			colon = strchr(optarg, ':');
			if (!colon) {
				fprintf(stderr, "workload: -m SECS:OFF_MB\n");
				return 2;
			}
			*colon = '\0';
			move_secs = arg_ul(optarg, "move time");
			move_off_mb = arg_ul(colon + 1, "move offset");
			move = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s TOTAL_MB] [-o HOT_OFF_MB] "
				"[-h HOT_MB] [-t SECONDS] [-n THREADS] [-w] [-f] "
				"[-r OFF_KB,SIZE_KB[,WEIGHT[,r|w[,seq|rand]]]]... "
				"[-m SECS:OFF_MB] [-P PROCS] [-N NODE | -S NODE] "
				"[-F FILE [-a] [-T]] [-H] [-b MB:NODE]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nr_specs) {
		specs[0].off_kb = hot_off_mb * 1024;
		specs[0].size_kb = hot_mb * 1024;
		specs[0].weight = SLOTS;
		specs[0].write = do_write;
		specs[0].random = 0;
		nr_specs = 1;
		if (!hot_mb) {
			fprintf(stderr, "workload: need 0 < hot range within "
					"total, 1..64 threads\n");
			return 2;
		}
	}
	for (i = 0; i < nr_specs; i++) {
		if (specs[i].write < 0)
			specs[i].write = do_write;
		if (specs[i].off_kb + specs[i].size_kb > total_mb * 1024) {
			fprintf(stderr, "workload: need 0 < hot range within "
					"total, 1..64 threads\n");
			return 2;
		}
	}
	if (move && move_off_mb * 1024 + specs[0].size_kb > total_mb * 1024) {
		fprintf(stderr, "workload: the moved range must stay within "
				"total\n");
		return 2;
	}
	if (!nprocs || nprocs > MAX_PROCS) {
		fprintf(stderr, "workload: 1..8 processes\n");
		return 2;
	}
	if (!total_mb || !nthreads || nthreads > 64) {
		fprintf(stderr, "workload: need 0 < hot range within total, "
				"1..64 threads\n");
		return 2;
	}

	/* the children: each its own mapping; one byte each when it printed */
	if (nprocs > 1 && pipe(ready)) {
		perror("workload: pipe");
		return 1;
	}
	fflush(stdout);
	for (i = 0; i + 1 < nprocs; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("workload: fork");
			return 1;
		}
		if (!kids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			close(ready[0]);
			nprocs = 0; /* a child: no children of its own */
			break;
		}
	}
	if (nprocs > 1)
		close(ready[1]);

	if (bind)
		balanced = bind_node(node);
	size = total_mb * MB;
	if (file) {
		base = map_file(file, size, twice);
		for (i = 0; !notouch && i < size; i += PAGE)
			all += ((volatile unsigned char *)base)[i];
	} else {
		base = map_anon(size, thp);
		if (!notouch)
			memset(base, 1, size);
	}
	if (ballast_mb)
		ballast_p = ballast(ballast_mb * MB, ballast_node);
	if (release && syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0)) {
		perror("workload: set_mempolicy(MPOL_DEFAULT)");
		return 1;
	}
	for (i = 0; i < nr_specs; i++) {
		ranges[i].start = base + specs[i].off_kb * KB;
		ranges[i].len = specs[i].size_kb * KB;
		ranges[i].weight = specs[i].weight;
		ranges[i].write = specs[i].write;
		ranges[i].random = specs[i].random;
	}
	nr_ranges = nr_specs;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_progress;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_move;
	sigaction(SIGUSR2, &sa, NULL);

	/* the parent prints last: its line says every process runs */
	for (i = 0; nprocs > 1 && i + 1 < nprocs; i++) {
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "workload: a child did not start\n");
			return 1;
		}
	}
	printf("WORKLOAD pid=%d base=%p size=0x%zx hot_start=%p hot_end=%p\n",
	       (int)getpid(), (void *)base, size, (void *)ranges[0].start,
	       (void *)(ranges[0].start + ranges[0].len));
	for (i = 0; i < nr_ranges; i++) {
		print_range("range", i);
		printf("\n");
	}
	if (bind)
		printf("WORKLOAD bind node=%lu numa_balancing=%d%s pid=%d\n",
		       node, balanced, release ? " released=1" : "",
		       (int)getpid());
	if (ballast_p)
		printf("WORKLOAD ballast start=%p end=%p node=%lu pid=%d\n",
		       (void *)ballast_p, (void *)(ballast_p + ballast_mb * MB),
		       ballast_node, (int)getpid());
	fflush(stdout);
	if (!nprocs) { /* a child: say so, and let a failed sibling's EOF show */
		if (write(ready[1], "", 1) != 1)
			return 1;
		close(ready[1]);
	}

	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&tids[i], NULL, loop, (void *)i)) {
			fprintf(stderr, "workload: pthread_create failed\n");
			return 1;
		}
	}
	{
		uint64_t start = now_ns(), t;

		while (!stop) {
			usleep(10 * 1000);
			t = now_ns() - start;
			if (move &&
			    (move_now || t >= move_secs * 1000000000ULL)) {
				__atomic_store_n(&ranges[0].start,
						 base + move_off_mb * MB,
						 __ATOMIC_RELEASE);
				print_range("move", 0);
				printf(" t_ns=%llu\n",
				       (unsigned long long)now_ns());
				fflush(stdout);
				move = 0;
			}
			if (progress) {
				progress = 0;
				printf("WORKLOAD progress pid=%d passes=%lu "
				       "t_ns=%llu\n",
				       (int)getpid(), passes_now(nthreads),
				       (unsigned long long)now_ns());
				fflush(stdout);
			}
			if (secs && t >= secs * 1000000000ULL)
				stop = 1;
		}
	}
	all = 0;
	for (i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		all += passes[i];
	}
	for (i = 0; nprocs > 1 && i + 1 < nprocs; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], NULL, 0);
	}
	printf("WORKLOAD done pid=%d passes=%lu\n", (int)getpid(), all);
	return 0;
}
