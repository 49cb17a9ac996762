/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel headers that kmod/ring.c, drain.c,
 * regions.c, vaddr.c, split.c, density.c, snapshot.c and stats.c include,
 * so that the module's own sources build unchanged for the native
 * microbenchmarks (tests/user/bench), and for the KUnit suites of that code
 * (tests/kunit/{ring,drain,regions,stats}_kunit.c), which build unchanged
 * over it and its KUnit (kunit/test.h) and run natively (kunit_native).
 * They build with __KERNEL__ defined, so the headers shared with userspace
 * builds (portable_types.h, density.h) take their kernel branch. Every
 * <linux/...> and <asm/...> header under tests/kshim includes only this
 * file.
 *
 * A model of the kernel: a fixed number of possible CPUs, a "current CPU"
 * the caller sets (shim_cpu, per thread, so that two threads can be two
 * CPUs: ring_drops' producer and consumer), per-CPU areas at a fixed
 * stride, and the x86-64 meaning of the barriers (smp_wmb/smp_rmb and the
 * __atomic variants are compiler barriers, which x86's TSO makes enough;
 * smp_mb, atomic bit ops and RMWs are locked; READ_ONCE/WRITE_ONCE are
 * volatile, smp_store_release/smp_load_acquire __atomic), so instruction
 * counts are close to what the module executes on x86-64. Locks, wait
 * queues and irq_work are not: they are never contended here. Nothing here
 * runs in the kernel.
 */
#ifndef _DAMON_PERF_KSHIM_H
#define _DAMON_PERF_KSHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h> /* ssize_t, loff_t */
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
/* 64 bits: long long, as the kernel's int-ll64.h on every architecture */
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef unsigned long long __u64;
typedef int8_t __s8;
typedef int16_t __s16;
typedef int32_t __s32;
typedef long long __s64;
typedef int pid_t;
typedef unsigned int gfp_t;

#define __percpu
#define __user
#define __force
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define noinline __attribute__((__noinline__))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/*
 * The kernel options the module's pure code asks about, each 0 or 1:
 * IS_ENABLED(CONFIG_X) reads __SHIM_CONFIG_X, so an option not listed
 * here fails to build instead of passing for unset. No SMP-only
 * build-time checks; CONFIG_KUNIT only in the unit tests' build
 * (SHIM_KUNIT, damon_perf_kmod_user_kunit), not the benchmarks'. With it,
 * DAMON_PERF_KUNIT_HOOKS (kmod/compat/compat.h: a test build against a
 * KUnit kernel) is set too: the module's test hooks, a private set of
 * observe counters, the ring's busy hook.
 */
#ifndef SHIM_KUNIT
#define SHIM_KUNIT 0
#endif
#define __SHIM_CONFIG_KUNIT SHIM_KUNIT
#define DAMON_PERF_KUNIT_HOOKS SHIM_KUNIT
#define __SHIM_CONFIG_SMP 0
#define __SHIM_CONFIG_64BIT (__SIZEOF_LONG__ == 8)
#define IS_ENABLED(opt) (__SHIM_##opt)
#define EXPORT_SYMBOL_GPL(sym)
/* keeps the trailing semicolon of the kernel macro a declaration */
#define EXPORT_SYMBOL_IF_KUNIT(sym) _Static_assert(1, #sym)
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned_in_smp                                           \
	__attribute__((__aligned__(SMP_CACHE_BYTES)))
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define UINT_MAX (~0U)
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#define GFP_KERNEL 0U
#define GFP_KERNEL_ACCOUNT 0U
#define __GFP_NOWARN 0U
#define __GFP_RETRY_MAYFAIL 0U

/* module parameters: the default value, never set */
#define module_param(name, type, perm)
#define MODULE_PARM_DESC(name, desc)

#define ALIGN_DOWN(x, a) ((x) & ~((typeof(x))(a)-1))
/* each argument evaluated once, as the kernel's (a call as an argument) */
#define min(a, b)                                                              \
	({                                                                     \
		__typeof__(a) min_a_ = (a);                                    \
		__typeof__(b) min_b_ = (b);                                    \
		min_a_ < min_b_ ? min_a_ : min_b_;                             \
	})
#define max(a, b)                                                              \
	({                                                                     \
		__typeof__(a) max_a_ = (a);                                    \
		__typeof__(b) max_b_ = (b);                                    \
		max_a_ > max_b_ ? max_a_ : max_b_;                             \
	})
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define swap(a, b)                                                             \
	do {                                                                   \
		typeof(a) __t = (a);                                           \
		(a) = (b);                                                     \
		(b) = __t;                                                     \
	} while (0)
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}
/* x86-64: one mul and one div over the 128-bit product */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}
#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}
#define ilog2(n) (63 - __builtin_clzll((unsigned long long)(n)))
static inline size_t array_size(size_t a, size_t b)
{
	return a * b;
}

