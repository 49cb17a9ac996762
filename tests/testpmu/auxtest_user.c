// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace side of the AUX transport test (static, runs in the VM):
 * opens the arm_spe_test PMU on every online CPU with perf_event_open(),
 * maps the data and AUX areas read-write, hands each buffer to
 * damon_perf through damon_perf_auxtest/attach (as damonctl hands them
 * over by netlink), enables the events, then reads the drain file every
 * 100 ms for SECONDS seconds, and prints the AUX head and tail of every
 * buffer as the module left them. Also checks that bad attach requests
 * fail, and that one buffer is attached once: the same buffer for a second
 * probe slot is refused (EBUSY) until the first attachment ends, and so is
 * a second event that writes into it (PERF_EVENT_IOC_SET_OUTPUT).
 *
 *   auxtest_user SECONDS [AUX_PAGES] [--no-detach] [--wraps=N] [--moved]
 *   auxtest_user SECONDS [AUX_PAGES] --race=N
 *   auxtest_user SECONDS [AUX_PAGES] --memlock=KB
 *   auxtest_user SECONDS [AUX_PAGES] --inject=N
 *
 * --wraps=N: after SECONDS, go on until the module consumed N times the
 * AUX area on every CPU (its aux_tail reached N * AUX size), so what the
 * test checks is a count, whatever the speed of the machine; gives up
 * after WRAPS_MAX_S seconds and prints wraps_timeout=1. --moved: the
 * same until the module's aux_tail moved at all on every CPU.
 *
 * --race=N: while a second thread keeps replacing CPU 0's AUX mapping
 * (munmap, an anonymous shared mapping full of records whose address is
 * the harness's marker, munmap, the perf mapping again, with MAP_FIXED),
 * attach CPU 0's buffer N times, with aux_head set a full buffer ahead of
 * aux_tail each time, drain and detach after each success; prints the
 * attach results by errno and the bytes the drains parsed. No drain may
 * see a marker record.
 * --memlock=KB: with RLIMIT_MEMLOCK lowered to KB and CAP_IPC_LOCK out of
 * the effective set, attach CPU 0's buffer once; prints its result and
 * VmLck before, during and after.
 * --inject=N: fault injection (failslab and fail_page_alloc armed by the
 * caller): for n = 1, 2, ... up to N, the n-th fault site the kernel
 * passes during CPU 0's attach fails (/proc/thread-self/fail-nth). Each
 * attach either fails with an errno or absorbs the failure; after it, the
 * process's VmLck is what it was before (a failed attach pins and charges
 * nothing), and a retry without injection succeeds, drains and detaches.
 * Stops at the first n the attach no longer reaches; prints the counts.
 *
 * Prints "key=value" lines for tests/vm/spe_aux.sh and aux_attack.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../vm/auxbuf.h"

#define DBG "/sys/kernel/debug/damon_perf_auxtest/"
#define DATA_PAGES 1
#define WRAPS_MAX_S 120

/* Every buffer's aux_tail (written by the module) reached @want. */
static int all_consumed(void **ups, int ncpu, unsigned long long want)
{
	int cpu;

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_mmap_page *up = ups[cpu];

		if (__atomic_load_n(&up->aux_tail, __ATOMIC_ACQUIRE) < want)
			return 0;
	}
	return 1;
}

/* --wraps (@want bytes, 0: none) or --moved not yet met on every CPU */
static int more(void **ups, int ncpu, unsigned long long want, int moved)
{
	return (want && !all_consumed(ups, ncpu, want)) ||
	       (moved && !all_consumed(ups, ncpu, 1));
}

static int attach_pid(int cpu, int fd, void *up, void *aux, size_t size,
		      int pid)
{
	char line[200];
	int n = auxbuf_line(line, sizeof(line), cpu, fd, up, aux, size, "%d",
			    pid);

	return auxbuf_attach(DBG "attach", line, n);
}

static int attach(int cpu, int fd, void *up, void *aux, size_t size)
{
	return attach_pid(cpu, fd, up, aux, size, 0);
}

/* attach() through damon_perf_aux_attach() to probe slot @slot. */
static int attach_slot(int cpu, int fd, void *up, void *aux, size_t size,
		       int slot)
{
	char line[200];
	int n = auxbuf_line(line, sizeof(line), cpu, fd, up, aux, size,
			    "0 %d", slot);

	return auxbuf_attach(DBG "attach", line, n);
}

/* The extack message of the last refused attach_slot(). */
static void print_error(const char *key)
{
	char msg[160] = "";
	FILE *f = fopen(DBG "error", "r");

	if (f) {
		if (!fgets(msg, sizeof(msg), f))
			msg[0] = 0;
		fclose(f);
	}
	msg[strcspn(msg, "\n")] = 0;
	printf("%s=%s\n", key, msg);
}

