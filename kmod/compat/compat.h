/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels damon_perf supports (6.1 LTS
 * and newer), keyed on capability macros from compat/Kbuild.include.
 */
#ifndef _DAMON_PERF_COMPAT_H
#define _DAMON_PERF_COMPAT_H

#ifndef DAMON_PERF_HAVE_TIMER_DELETE
#define timer_delete_sync(t) del_timer_sync(t)
#endif

/*
 * Generic netlink: the operations table generated from the spec
 * (netlink_gen.c) is one split op per do and per dump, as since 6.2. 6.1
 * has no split ops: here struct genl_split_ops is defined with the members
 * the generated table sets, and damon_perf_compat_genl_ops() folds the
 * table into the genl_ops of the family at init (compat.c), the do and the
 * dump of a command into one op; the family's pre_doit and post_doit call
 * the split op's hooks. A dump's parsed attributes: 6.1
 * genl_dumpit_info.attrs, since 6.2 genl_dumpit_info.info.attrs. Callers
 * include <net/genetlink.h>.
 */
#include <linux/types.h>
struct genl_family;
#ifdef DAMON_PERF_HAVE_GENL_SPLIT_OPS
struct genl_split_ops;
#define damon_perf_dumpit_attrs(cb) (genl_dumpit_info(cb)->info.attrs)
#define DAMON_PERF_GENL_SPLIT_OPS(table) \
	.split_ops = (table), .n_split_ops = ARRAY_SIZE(table)
