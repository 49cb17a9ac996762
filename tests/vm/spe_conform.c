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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "auxbuf.h"

#define DBG "/sys/kernel/debug/damon_perf_conform_spe/"
#define DATA_PAGES 8
#define MAX_CPUS 64

int main(int argc, char **argv)
{
	int aux_pages = argc > 1 ? atoi(argv[1]) : 4;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct auxbuf bufs[MAX_CPUS];
	int type, cpu, fd, len, err;
	char line[200], buf[4096];
	ssize_t n;

	type = auxbuf_pmu_type("arm_spe_conform");
	if (type < 0)
		return 1;
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct auxbuf *b = &bufs[cpu];

		if (auxbuf_new(b, type, cpu, 1024, DATA_PAGES, aux_pages))
			return 1;
		len = auxbuf_line(line, sizeof(line), cpu, b->fd, b->up, b->aux,
				  b->aux_size, NULL);
		err = auxbuf_attach(DBG "attach", line, len);
		if (err) {
			printf("error=attach cpu %d: %s\n", cpu,
			       strerror(-err));
			return 1;
		}
		printf("attached cpu %d\n", cpu);
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		ioctl(bufs[cpu].fd, PERF_EVENT_IOC_ENABLE, 0);

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
