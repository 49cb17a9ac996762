// SPDX-License-Identifier: GPL-2.0
/*
 * pagenodes: where every page of a range of a process is, the ground truth
 * of the schemes tests.
 *
 *   pagenodes [-m] PID START END
 *
 * START and END are addresses (0x hex); asks move_pages(2) with no nodes
 * (a query) for each 4 KiB page and prints one line:
 *   PAGENODES pages=N node0=N node1=N absent=N other=N
 * absent: not present (-ENOENT, or -EFAULT for no page table entry:
 * never touched, dropped, swapped or paged out); other: any other error.
 * Exits 1 when the query itself fails.
 *
 * A page NUMA balancing made PROT_NONE for a hinting fault reads as absent
 * to move_pages(2) on some kernels (6.1): -m reads /proc/PID/pagemap
 * instead (root: the frame numbers) and finds each frame's node by its
 * memory block (/sys/devices/system/node/nodeN/memoryM), so such a page
 * counts on its node; absent is then a page without a frame (not present,
 * or swapped), other a frame in no node's block.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL
#define BATCH 4096UL
#define MAX_BLOCKS 65536

/* node of each memory block, -1: none */
static signed char block_node[MAX_BLOCKS];
static unsigned long block_size;

static int read_blocks(void)
{
	char path[128];
	FILE *f;
	int nid;

	f = fopen("/sys/devices/system/memory/block_size_bytes", "r");
	if (!f || fscanf(f, "%lx", &block_size) != 1 || !block_size) {
		fprintf(stderr, "pagenodes: no memory block size\n");
		return -1;
	}
	fclose(f);
	memset(block_node, -1, sizeof(block_node));
	for (nid = 0; nid < 2; nid++) {
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d",
			 nid);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			unsigned long b;
			char *end;

			if (strncmp(d->d_name, "memory", 6))
				continue;
			b = strtoul(d->d_name + 6, &end, 10);
			if (*end || end == d->d_name + 6 || b >= MAX_BLOCKS)
				continue;
			block_node[b] = (signed char)nid;
		}
		closedir(dir);
	}
	return 0;
}

static int by_pagemap(long pid, unsigned long start, unsigned long end,
		      unsigned long *n, unsigned long *absent,
		      unsigned long *other)
{
	static uint64_t ent[BATCH];
	char path[64];
	unsigned long a;
	int fd;

	if (read_blocks())
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "pagenodes: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (a = start; a < end; a += BATCH * PAGE) {
		unsigned long i, cnt = (end - a + PAGE - 1) / PAGE;
		ssize_t got;

		if (cnt > BATCH)
			cnt = BATCH;
		got = pread(fd, ent, cnt * 8, (off_t)(a / PAGE * 8));
		if (got != (ssize_t)(cnt * 8)) {
			fprintf(stderr, "pagenodes: pagemap: %s\n",
				got < 0 ? strerror(errno) : "short read");
			close(fd);
			return -1;
		}
		for (i = 0; i < cnt; i++) {
			uint64_t pfn = ent[i] & ((1ULL << 55) - 1);
			unsigned long b;

			if (!(ent[i] >> 63) || !pfn) {
				(*absent)++;
				continue;
			}
			b = (unsigned long)(pfn * PAGE / block_size);
			if (b < MAX_BLOCKS && block_node[b] >= 0)
				n[block_node[b]]++;
			else
				(*other)++;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static void *pages[BATCH];
	static int status[BATCH];
	unsigned long n[2] = { 0, 0 }, absent = 0, other = 0, total = 0;
	unsigned long start, end, a;
	int pagemap = 0;
	long pid;

	if (argc == 5 && !strcmp(argv[1], "-m")) {
		pagemap = 1;
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: pagenodes [-m] PID START END\n");
		return 2;
	}
	pid = strtol(argv[1], NULL, 0);
	start = strtoul(argv[2], NULL, 0) & ~(PAGE - 1);
	end = strtoul(argv[3], NULL, 0);
	if (pagemap) {
		if (by_pagemap(pid, start, end, n, &absent, &other))
			return 1;
		total = (end - start + PAGE - 1) / PAGE;
		goto out;
	}
	for (a = start; a < end; a += BATCH * PAGE) {
		unsigned long i, cnt = 0;

		for (; cnt < BATCH && a + cnt * PAGE < end; cnt++)
			pages[cnt] = (void *)(a + cnt * PAGE);
		if (syscall(SYS_move_pages, pid, cnt, pages, NULL, status, 0)) {
			fprintf(stderr, "pagenodes: move_pages: %s\n",
				strerror(errno));
			return 1;
		}
		for (i = 0; i < cnt; i++) {
			if (status[i] == 0 || status[i] == 1)
				n[status[i]]++;
			else if (status[i] == -ENOENT || status[i] == -EFAULT)
				absent++;
			else
				other++;
		}
		total += cnt;
	}
out:
	printf("PAGENODES pages=%lu node0=%lu node1=%lu absent=%lu other=%lu\n",
	       total, n[0], n[1], absent, other);
	return 0;
}