static inline int
damon_perf_compat_genl_ops(struct genl_family *family,
			   const struct genl_split_ops *split, unsigned int n)
{
	return 0;
}
#else
#define damon_perf_dumpit_attrs(cb) (genl_dumpit_info(cb)->attrs)
struct genl_info;
struct genl_ops;
struct netlink_callback;
struct nla_policy;
struct sk_buff;
struct genl_split_ops {
	u8 cmd;
	u8 internal_flags;
	u8 flags;
	u8 validate;
	const struct nla_policy *policy;
	unsigned int maxattr;
	int (*pre_doit)(const struct genl_split_ops *ops, struct sk_buff *skb,
			struct genl_info *info);
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	void (*post_doit)(const struct genl_split_ops *ops,
			  struct sk_buff *skb, struct genl_info *info);
	int (*start)(struct netlink_callback *cb);
	int (*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	int (*done)(struct netlink_callback *cb);
};

int damon_perf_compat_pre_doit(const struct genl_ops *ops,
			       struct sk_buff *skb, struct genl_info *info);
void damon_perf_compat_post_doit(const struct genl_ops *ops,
				 struct sk_buff *skb, struct genl_info *info);
#define DAMON_PERF_GENL_SPLIT_OPS(table) \
	.pre_doit = damon_perf_compat_pre_doit, \
	.post_doit = damon_perf_compat_post_doit
int damon_perf_compat_genl_ops(struct genl_family *family,
			       const struct genl_split_ops *split,
			       unsigned int n);
#endif

/*
 * Test code lives in test builds only (scripts/kbuild.sh:
 * DAMON_PERF_TEST_EXPORTS=y), never in the module users load (make, make
 * install, DKMS), whatever the kernel's config: CONFIG_KUNIT is set by
 * distributions (Ubuntu, Fedora) and by the debug test kernel.
 *
 * EXPORT_SYMBOL_IF_KUNIT(): what the test modules (tests/kunit, tests/nmi,
 * tests/conform, tests/replay, tests/testpmu) call, exported in the
 * namespace the kernel reserves for KUnit's (the test modules import it),
 * in test builds only; a production build exports none of it.
 * <kunit/visibility.h> (6.2) is included first, when the kernel has it, so
 * that its definition, should a header include it later, is the one
 * replaced here.
 */
#include <linux/export.h>
#ifdef DAMON_PERF_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#endif
#ifdef DAMON_PERF_HAVE_NS_STRING
#define DAMON_PERF_IMPORT_KUNIT_NS() \
	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#define DAMON_PERF_EXPORT_FOR_TESTS(symbol) \
	EXPORT_SYMBOL_NS_GPL(symbol, "EXPORTED_FOR_KUNIT_TESTING")
#else
#define DAMON_PERF_IMPORT_KUNIT_NS() \
	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#define DAMON_PERF_EXPORT_FOR_TESTS(symbol) \
	EXPORT_SYMBOL_NS_GPL(symbol, EXPORTED_FOR_KUNIT_TESTING)
#endif
#undef EXPORT_SYMBOL_IF_KUNIT
#ifdef DAMON_PERF_TEST_EXPORTS
#define EXPORT_SYMBOL_IF_KUNIT(symbol) DAMON_PERF_EXPORT_FOR_TESTS(symbol)
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif
/*
 * DAMON_PERF_KUNIT_HOOKS: the KUnit suites' hooks (a function pointer the
 * ring producer, the kdamond loop and notification delivery call when
 * set) and helpers (SPE buffers of plain memory, private stats sets):
 * in test builds against a kernel with KUnit only, so that the NMI path of
 * a production build has no load and branch for them.
 */
#if defined(DAMON_PERF_TEST_EXPORTS) && IS_ENABLED(CONFIG_KUNIT)
#define DAMON_PERF_KUNIT_HOOKS 1
#else
#define DAMON_PERF_KUNIT_HOOKS 0
#endif

/* Kernels without WQ_PERCPU bind workqueues per CPU unless WQ_UNBOUND. */
#ifndef DAMON_PERF_HAVE_WQ_PERCPU
#define WQ_PERCPU 0
#endif

/*
 * The architecture walks user page tables locklessly with interrupts
 * disabled (what get_user_pages_fast() relies on); 6.9 renamed the symbol.
 */
#if defined(CONFIG_HAVE_FAST_GUP) || defined(CONFIG_HAVE_GUP_FAST)
#define DAMON_PERF_HAVE_LOCKLESS_PGTABLE_WALK
#endif

/*
 * damon_perf_pgtables_held(mm): with interrupts disabled on this CPU, can
 * none of @mm's page-table pages be freed until they are enabled again?
 * What a lockless walk of @mm needs (addr.c). Callers include
 * <linux/mm.h>.
 *
 * x86: 6.1 and 6.12 free page tables natively with tlb_remove_page()
 * (native_tlb_remove_table(); MMU_GATHER_RCU_TABLE_FREE only with
 * PARAVIRT, whose RCU path only Xen, Hyper-V and KVM's paravirtual TLB
 * flush take), after
 * the TLB-flush IPI to the CPUs of mm_cpumask(mm), so interrupts off hold
 * off a free only on a CPU in that mask. switch_mm_irqs_off() takes the
 * CPU out of the previous mm's mask (6.1, 6.12) before the switch to the
 * next task sets current: an NMI there sees current->mm while no flush
 * waits for it. 7.2 frees through RCU (MMU_GATHER_RCU_TABLE_FREE always),
 * which NMIs and interrupts-off hold off, and trims the mask lazily; the
 * test is then redundant, not wrong. nmi_uaccess_okay() covers the same
 * window (loaded_mm is LOADED_MM_SWITCHING, then the next mm, until
 * current changes), but reads cpu_tlbstate, which no kernel from 6.1 to
 * 7.2 exports (only cpu_tlbstate_shared), and tests CR3 against
 * current->mm, which a walk of an explicit mm does not need. The mask
 * test is exact, exported and one bit: this CPU's bit is set only by
 * this CPU (switch_mm_irqs_off()) and cleared only by this CPU (the
 * switch, unuse_temporary_mm() or 7.2's flush IPI handler), none of which
 * runs while this CPU has interrupts off in the walk.
 *
 * Elsewhere: arm64 (the only other architecture built for) selects
 * MMU_GATHER_RCU_TABLE_FREE and frees every page table through
 * tlb_remove_table(): an RCU grace period or an IPI to every CPU. An
 * architecture with neither is not walked at all.
 */
#if defined(CONFIG_X86)
#define damon_perf_pgtables_held(mm) \
	cpumask_test_cpu(raw_smp_processor_id(), mm_cpumask(mm))
#elif defined(CONFIG_MMU_GATHER_RCU_TABLE_FREE)
#define damon_perf_pgtables_held(mm) true
#else
#define damon_perf_pgtables_held(mm) false
#endif

#ifdef DAMON_PERF_HAVE_GUP_VMAS
#define damon_perf_pin_user_pages(start, nr, flags, pages) \
	pin_user_pages(start, nr, flags, pages, NULL)
#else
#define damon_perf_pin_user_pages(start, nr, flags, pages) \
	pin_user_pages(start, nr, flags, pages)
#endif

/*
 * Page references behind a VM_PFNMAP range (perf's buffers since 6.15,
 * which pin_user_pages() refuses); -EFAULT where the kernel has no
 * follow_pfnmap_start() (its perf buffers are ordinary mappings).
 */
struct vm_area_struct;
struct page;
long damon_perf_get_pfnmap_pages(struct vm_area_struct *vma,
				 unsigned long start, unsigned int nr,
				 struct page **pages);

#ifndef DAMON_PERF_HAVE_HRTIMER_SETUP
#include <linux/hrtimer.h>

static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*fn)(struct hrtimer *),
				 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#endif