/* ---- compiler and memory barriers (x86-64 semantics) ---- */
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#if defined(__x86_64__) || defined(__i386__)
#define smp_wmb() barrier()
#define smp_rmb() barrier()
#define smp_mb__before_atomic() barrier()
#define smp_mb__after_atomic() barrier()
#else
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#endif

/* ---- CPUs, per-CPU areas, preemption ---- */
#define NR_CPUS 8
#define SHIM_PCPU_STRIDE 4096 /* bytes between two CPUs' copies */
extern unsigned int nr_cpu_ids;
/* the "current" CPU of the calling thread; the benchmark sets it */
/* local-exec: one %fs-relative load, as a global's (executables only) */
#define __shim_tls __thread __attribute__((__tls_model__("local-exec")))
extern __shim_tls int shim_cpu;
extern __shim_tls int shim_preempt_count;

#define smp_processor_id() shim_cpu
#define raw_smp_processor_id() shim_cpu
#define cpu_to_node(cpu) 0
#define per_cpu_ptr(p, cpu)                                                    \
	((typeof(p))((char *)(p) + (size_t)(cpu)*SHIM_PCPU_STRIDE))
#define this_cpu_ptr(p) per_cpu_ptr(p, shim_cpu)
/* this_cpu ops are single, non-mergeable RMWs of this CPU's copy */
#define __shim_this(x) (*(volatile typeof(x) *)per_cpu_ptr(&(x), shim_cpu))
#define this_cpu_read(x) (__shim_this(x))
#define this_cpu_write(x, v) (__shim_this(x) = (v))
#define this_cpu_add(x, v) (__shim_this(x) += (v))
#define this_cpu_inc(x) this_cpu_add(x, 1)
#define this_cpu_dec(x) this_cpu_add(x, -1)
#define this_cpu_inc_return(x) (__shim_this(x) += 1)
#define preempt_disable_notrace()                                              \
	do {                                                                   \
		shim_preempt_count++;                                          \
		barrier();                                                     \
	} while (0)
#define preempt_enable_notrace()                                               \
	do {                                                                   \
		barrier();                                                     \
		shim_preempt_count--;                                          \
	} while (0)
#define preempt_disable() preempt_disable_notrace()
#define preempt_enable() preempt_enable_notrace()

