/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace half of an AUX buffer, as damonctl spe attach sets one up:
 * a disabled CPU-wide perf event, its data area (user page + data pages)
 * and its AUX area mapped read-write, and the line a test harness's
 * debugfs "attach" file takes ("CPU FD USER_PAGE AUX_ADDR AUX_SIZE ...",
 * hex addresses and size). Shared by tests/vm/spe_conform.c and
 * tests/testpmu/auxtest_user.c; static programs, one source file each.
 */
#ifndef _DAMON_PERF_AUXBUF_H
#define _DAMON_PERF_AUXBUF_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One event's mappings: @data_size bytes at @up, @aux_size at @aux. */
struct auxbuf {
	int fd;
	struct perf_event_mmap_page *up;
	void *aux;
	size_t data_size, aux_size;
};

/* The type of PMU @name; prints "error=no NAME PMU" and returns -1 if none. */
static inline int auxbuf_pmu_type(const char *name)
{
	char path[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &type) != 1) {
		printf("error=no %s PMU\n", name);
		type = -1;
	}
	if (f)
		fclose(f);
	return type;
}

/*
 * A disabled CPU-wide event of PMU @type on @cpu (@period: its
 * sample_period, 0 for none): the fd, or -1 after an "error=" line.
 */
static inline int auxbuf_open(int type, int cpu, __u64 period)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.sample_period = period;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		printf("error=perf_event_open cpu %d: %s\n", cpu,
		       strerror(errno));
	return fd;
}

/*
 * Map @fd's data area (the user page and @data_pages) and its AUX area
 * (@aux_pages, right behind the data area) read-write into @b: 0, or -1
 * after an "error=" line.
 */
static inline int auxbuf_map(struct auxbuf *b, int fd, size_t data_pages,
			     size_t aux_pages)
{
	size_t ps = sysconf(_SC_PAGESIZE);

	b->fd = fd;
	b->data_size = (1 + data_pages) * ps;
	b->aux_size = aux_pages * ps;
	b->up = mmap(NULL, b->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     0);
	if (b->up == MAP_FAILED) {
		printf("error=mmap data: %s\n", strerror(errno));
		return -1;
	}
	b->up->aux_offset = b->data_size;
	b->up->aux_size = b->aux_size;
	b->aux = mmap(NULL, b->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      b->data_size);
	if (b->aux == MAP_FAILED) {
		printf("error=mmap aux: %s\n", strerror(errno));
		munmap(b->up, b->data_size);
		return -1;
	}
	return 0;
}

/* auxbuf_open() and auxbuf_map(): 0, or -1 after an "error=" line. */
static inline int auxbuf_new(struct auxbuf *b, int type, int cpu, __u64 period,
			     size_t data_pages, size_t aux_pages)
{
	int fd = auxbuf_open(type, cpu, period);

	if (fd < 0)
		return -1;
	if (auxbuf_map(b, fd, data_pages, aux_pages)) {
		close(fd);
		return -1;
	}
	return 0;
}

/* Unmap @b and close its event. */
static inline void auxbuf_free(struct auxbuf *b)
{
	munmap(b->aux, b->aux_size);
	munmap(b->up, b->data_size);
	close(b->fd);
}

/*
 * The attach line "CPU FD USER_PAGE AUX_ADDR AUX_SIZE" and, when @fmt is
 * not NULL, " " and what @fmt formats, into @line: its length.
 */
static inline __attribute__((format(printf, 8, 9))) int
auxbuf_line(char *line, size_t len, int cpu, int fd, const void *up,
	    const void *aux, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	n = snprintf(line, len, "%d %d %lx %lx %zx", cpu, fd, (unsigned long)up,
		     (unsigned long)aux, size);
	if (fmt && n > 0 && (size_t)n + 1 < len) {
		line[n++] = ' ';
		va_start(args, fmt);
		n += vsnprintf(line + n, len - n, fmt, args);
		va_end(args);
	}
	return n;
}

/* Write @line to the debugfs attach file @path: 0 or -errno. */
static inline int auxbuf_attach(const char *path, const char *line, int n)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, line, n) != n)
		err = -errno;
	close(fd);
	return err;
}

#endif /* _DAMON_PERF_AUXBUF_H */
