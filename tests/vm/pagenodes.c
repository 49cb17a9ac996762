// SPDX-License-Identifier: GPL-2.0
/*
 * pagenodes: where every page of a range of a process is, the ground truth
 * of the schemes test.
 *
 *   pagenodes PID START END
 *
 * START and END are addresses (0x hex); asks move_pages(2) with no nodes
 * (a query) for each 4 KiB page and prints one line:
 *   PAGENODES pages=N node0=N node1=N absent=N other=N
 * absent: not present (-ENOENT, or -EFAULT for no page table entry:
 * never touched, dropped, swapped or paged out); other: any other error. Exits 1 when the query itself fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL
#define BATCH 4096UL

int main(int argc, char **argv)
{
	static void *pages[BATCH];
	static int status[BATCH];
	unsigned long n[2] = { 0, 0 }, absent = 0, other = 0, total = 0;
	unsigned long start, end, a;
	long pid;

	if (argc != 4) {
		fprintf(stderr, "usage: pagenodes PID START END\n");
		return 2;
	}
	pid = strtol(argv[1], NULL, 0);
	start = strtoul(argv[2], NULL, 0) & ~(PAGE - 1);
	end = strtoul(argv[3], NULL, 0);
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
	printf("PAGENODES pages=%lu node0=%lu node1=%lu absent=%lu other=%lu\n",
	       total, n[0], n[1], absent, other);
	return 0;
}