/*
 * attach() with the n-th fault site failing: the debugfs file is opened
 * first, so the count starts at the write that attaches. *@fired says
 * whether the n-th site was reached (fail-nth read back as 0).
 */
static int attach_injected(int nth_fd, int n, int fd, void *up, void *aux,
			   size_t size, int *fired)
{
	char line[200], s[16] = { 0 };
	int dfd, len, sl, err = 0;

	dfd = open(DBG "attach", O_WRONLY);
	if (dfd < 0)
		return -errno;
	len = auxbuf_line(line, sizeof(line), 0, fd, up, aux, size, "%d", 0);
	sl = snprintf(s, sizeof(s), "%d", n);
	if (pwrite(nth_fd, s, (size_t)sl, 0) != sl) {
		close(dfd);
		return -EIO;
	}
	if (write(dfd, line, len) != len)
		err = -errno;
	memset(s, 0, sizeof(s));
	*fired = pread(nth_fd, s, sizeof(s) - 1, 0) > 0 && atoi(s) == 0;
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		err = err ? err : -EIO;
	close(dfd);
	return err;
}

/* Drain, print the totals after @tag; returns the "scanned" total. */
static unsigned long long show_drain(const char *tag)
{
	unsigned long long scanned = 0;
	char buf[512];
	const char *p;
	ssize_t n;
	int fd = open(DBG "drain", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		printf("%s %s", tag, buf);
		p = strstr(buf, " scanned ");
		if (p)
			sscanf(p, " scanned %llu", &scanned);
	}
	return scanned;
}

static void detach_all(void)
{
	int fd = open(DBG "detach", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			printf("error=detach\n");
		close(fd);
	}
}

/*
 * Two events, one buffer: a second event of CPU 0 redirected into the
 * first one's ring buffer (PERF_EVENT_IOC_SET_OUTPUT) and mapped through
 * its own fd (perf maps it the shared buffer) has a buffer that is
 * attached already while the first one is, and the other way round:
 * either attachment refuses the other (EBUSY).
 */
static void check_set_output(int type, int fd, void *up, void *aux,
			     size_t aux_size)
{
	struct auxbuf b;
	int fd2;

	fd2 = auxbuf_open(type, 0, 0);
	if (fd2 < 0)
		return;
	if (ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd)) {
		printf("error=SET_OUTPUT: %s\n", strerror(errno));
		close(fd2);
		return;
	}
	if (auxbuf_map(&b, fd2, DATA_PAGES, aux_size / sysconf(_SC_PAGESIZE))) {
		close(fd2);
		return;
	}
	printf("setout_first=%d\n", attach_slot(0, fd, up, aux, aux_size, 1));
	printf("neg_setout=%d\n",
	       attach_slot(0, fd2, b.up, b.aux, b.aux_size, 2));
	print_error("neg_setout_msg");
	detach_all();
	printf("setout_second_first=%d\n",
	       attach_slot(0, fd2, b.up, b.aux, b.aux_size, 1));
	printf("neg_setout_rev=%d\n", attach_slot(0, fd, up, aux, aux_size, 2));
	detach_all();
	auxbuf_free(&b);
}