void *shim_alloc_percpu(size_t size, size_t align);
void free_percpu(void *p);
#define alloc_percpu(type)                                                     \
	((type *)shim_alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
/*
 * A static per-CPU variable: NR_CPUS copies at the stride, in one zeroed
 * area that @name aliases (so &name is a pointer to the first CPU's copy).
 */
#define DEFINE_PER_CPU(type, name)                                             \
	char __shim_pcpu_##name[NR_CPUS * SHIM_PCPU_STRIDE]                    \
		__attribute__((__aligned__(SHIM_PCPU_STRIDE)));                \
	extern __typeof__(type) name                                           \
		__attribute__((__alias__("__shim_pcpu_" #name)))
#define this_cpu_cmpxchg(x, o, n)                                              \
	({                                                                     \
		typeof(x) __o = (o);                                           \
		__atomic_compare_exchange_n(&__shim_this(x), &__o, (n), false, \
					    __ATOMIC_SEQ_CST,                  \
					    __ATOMIC_SEQ_CST);                 \
		__o;                                                           \
	})

/* ---- execution context: the benchmarks run in process context ---- */
#define in_nmi() 0
#define in_hardirq() 0
#define in_serving_softirq() 0

/* ---- cpumask ---- */
/* spelled as kmod/density.h spells it outside the kernel */
#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)
#define BITS_PER_TYPE(t) (sizeof(t) * 8)
typedef struct cpumask {
	unsigned long bits[(NR_CPUS + BITS_PER_LONG - 1) / BITS_PER_LONG];
} cpumask_t;

static inline void cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
	/* set_bit(): a locked RMW on x86 */
	__atomic_fetch_or(&m->bits[cpu / BITS_PER_LONG],
			  1UL << (cpu % BITS_PER_LONG), __ATOMIC_RELAXED);
}

/* as with CONFIG_CPUMASK_OFFSTACK=n: in place, never fails */
typedef cpumask_t cpumask_var_t[1];
#define zalloc_cpumask_var(m, gfp) (memset(*(m), 0, sizeof(**(m))), true)
#define free_cpumask_var(m) ((void)(m))

static inline void __cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
	m->bits[cpu / BITS_PER_LONG] |= 1UL << (cpu % BITS_PER_LONG);
}

static inline bool cpumask_test_and_clear_cpu(int cpu, cpumask_t *m)
{
	unsigned long bit = 1UL << (cpu % BITS_PER_LONG);

	return __atomic_fetch_and(&m->bits[cpu / BITS_PER_LONG], ~bit,
				  __ATOMIC_SEQ_CST) &
	       bit;
}

static inline bool cpumask_test_cpu(int cpu, const cpumask_t *m)
{
	/* unsigned, as the kernel's cpumask_check() makes it */
	unsigned int c = (unsigned int)cpu;

	return (READ_ONCE(m->bits[c / BITS_PER_LONG]) >> (c % BITS_PER_LONG)) &
	       1;
}

static inline void cpumask_clear(cpumask_t *m)
{
	memset(m, 0, sizeof(*m));
}

static inline bool cpumask_empty(const cpumask_t *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m->bits); i++)
		if (READ_ONCE(m->bits[i]))
			return false;
	return true;
}

static inline int shim_next_cpu(int cpu, const cpumask_t *m)
{
	for (cpu++; cpu < (int)nr_cpu_ids; cpu++)
		if (cpumask_test_cpu(cpu, m))
			return cpu;
	return (int)nr_cpu_ids;
}

#define for_each_cpu(cpu, m)                                                   \
	for ((cpu) = shim_next_cpu(-1, m); (cpu) < (int)nr_cpu_ids;            \
	     (cpu) = shim_next_cpu(cpu, m))
#define for_each_possible_cpu(cpu)                                             \
	for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)
#define cpu_possible(cpu) ((unsigned int)(cpu) < nr_cpu_ids)
#define num_possible_cpus() nr_cpu_ids
#define num_online_cpus() nr_cpu_ids
#define for_each_online_cpu(cpu) for_each_possible_cpu (cpu)
/* no CPU hotplug here */
#define cpus_read_lock() barrier()
#define cpus_read_unlock() barrier()
/* one thread, nothing to yield to */
#define cond_resched() barrier()

/* ---- time: all CLOCK_MONOTONIC, as the kernel's clocks are monotonic ---- */
u64 local_clock(void);
u64 ktime_get_ns(void);
u64 ktime_get_mono_fast_ns(void);

/* ---- atomics (x86-64: locked RMWs) ---- */
typedef struct {
	int counter;
} atomic_t;
typedef struct {
	s64 counter;
} atomic64_t;
#define ATOMIC_INIT(i)                                                         \
	{                                                                      \
		(i)                                                            \
	}
#define atomic_read(v) READ_ONCE((v)->counter)
#define atomic_set(v, i) WRITE_ONCE((v)->counter, (i))
#define atomic_add(i, v)                                                       \
	((void)__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_sub(i, v)                                                       \
	((void)__atomic_fetch_sub(&(v)->counter, (i), __ATOMIC_RELAXED))
/* a function, as the kernel's: takes the void * of a callback's argument */
static inline void atomic_inc(atomic_t *v)
{
	atomic_add(1, v);
}
#define atomic_dec(v) atomic_sub(1, v)
#define atomic_add_return(i, v)                                                \
	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v) atomic_add_return(1, v)
