// SPDX-License-Identifier: GPL-2.0
/*
 * perfcpu: what perf_event_open() says to the caller of a CPU-wide counter
 * (pid -1, CPU 0) of the software page-faults event, user level only: the
 * counter a damon_perf context of the same caller arms on every CPU.
 *
 *   perfcpu
 *
 * Prints "ok" and exits 0 when the counter opens, else prints the errno's
 * name (EACCES, EPERM, ...) and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case EINVAL:
		return "EINVAL";
	default:
		return strerror(e);
	}
}

int main(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	close((int)fd);
	printf("ok\n");
	return 0;
}
