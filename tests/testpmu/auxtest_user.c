// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace side of the AUX transport test (static, runs in the VM):
 * opens the arm_spe_test PMU on every online CPU with perf_event_open(),
 * maps the data and AUX areas read-write, hands each buffer to
 * damon_perf through damon_perf_auxtest/attach (as damonctl hands them
 * over by netlink), enables the events, then reads the drain file every
 * 100 ms for SECONDS seconds, and prints the AUX head and tail of every
 * buffer as the module left them. Also checks that bad attach requests
 * fail.
 *
 *   auxtest_user SECONDS [AUX_PAGES] [--no-detach] [--wraps=N]
 *
 * --wraps=N: after SECONDS, go on until the module consumed N times the
 * AUX area on every CPU (its aux_tail reached N * AUX size), so what the
 * test checks is a count, whatever the speed of the machine; gives up
 * after WRAPS_MAX_S seconds and prints wraps_timeout=1.
 *
 * Prints "key=value" lines for tests/vm/spe_aux.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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

static int attach(int cpu, int fd, void *up, void *aux, size_t size)
{
	char line[200];
	int dfd, n, err = 0;

	dfd = open(DBG "attach", O_WRONLY);
	if (dfd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%d %d %lx %lx %zx 0", cpu, fd,
		     (unsigned long)up, (unsigned long)aux, size);
	if (write(dfd, line, n) != n)
		err = -errno;
	close(dfd);
	return err;
}

static void show_drain(const char *tag)
{
	char buf[512];
	ssize_t n;
	int fd = open(DBG "drain", O_RDONLY);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		printf("%s %s", tag, buf);
	}
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 3;
	int aux_pages = argc > 2 ? atoi(argv[2]) : 4;
	int detach = 1, wraps = 0;
	long ps = sysconf(_SC_PAGESIZE);
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t data_size = (1 + DATA_PAGES) * ps, aux_size = aux_pages * ps;
	struct perf_event_attr attr;
	int type, cpu, i, fds[64];
	void *ups[64], *auxs[64];
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/arm_spe_test/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		printf("error=no arm_spe_test PMU\n");
		return 1;
	}
	fclose(f);
	if (ncpu > 64)
		ncpu = 64;
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-detach"))
			detach = 0;
		else if (!strncmp(argv[i], "--wraps=", 8))
			wraps = atoi(argv[i] + 8);
	}

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_mmap_page *up;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = type;
		attr.disabled = 1;
		fds[cpu] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				   PERF_FLAG_FD_CLOEXEC);
		if (fds[cpu] < 0) {
			printf("error=perf_event_open cpu %d: %s\n", cpu,
			       strerror(errno));
			return 1;
		}
		up = mmap(NULL, data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fds[cpu], 0);
		if (up == MAP_FAILED) {
			printf("error=mmap data: %s\n", strerror(errno));
			return 1;
		}
		up->aux_offset = data_size;
		up->aux_size = aux_size;
		auxs[cpu] = mmap(NULL, aux_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fds[cpu], data_size);
		if (auxs[cpu] == MAP_FAILED) {
			printf("error=mmap aux: %s\n", strerror(errno));
			return 1;
		}
		ups[cpu] = up;
	}

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

	for (cpu = 0; cpu < ncpu; cpu++) {
		int err = attach(cpu, fds[cpu], ups[cpu], auxs[cpu], aux_size);

		printf("attach_cpu%d=%d\n", cpu, err);
	}
	printf("neg_twice=%d\n", attach(0, fds[0], ups[0], auxs[0], aux_size));
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(fds[cpu], PERF_EVENT_IOC_ENABLE, 0);

	for (i = 0; i < secs * 10 ||
		    (wraps && !all_consumed(ups, ncpu,
					    (unsigned long long)wraps * aux_size));
	     i++) {
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
	if (detach) {
		i = open(DBG "detach", O_WRONLY);
		if (i >= 0) {
			if (write(i, "1", 1) != 1)
				printf("error=detach\n");
			close(i);
		}
	}
	return 0;
}