#define atomic_dec_return(v) atomic_add_return(-1, v)
#define atomic_dec_and_test(v) (atomic_dec_return(v) == 0)
#define atomic_fetch_add(i, v)                                                 \
	__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_xchg(v, i)                                                      \
	__atomic_exchange_n(&(v)->counter, (i), __ATOMIC_SEQ_CST)
typedef struct {
	long counter;
} atomic_long_t;
#define ATOMIC_LONG_INIT(i) ATOMIC_INIT(i)
#define atomic_long_read(v) atomic_read(v)
#define atomic_long_add(i, v) atomic_add(i, v)
#define atomic_long_inc(v) atomic_add(1, v)
#define atomic_long_dec(v) atomic_dec(v)
#define atomic64_read(v) atomic_read(v)
#define atomic64_set(v, i) atomic_set(v, i)
#define atomic64_add(i, v) atomic_add(i, v)
#define atomic64_inc(v) atomic_add(1, v)
#define atomic64_add_return(i, v) atomic_add_return(i, v)

#define cmpxchg(p, o, n)                                                       \
	({                                                                     \
		typeof(*(p)) __o = (o);                                        \
		__atomic_compare_exchange_n(p, &__o, (n), false,               \
					    __ATOMIC_SEQ_CST,                  \
					    __ATOMIC_SEQ_CST);                 \
		__o;                                                           \
	})
#define xchg(p, v) __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST)

/* ---- RCU: one thread, nothing to wait for ---- */
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()
#define rcu_dereference(p) READ_ONCE(p)

/* ---- locks, wait queues, irq_work: never contended here ---- */
struct mutex {
	int locked;
};
#define __MUTEX_INITIALIZER(name)                                              \
	{                                                                      \
		0                                                              \
	}
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)
#define mutex_lock(m) ((m)->locked = 1)
#define mutex_unlock(m) ((m)->locked = 0)
typedef struct {
	int locked;
} spinlock_t;
#define spin_lock(l) ((l)->locked = 1)
#define spin_unlock(l) ((l)->locked = 0)
typedef struct {
	int dummy;
} wait_queue_head_t;
struct kref {
	int refcount;
};
static inline void kref_init(struct kref *k)
{
	k->refcount = 1;
}
static inline void kref_get(struct kref *k)
{
	__atomic_add_fetch(&k->refcount, 1, __ATOMIC_RELAXED);
}
static inline int kref_put(struct kref *k, void (*release)(struct kref *))
{
	if (__atomic_sub_fetch(&k->refcount, 1, __ATOMIC_ACQ_REL))
		return 0;
	release(k);
	return 1;
}

struct irq_work {
	void (*func)(struct irq_work *work);
	unsigned long queued;
};
static inline void init_irq_work(struct irq_work *w,
				 void (*func)(struct irq_work *))
{
	w->func = func;
	w->queued = 0;
}
/*
 * Counted. In the benchmarks, not run: a benchmark runs the work itself,
 * if it wants the wake to happen. In the KUnit suites (SHIM_KUNIT), run at
 * once, as the self-IPI a producer in process context raises runs it in
 * the kernel, so that irq_work_sync() finds it done.
 */
static inline bool irq_work_queue(struct irq_work *w)
{
	w->queued++;
#if SHIM_KUNIT
	w->func(w);
#endif
	return true;
}
static inline void irq_work_sync(struct irq_work *w)
{
	(void)w;
}

/* ---- allocation ---- */
void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kvzalloc_node(size_t size, gfp_t gfp, int node);
#define kvzalloc(size, gfp) kvzalloc_node(size, gfp, 0)
void *krealloc_array(void *p, size_t n, size_t size, gfp_t gfp);
void kfree(const void *p);
void kvfree(const void *p);
void *kvmalloc_array(size_t n, size_t size, gfp_t gfp);

/* ---- lists (include/linux/list.h) ---- */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	__list_add(n, h, h->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__list_add(n, h->prev, h);
}