/* VmLck of this process in kB, -1 if unknown. */
static long vmlck(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Drop (or raise again) CAP_IPC_LOCK in the effective set. */
static int ipc_lock_effective(int on)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[0].effective |= 1U << CAP_IPC_LOCK;
	else
		d[0].effective &= ~(1U << CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

struct racer {
	int fd;
	void *aux;
	size_t aux_size;
	off_t aux_off;
	int stop;	/* __atomic: set by the main thread */
	unsigned long swaps;
};

/* Records whose data address is the harness's marker page. */
static void fill_marker(unsigned char *p, size_t n)
{
	static const unsigned char rec[] = {
		0xb2, 0x00, 0x40, 0x41, 0x41, 0x41, 0x00, 0x00, 0x00, 0x01,
	};
	size_t i;

	for (i = 0; i + sizeof(rec) <= n; i += sizeof(rec))
		memcpy(p + i, rec, sizeof(rec));
	memset(p + i, 0, n - i);
}

static void *race(void *arg)
{
	struct racer *r = arg;
	void *p;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		munmap(r->aux, r->aux_size);
		p = mmap(r->aux, r->aux_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p != MAP_FAILED)
			fill_marker(p, r->aux_size);
		munmap(r->aux, r->aux_size);
		while (mmap(r->aux, r->aux_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, r->fd, r->aux_off) ==
		       MAP_FAILED)
			usleep(1000);
		r->swaps++;
		usleep(200);	/* the perf mapping, for a while */
	}
	return NULL;
}

static int run_race(int n, int fd, void *up, void *aux, size_t aux_size,
		    off_t aux_off)
{
	struct racer r = {
		.fd = fd, .aux = aux, .aux_size = aux_size, .aux_off = aux_off,
	};
	int i, ok = 0, einval = 0, efault = 0, other = 0, err;
	struct perf_event_mmap_page *u = up;
	unsigned long long scanned = 0;
	pthread_t t;

	/*
	 * The event stays disabled: the head is set by hand to a full
	 * buffer ahead of the tail before every attach, so each drain
	 * parses every page the attach pinned, whatever it pinned.
	 */
	if (pthread_create(&t, NULL, race, &r)) {
		printf("error=pthread_create\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		u->aux_head = u->aux_tail + aux_size;
		err = attach(0, fd, up, aux, aux_size);
		if (!err) {
			ok++;
			scanned += show_drain("race");
			detach_all();
		} else if (err == -EINVAL) {
			einval++;
		} else if (err == -EFAULT) {
			efault++;
		} else {
			other++;
			printf("race_errno=%d\n", err);
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("race_attempts=%d race_ok=%d race_einval=%d ", n, ok, einval);
	printf("race_efault=%d race_other=%d race_swaps=%lu ", efault, other,
	       r.swaps);
	printf("race_scanned=%llu\n", scanned);
	show_drain("final");
	return 0;
}

static int run_memlock(long kb, int fd, void *up, void *aux,
		       size_t aux_size)
{
	struct rlimit old, rl;
	long before, during, after;
	int err, err2;

	getrlimit(RLIMIT_MEMLOCK, &old);
	rl = old;
	rl.rlim_cur = (rlim_t)kb << 10;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || ipc_lock_effective(0)) {
		printf("error=cannot lower RLIMIT_MEMLOCK or CAP_IPC_LOCK\n");
		return 1;
	}
	before = vmlck();
	err = attach(0, fd, up, aux, aux_size);
	during = vmlck();
	detach_all();
	after = vmlck();
	/* a second time: a failed or detached attach left no charge */
	err2 = attach(0, fd, up, aux, aux_size);
	detach_all();
	ipc_lock_effective(1);
	setrlimit(RLIMIT_MEMLOCK, &old);
	printf("memlock_attach=%d memlock_again=%d\n", err, err2);
	printf("vmlck_before=%ld vmlck_during=%ld vmlck_after=%ld\n", before,
	       during, after);
	return 0;
}

static int run_inject(int max, int fd, void *up, void *aux, size_t aux_size)
{
	int n, fired, err, injected = 0, failed = 0, absorbed = 0;
	int charged = 0, retry_bad = 0, nth_fd;
	struct perf_event_mmap_page *u = up;
	long before = vmlck();
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	nth_fd = open(path, O_RDWR);
	if (nth_fd < 0) {
		printf("error=no %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (n = 1; n <= max; n++) {
		u->aux_head = u->aux_tail;
		err = attach_injected(nth_fd, n, fd, up, aux, aux_size, &fired);
		if (!fired) {
			/* past the last fault site: a plain success */
			if (err)
				printf("inject_unfired_errno=%d\n", err);
			detach_all();
			break;
		}
		injected++;
		if (err) {
			failed++;
			if (vmlck() != before) {
				charged++;
				printf("inject_site=%d charged=%ld\n", n,
				       vmlck() - before);
			}
		} else {
			absorbed++;
		}
		detach_all();
		if (vmlck() != before)
			charged++;
		/* the retry: attaches, drains, detaches, uncharges */
		u->aux_head = u->aux_tail + aux_size;
		err = attach(0, fd, up, aux, aux_size);
		if (!err && vmlck() == before) {
			/* the check above means nothing if no charge shows */
			retry_bad++;
			printf("inject_site=%d retry_uncharged\n", n);
		}
		if (err) {
			retry_bad++;
			printf("inject_site=%d retry_errno=%d\n", n, err);
		} else if (!show_drain("inject")) {
			retry_bad++;
			printf("inject_site=%d retry_drain=0\n", n);
		}
		detach_all();
		if (vmlck() != before)
			charged++;
	}
	close(nth_fd);
	printf("inject_sites=%d inject_failed=%d inject_absorbed=%d ",
	       injected, failed, absorbed);
	printf("inject_charged=%d inject_retry_bad=%d inject_reached_end=%d\n",
	       charged, retry_bad, n <= max);
	return 0;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 3;
	int aux_pages = argc > 2 ? atoi(argv[2]) : 4;
	int detach = 1, wraps = 0, race_n = 0, inject_n = 0, moved = 0;
	long memlock = -1;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int type, cpu, i, ret, fds[64];
	size_t data_size = 0, aux_size = 0;
	void *ups[64], *auxs[64];
	unsigned long long want;

	type = auxbuf_pmu_type("arm_spe_test");
	if (type < 0)
		return 1;
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 64)
		ncpu = 64;
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-detach"))
			detach = 0;
		else if (!strcmp(argv[i], "--moved"))
			moved = 1;
		else if (!strncmp(argv[i], "--wraps=", 8))
			wraps = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "--race=", 7))
			race_n = atoi(argv[i] + 7);
		else if (!strncmp(argv[i], "--inject=", 9))
			inject_n = atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--memlock=", 10))
			memlock = atol(argv[i] + 10);
	}

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct auxbuf b;

		if (auxbuf_new(&b, type, cpu, 0, DATA_PAGES, aux_pages))
			return 1;
		fds[cpu] = b.fd;
		ups[cpu] = b.up;
		auxs[cpu] = b.aux;
		data_size = b.data_size;
		aux_size = b.aux_size;
	}

	if (race_n)
		return run_race(race_n, fds[0], ups[0], auxs[0], aux_size,
				(off_t)data_size);
	if (inject_n)
		return run_inject(inject_n, fds[0], ups[0], auxs[0], aux_size);
	if (memlock >= 0)
		return run_memlock(memlock, fds[0], ups[0], auxs[0], aux_size);

	/* bad requests, each must fail with its errno */
	printf("neg_badfd=%d\n", attach(0, 999, ups[0], auxs[0], aux_size));
	i = open("/dev/null", O_RDONLY);
	printf("neg_notperf=%d\n", attach(0, i, ups[0], auxs[0], aux_size));
	close(i);
	printf("neg_wrongcpu=%d\n",
	       ncpu > 1 ? attach(1, fds[0], ups[0], auxs[0], aux_size) :
			  -EINVAL);
	printf("neg_swapped=%d\n", attach(0, fds[0], auxs[0], ups[0],
					  aux_size));
	printf("neg_badsize=%d\n", attach(0, fds[0], ups[0], auxs[0],
					  aux_size * 2));
	/* a CPU-wide event does not follow this (or any) process */
	printf("neg_wrongpid=%d\n", attach_pid(0, fds[0], ups[0], auxs[0],
					       aux_size, (int)getpid()));
	printf("neg_nopid=%d\n", attach_pid(0, fds[0], ups[0], auxs[0],
					    aux_size, 4000000));

	/*
	 * One buffer, one attachment: the same buffer for another probe
	 * slot is refused (EBUSY), the same slot and CPU again EEXIST.
	 */
	ret = attach_slot(0, fds[0], ups[0], auxs[0], aux_size, 1);
	printf("slot1_attach=%d\n", ret);
	ret = attach_slot(0, fds[0], ups[0], auxs[0], aux_size, 2);
	printf("neg_samebuf=%d\n", ret);
	print_error("neg_samebuf_msg");
	ret = attach_slot(0, fds[0], ups[0], auxs[0], aux_size, 1);
	printf("neg_sameslot=%d\n", ret);
	detach_all();
	ret = attach_slot(0, fds[0], ups[0], auxs[0], aux_size, 2);
	printf("slot2_after_detach=%d\n", ret);
	detach_all();
	check_set_output(type, fds[0], ups[0], auxs[0], aux_size);

	for (cpu = 0; cpu < ncpu; cpu++) {
		int err = attach(cpu, fds[cpu], ups[cpu], auxs[cpu], aux_size);

		printf("attach_cpu%d=%d\n", cpu, err);
	}
	printf("neg_twice=%d\n", attach(0, fds[0], ups[0], auxs[0], aux_size));
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(fds[cpu], PERF_EVENT_IOC_ENABLE, 0);

	want = (unsigned long long)wraps * aux_size;
	for (i = 0; i < secs * 10 || more(ups, ncpu, want, moved); i++) {
		if (i >= WRAPS_MAX_S * 10) {
			printf("wraps_timeout=1\n");
			break;
		}
		usleep(100000);
		if (i % 10 == 9)
			show_drain("progress");
	}
	printf("ran_ds=%d\n", i);
	/* still running: the module's tail must trail its head by < size */
	show_drain("final");
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_mmap_page *up = ups[cpu];

		printf("cpu%d_aux_head=%llu aux_tail=%llu\n", cpu,
		       (unsigned long long)up->aux_head,
		       (unsigned long long)up->aux_tail);
	}
	if (detach)
		detach_all();
	return 0;
}
