// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel provides to kmod/ring.c, drain.c, regions.c, vaddr.c,
 * split.c, density.c, snapshot.c and stats.c, for the native
 * microbenchmarks (tests/user/bench) and the KUnit suites run natively
 * (tests/kunit over kunit.c): allocation (kvmalloc's refusal of more than
 * INT_MAX bytes included), per-CPU areas, the monotonic clocks, the
 * out-of-line bsearch() and sort() of lib/ and get_random_u32_below(). The
 * observe API is kmod/stats.c itself.
 */
#include <stdlib.h>
#include <time.h>

#include "kshim.h"

unsigned int nr_cpu_ids = 2;
/* per thread: a thread is a CPU (kshim.h) */
__shim_tls int shim_cpu;
__shim_tls int shim_preempt_count;

void *shim_alloc_percpu(size_t size, size_t align)
{
	void *p;

	if (size > SHIM_PCPU_STRIDE || align > SHIM_PCPU_STRIDE)
		return NULL;
	if (posix_memalign(&p, SHIM_PCPU_STRIDE,
			   (size_t)NR_CPUS * SHIM_PCPU_STRIDE))
		return NULL;
	memset(p, 0, (size_t)NR_CPUS * SHIM_PCPU_STRIDE);
	return p;
}

void free_percpu(void *p)
{
	free(p);
}

void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

/* mm/util.c's kvmalloc_node(): nothing above INT_MAX bytes */
void *kvzalloc_node(size_t size, gfp_t gfp, int node)
{
	(void)node;
	if (size > __INT_MAX__)
		return NULL;
	return kzalloc(size, gfp);
}

void *krealloc_array(void *p, size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return realloc(p, n * size);
}

void kfree(const void *p)
{
	free((void *)p);
}

void kvfree(const void *p)
{
	free((void *)p);
}

void *kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	(void)gfp;
	if (__builtin_mul_overflow(n, size, &bytes) || bytes > __INT_MAX__)
		return NULL;
	return malloc(bytes);
}

/*
 * The kernel's clocks the module reads (local_clock(), ktime_get_ns(),
 * ktime_get_mono_fast_ns() behind damon_perf_clock_ns()) are monotonic:
 * the stale check of the drain compares them, so these must be too.
 */
static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 local_clock(void)
{
	return mono_ns();
}

u64 ktime_get_ns(void)
{
	return mono_ns();
}

u64 ktime_get_mono_fast_ns(void)
{
	return mono_ns();
}

/* lib/bsearch.c: __inline_bsearch() behind an out-of-line bsearch() */
noinline void *shim_bsearch(const void *key, const void *base, size_t num,
			    size_t size, cmp_func_t cmp)
{
	const char *pivot;
	int result;

	while (num > 0) {
		pivot = (const char *)base + (num >> 1) * size;
		result = cmp(key, pivot);
		if (result == 0)
			return (void *)pivot;
		if (result > 0) {
			base = pivot + size;
			num--;
		}
		num >>= 1;
	}
	return NULL;
}

/* lib/sort.c: an out-of-line heapsort (not stable); 64-bit word swaps
 * for aligned multiples of 8 bytes (swap_words_64), bytes otherwise */
static void sort_swap(char *a, char *b, size_t size)
{
	if (!(size % 8) && !(((uintptr_t)a | (uintptr_t)b) % 8)) {
		u64 *x = (u64 *)a, *y = (u64 *)b;

		for (size /= 8; size--; x++, y++) {
			u64 t = *x;

			*x = *y;
			*y = t;
		}
		return;
	}
	while (size--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

noinline void sort(void *base, size_t num, size_t size, cmp_func_t cmp,
		   swap_func_t swap_fn)
{
	char *b = base;
	size_t i, root, child, n;

	if (num < 2)
		return;
	for (n = num, i = num / 2;;) {
		if (i > 0) {
			i--; /* heapify */
		} else {
			n--; /* sort: the max to the end */
			if (swap_fn)
				swap_fn(b, b + n * size, (int)size);
			else
				sort_swap(b, b + n * size, size);
			if (n <= 1)
				break;
		}
		for (root = i; (child = 2 * root + 1) < n; root = child) {
			if (child + 1 < n &&
			    cmp(b + child * size, b + (child + 1) * size) < 0)
				child++;
			if (cmp(b + root * size, b + child * size) >= 0)
				break;
			if (swap_fn)
				swap_fn(b + root * size, b + child * size,
					(int)size);
			else
				sort_swap(b + root * size, b + child * size,
					  size);
		}
	}
}

/* prandom-quality xorshift; the kernel's is a per-CPU ChaCha batch */
static u64 rnd_state = 0x9e3779b97f4a7c15ULL;

void shim_random_seed(u64 seed)
{
	rnd_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

u32 get_random_u32_below(u32 ceil)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (u32)(((rnd_state >> 32) * (u64)ceil) >> 32);
}