static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;
	e->prev = NULL;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_splice(const struct list_head *list,
			       struct list_head *head)
{
	struct list_head *first = list->next, *last = list->prev;
	struct list_head *at = head->next;

	if (list_empty(list))
		return;
	first->prev = head;
	head->next = first;
	last->next = at;
	at->prev = last;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member)                                    \
	list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member)                                           \
	list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_for_each_entry(pos, head, member)                                 \
	for (pos = list_first_entry(head, typeof(*pos), member);               \
	     &pos->member != (head); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                         \
	for (pos = list_first_entry(head, typeof(*pos), member),               \
	    n = list_next_entry(pos, member);                                  \
	     &pos->member != (head); pos = n, n = list_next_entry(n, member))

/* ---- bsearch: lib/bsearch.c is out of line, cmp an indirect call ---- */
typedef int (*cmp_func_t)(const void *a, const void *b);
void *shim_bsearch(const void *key, const void *base, size_t num, size_t size,
		   cmp_func_t cmp);
#define bsearch shim_bsearch

/* ---- sort: lib/sort.c's heapsort, out of line, cmp an indirect call ---- */
typedef void (*swap_func_t)(void *a, void *b, int size);
void sort(void *base, size_t num, size_t size, cmp_func_t cmp,
	  swap_func_t swap);

/* ---- random ---- */
u32 get_random_u32_below(u32 ceil);
/* the sequence get_random_u32_below() draws from (kstubs.c) */
void shim_random_seed(u64 seed);

/* ---- processes and address spaces: no real ones in userspace ---- */
struct pid;
struct task_struct;
struct netlink_ext_ack;
enum pid_type { PIDTYPE_PID, PIDTYPE_TGID };
struct mm_struct {
	int dummy;
};
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
};
struct vma_iterator {
	struct mm_struct *mm;
	unsigned long addr;
};
static inline void vma_iter_init(struct vma_iterator *vmi, struct mm_struct *mm,
				 unsigned long addr)
{
	vmi->mm = mm;
	vmi->addr = addr;
}
static inline struct vm_area_struct *shim_vma_next(struct vma_iterator *vmi)
{
	(void)vmi;
	return NULL;
}
#define for_each_vma(vmi, vma) while (((vma) = shim_vma_next(&(vmi))) != NULL)
#define mmap_read_lock(mm) ((void)(mm))
#define mmap_read_unlock(mm) ((void)(mm))
static inline struct task_struct *get_pid_task(struct pid *pid,
					       enum pid_type type)
{
	(void)pid;
	(void)type;
	return NULL;
}
static inline struct mm_struct *get_task_mm(struct task_struct *task)
{
	(void)task;
	return NULL;
}
static inline struct task_struct *pid_task(struct pid *pid, enum pid_type type)
{
	(void)pid;
	(void)type;
	return NULL;
}
/* no task is ever found, so no thread is walked */
#define for_each_thread(p, t) for ((t) = (p); (t); (t) = NULL)
#define put_task_struct(t) ((void)(t))
#define mmput(mm) ((void)(mm))

/*
 * Tracepoints (kmod/trace.h): never enabled here, so a caller's
 * trace_<name>_enabled() branch is never taken, as when nobody traces.
 */
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                 \
	static inline bool trace_##name##_enabled(void)                        \
	{                                                                      \
		return false;                                                  \
	}                                                                      \
	static inline void trace_##name(proto) {}

/* ---- what the KUnit suites use beyond the module's code ---- */
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a)-1)) == 0)
#define ULONG_MAX (~0UL)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define spin_lock_init(l) ((l)->locked = 0)
/* nothing migrates a case: CPU 0 but in smp_call_function_single() */
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define cpu_online(cpu) cpu_possible(cpu)

typedef void (*smp_call_func_t)(void *info);
/* @func on @cpu: the calling thread as that CPU for the call */
static inline int smp_call_function_single(int cpu, smp_call_func_t func,
					   void *info, int wait)
{
	int self = shim_cpu;

	(void)wait;
	shim_cpu = cpu;
	func(info);
	shim_cpu = self;
	return 0;
}

static inline void cpumask_clear_cpu(int cpu, cpumask_t *m)
{
	__atomic_fetch_and(&m->bits[cpu / BITS_PER_LONG],
			   ~(1UL << (cpu % BITS_PER_LONG)), __ATOMIC_RELAXED);
}