/*
 * Formatted extack messages (NL_SET_ERR_MSG_FMT: 6.2). The fallback
 * formats into a small ring of static buffers (compat.c), so the message
 * outlives the handler until netlink_ack() copies it; callers hold
 * damon_perf_lock, which every netlink handler does.
 */
#ifndef DAMON_PERF_HAVE_NL_ERR_MSG_FMT
struct netlink_ext_ack;
__printf(2, 3)
void damon_perf_compat_err_msg_fmt(struct netlink_ext_ack *extack,
				   const char *fmt, ...);
#define NL_SET_ERR_MSG_FMT(extack, fmt, args...) \
	damon_perf_compat_err_msg_fmt(extack, fmt, ##args)
#endif

/*
 * The data address of a perf sample, 0 when it has none. Newer
 * perf_sample_data_init() flags PERF_SAMPLE_ADDR for a non-zero address
 * (software events such as page-faults) and PMU drivers flag what they
 * fill, so an unflagged data->addr is stack garbage; older init always
 * writes data->addr, 0 when unknown. Callers include <linux/perf_event.h>.
 */
#ifdef DAMON_PERF_HAVE_SAMPLE_ADDR_FLAG
#define damon_perf_sample_addr(data) ({				\
	const struct perf_sample_data *__data = (data);			\
	(__data->sample_flags & PERF_SAMPLE_ADDR) ? __data->addr : 0;	\
})
#else
#define damon_perf_sample_addr(data) ((data)->addr)
#endif

/*
 * perf_allow_kernel(): the perf_event_open() check for counting kernel
 * events and for physical addresses. Exported where it takes no argument
 * (6.12, 7.2); 6.1 has only an inline taking the attributes, whose LSM
 * hook a module cannot reach, so nothing is checked there (perf_source.c,
 * may_open()).
 */
#ifdef DAMON_PERF_HAVE_PERF_ALLOW_KERNEL
#define damon_perf_allow_kernel() perf_allow_kernel()
#else
#define damon_perf_allow_kernel() 0
#endif

/*
 * perf_paranoid_any(): Debian's perf_event_paranoid 3, under which
 * perf_event_open() wants CAP_SYS_ADMIN (compat.c). Kernels without the
 * patch have no such level: nothing to check.
 */
#ifdef DAMON_PERF_HAVE_PERF_PARANOID_ANY
int damon_perf_compat_allow_any(void);
#define damon_perf_allow_any() damon_perf_compat_allow_any()
#else
#define damon_perf_allow_any() 0
#endif

/*
 * ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS), which no kernel
 * exports: the uid, dumpability and capability checks (compat.c).
 */
struct task_struct;
bool damon_perf_compat_ptrace_may_read(struct task_struct *task);

/*
 * Multicast groups whose joiners the kernel checks for CAP_SYS_ADMIN
 * (GENL_MCAST_CAP_SYS_ADMIN: 6.7). Without the flag any user may join a
 * generic netlink group, so nothing may be multicast: the group reports no
 * listeners. Callers include <net/genetlink.h>.
 */
#ifdef DAMON_PERF_HAVE_GENL_MCAST_CAP
#define DAMON_PERF_GENL_MCAST_FLAGS GENL_MCAST_CAP_SYS_ADMIN
#define damon_perf_genl_has_privileged_listeners(family) \
	genl_has_listeners(family, &init_net, 0)
#else
#define DAMON_PERF_GENL_MCAST_FLAGS 0
#define damon_perf_genl_has_privileged_listeners(family) false
#endif

/* KUnit helpers older kernels lack */
#include "kunit.h"

#endif /* _DAMON_PERF_COMPAT_H */
