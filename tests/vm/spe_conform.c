// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace side of the SPE conformance test (static, runs in the VM):
 * opens the arm_spe_conform PMU on every online CPU with perf_event_open()
 * (CPU-wide, disabled), maps its data area (user page + DATA_PAGES) and
 * AUX area (AUX_PAGES, read-write) as damonctl spe attach does, hands each
 * buffer to damon_perf through damon_perf_conform_spe/attach, enables the
 * events, then reads damon_perf_conform_spe/run (which runs every case in
 * this process's context) and prints it.
 *
 *   spe_conform [AUX_PAGES]
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

#define DBG "/sys/kernel/debug/damon_perf_conform_spe/"
#define DATA_PAGES 8
#define MAX_CPUS 64

int main(int argc, char **argv)
{
	int aux_pages = argc > 1 ? atoi(argv[1]) : 4;
	long ps = sysconf(_SC_PAGESIZE);
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t data_size = (1 + DATA_PAGES) * ps, aux_size = aux_pages * ps;
	struct perf_event_attr attr;
	int type, cpu, fds[MAX_CPUS], fd;
	char line[200], buf[4096];
	ssize_t n;
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/arm_spe_conform/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		printf("error=no arm_spe_conform PMU\n");
		return 1;
	}
	fclose(f);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_mmap_page *up;
		void *aux;
		int len;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = type;
		attr.sample_period = 1024;
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
		aux = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fds[cpu], data_size);
		if (aux == MAP_FAILED) {
			printf("error=mmap aux: %s\n", strerror(errno));
			return 1;
		}
		fd = open(DBG "attach", O_WRONLY);
		if (fd < 0) {
			printf("error=open attach: %s\n", strerror(errno));
			return 1;
		}
		len = snprintf(line, sizeof(line), "%d %d %lx %lx %zx", cpu,
			       fds[cpu], (unsigned long)up, (unsigned long)aux,
			       aux_size);
		if (write(fd, line, len) != len) {
			printf("error=attach cpu %d: %s\n", cpu,
			       strerror(errno));
			return 1;
		}
		close(fd);
		printf("attached cpu %d\n", cpu);
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(fds[cpu], PERF_EVENT_IOC_ENABLE, 0);

	fd = open(DBG "run", O_RDONLY);
	if (fd < 0) {
		printf("error=open run: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	close(fd);
	fd = open(DBG "detach", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			printf("error=detach\n");
		close(fd);
	}
	return 0;
}