static inline unsigned int cpumask_weight(const cpumask_t *m)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m->bits); i++)
		n += __builtin_popcountl(READ_ONCE(m->bits[i]));
	return n;
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	void *p = kvmalloc_array(n, size, gfp);

	return p ? memset(p, 0, n * size) : NULL;
}

/*
 * The kernel's prandom state API (include/linux/prandom.h), the same
 * generator (lib/random32.c's four-component Tausworthe, seeded as
 * prandom_seed_state() seeds it): a seeded case draws the same numbers
 * natively and in the kernel, so a seed that fails in the debug VM fails
 * the same way under ctest.
 */
struct rnd_state {
	u32 s1, s2, s3, s4;
};

static inline u32 __shim_seed(u32 x, u32 m)
{
	return x < m ? x + m : x;
}

static inline void prandom_seed_state(struct rnd_state *st, u64 seed)
{
	u32 i = (u32)((seed >> 32) ^ (seed << 10) ^ seed);

	st->s1 = __shim_seed(i, 2U);
	st->s2 = __shim_seed(i, 8U);
	st->s3 = __shim_seed(i, 16U);
	st->s4 = __shim_seed(i, 128U);
}

/* one Tausworthe step of a component: shifts a, b, d, mask c */
static inline u32 __shim_taus(u32 s, unsigned int a, unsigned int b, u32 c,
			      unsigned int d)
{
	return ((s & c) << d) ^ (((s << a) ^ s) >> b);
}

static inline u32 prandom_u32_state(struct rnd_state *st)
{
	st->s1 = __shim_taus(st->s1, 6, 13, 0xfffffffeU, 18);
	st->s2 = __shim_taus(st->s2, 2, 27, 0xfffffff8U, 2);
	st->s3 = __shim_taus(st->s3, 13, 21, 0xfffffff0U, 7);
	st->s4 = __shim_taus(st->s4, 3, 12, 0xffffff80U, 13);
	return st->s1 ^ st->s2 ^ st->s3 ^ st->s4;
}

#define pr_info(fmt, ...) printf(fmt, ##__VA_ARGS__)

/*
 * Kernel only: threads, completions, sleeps and files, which only the
 * cases the native runner leaves to KUnit call (tests/user/kunit_native.cpp
 * lists them). They build here and end the run if ever called.
 */
void __attribute__((__noreturn__)) shim_kernel_only(const char *fn);
struct file;
struct completion {
	int done;
};
#define O_RDONLY 0
#define MAX_ERRNO 4095
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-MAX_ERRNO)
#define PTR_ERR(p) ((long)(p))
static inline struct file *filp_open(const char *path, int flags, int mode)
{
	shim_kernel_only(__func__);
}
static inline ssize_t kernel_read(struct file *f, void *buf, size_t n,
				  loff_t *pos)
{
	shim_kernel_only(__func__);
}
static inline int filp_close(struct file *f, void *id)
{
	shim_kernel_only(__func__);
}
static inline struct task_struct *kthread_create(int (*fn)(void *), void *arg,
						 const char *name)
{
	shim_kernel_only(__func__);
}
static inline void kthread_bind(struct task_struct *p, unsigned int cpu)
{
	shim_kernel_only(__func__);
}
static inline int kthread_stop(struct task_struct *p)
{
	shim_kernel_only(__func__);
}
static inline int wake_up_process(struct task_struct *p)
{
	shim_kernel_only(__func__);
}
static inline void init_completion(struct completion *c)
{
	shim_kernel_only(__func__);
}
static inline void complete(struct completion *c)
{
	shim_kernel_only(__func__);
}
static inline void wait_for_completion(struct completion *c)
{
	shim_kernel_only(__func__);
}
static inline void usleep_range(unsigned long min, unsigned long max)
{
	shim_kernel_only(__func__);
}

#define EINVAL 22
#define E2BIG 7
#define EBUSY 16
#define ENOMEM 12
#define ESRCH 3
#define ENOENT 2

#endif /* _DAMON_PERF_KSHIM_H */
