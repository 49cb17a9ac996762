/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability shim of the module's pure code shared with userspace (the
 * SPE parser, spe_parse.h, and the density test, density.h): the kernel's
 * types and a few of its macros, so the same source builds in the kernel
 * (damon_perf.ko) and in userspace (GoogleTest, libFuzzer, Google
 * Benchmark, damonctl spe decode, tests/kshim).
 */
#ifndef _DAMON_PERF_PORTABLE_TYPES_H
#define _DAMON_PERF_PORTABLE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/bitops.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

/* glibc's <sys/cdefs.h> has __always_inline; a plain inline elsewhere */
#ifndef __always_inline
#define __always_inline inline
#endif

/*
 * the kernel's noinline from glibc's, for C (C++ callers spell the
 * attribute out); without it a function may be inlined, only slower
 */
#if !defined(noinline) && !defined(__cplusplus)
#ifdef __attribute_noinline__
#define noinline __attribute_noinline__
#else
#define noinline
#endif
#endif

/* index of the lowest set bit; @word must not be 0 */
static inline unsigned int __ffs64(u64 word)
{
	return (unsigned int)__builtin_ctzll(word);
}

/* keeps the trailing semicolon of the kernel macro a declaration */
#define EXPORT_SYMBOL_IF_KUNIT(sym) _Static_assert(1, #sym)
#endif

#endif /* _DAMON_PERF_PORTABLE_TYPES_H */
