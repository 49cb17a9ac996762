// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line fallbacks for what older kernels lack (compat.h says which
 * and why). Empty on a kernel that has everything.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched/coredump.h>
#ifdef DAMON_PERF_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

/**
 * damon_perf_get_pfnmap_pages() - References on the pages of a VM_PFNMAP
 * range.
 * @vma:	the mapping (VM_PFNMAP), whose owner the caller checked.
 * @start:	first address, page aligned, in @vma.
 * @nr:		pages wanted.
 * @pages:	filled with @nr referenced pages (put_page() each).
 *
 * perf maps its ring and AUX buffers with remap_pfn_range() since 6.15
 * (map_range() in kernel/events/core.c), so pin_user_pages() fails on
 * them; their pfns are ordinary kernel pages, each with its own reference
 * (high-order AUX allocations are split_page()d), and a reference keeps
 * one alive after perf frees its buffer.
 *
 * Context: process context, the mmap lock of @vma's mm held.
 * Return: @nr, or -EFAULT with no reference taken (a hole, a pfn without
 * a struct page, or a kernel without follow_pfnmap_start()).
 */
long damon_perf_get_pfnmap_pages(struct vm_area_struct *vma,
				 unsigned long start, unsigned int nr,
				 struct page **pages)
{
#ifdef DAMON_PERF_HAVE_FOLLOW_PFNMAP
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct follow_pfnmap_args args = {
			.vma = vma,
			.address = start + ((unsigned long)i << PAGE_SHIFT),
		};
		struct page *page = NULL;

		if (args.address >= vma->vm_end || follow_pfnmap_start(&args))
			goto err;
		if (pfn_valid(args.pfn)) {
			page = pfn_to_page(args.pfn);
			if (!get_page_unless_zero(page))
				page = NULL;
		}
		follow_pfnmap_end(&args);
		if (!page)
			goto err;
		pages[i] = page;
	}
	return nr;
err:
	while (i--)
		put_page(pages[i]);
#endif
	return -EFAULT;
}

#ifndef DAMON_PERF_HAVE_NL_ERR_MSG_FMT
#define NR_MSGBUF	16
#define MSGBUF_LEN	128

static char msgbuf[NR_MSGBUF][MSGBUF_LEN];
static unsigned int msgbuf_next;

/**
 * damon_perf_compat_err_msg_fmt() - NL_SET_ERR_MSG_FMT() where it is absent.
 * @extack:	where the message goes; NULL: nowhere.
 * @fmt:	printf format of the message, then its arguments.
 *
 * The message lives in a ring of static buffers, so it outlives the
 * handler until netlink_ack() copies it (a message is only overwritten
 * after 15 more have been formatted).
 *
 * Context: damon_perf_lock held (every netlink handler holds it), which
 * serializes the writers of the ring.
 */
void damon_perf_compat_err_msg_fmt(struct netlink_ext_ack *extack,
				   const char *fmt, ...)
{
	char *buf;
	va_list args;

	if (!extack)
		return;
	buf = msgbuf[msgbuf_next++ % NR_MSGBUF];
	va_start(args, fmt);
	vsnprintf(buf, MSGBUF_LEN, fmt, args);
	va_end(args);
	extack->_msg = buf;
}
#endif

#ifdef DAMON_PERF_HAVE_PERF_PARANOID_ANY
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/magic.h>
#include <linux/sched/task.h>
#include <linux/string.h>

/*
 * The sysctl's file as init's root sees it. kernel_read_file_from_path_initns()
 * (exported on 6.1 too) opens it so, but then refuses a file whose i_size is
 * 0, which every /proc/sys file is: it is open-coded here.
 */
static struct file *paranoid_open(void)
{
	struct path root;
	struct file *f;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
	f = file_open_root(&root, "/proc/sys/kernel/perf_event_paranoid",
			   O_RDONLY | O_NONBLOCK | O_NOFOLLOW, 0);
	path_put(&root);
	if (IS_ERR(f))
		return f;
	if (file_inode(f)->i_sb->s_magic != PROC_SUPER_MAGIC) {
		filp_close(f, NULL);
		return ERR_PTR(-EACCES);
	}
	return f;
}

/**
 * damon_perf_compat_allow_any() - perf_event_open()'s perf_paranoid_any()
 * test, for the current credentials.
 *
 * Debian's kernels (6.1, 6.12 and 7.2 alike) add perf_event_paranoid 3,
 * the default where CONFIG_SECURITY_PERF_EVENTS_RESTRICT is set (Debian's
 * own images, 12's included): perf_event_open() then refuses every caller
 * without CAP_SYS_ADMIN, CAP_PERFMON not being enough. perf_paranoid_any()
 * is an inline reading sysctl_perf_event_paranoid, which is not exported,
 * so the value is read from its /proc/sys file, looked up from init's root
 * (never the caller's: a caller that may chroot would choose the file, and
 * a path that never answers, a FUSE mount or a FIFO, would block here with
 * genl_mutex held), opened without blocking and taken only from procfs. A
 * value that cannot be read (no /proc in init's mount namespace) refuses
 * too: the check fails closed, and only for callers it could refuse at all.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EACCES as perf_event_open() would return it.
 */
int damon_perf_compat_allow_any(void)
{
	char buf[16] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int v;

	if (capable(CAP_SYS_ADMIN))
		return 0;
	f = paranoid_open();
	if (IS_ERR(f))
		return -EACCES;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &v))
		return -EACCES;
	return v > 2 ? -EACCES : 0;
}
#endif

#ifndef DAMON_PERF_HAVE_GENL_SPLIT_OPS
#include <net/genetlink.h>

/* Room for every command of the family: one op per command. */
#define COMPAT_GENL_OPS_MAX	32

static struct genl_ops compat_genl_ops[COMPAT_GENL_OPS_MAX] __ro_after_init;
static const struct genl_split_ops *compat_split __ro_after_init;
static unsigned int compat_n_split __ro_after_init;

/* The do of @cmd in the split table, or NULL. */
static const struct genl_split_ops *compat_split_do(u8 cmd)
{
	unsigned int i;

	for (i = 0; i < compat_n_split; i++)
		if (compat_split[i].cmd == cmd &&
		    (compat_split[i].flags & GENL_CMD_CAP_DO))
			return &compat_split[i];
	return NULL;
}

/**
 * damon_perf_compat_pre_doit() - 6.1 family pre_doit: the split op's hook.
 * @ops:	the folded op.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context.
 * Return: what the split op's pre_doit returns, 0 without one.
 */
int damon_perf_compat_pre_doit(const struct genl_ops *ops,
			       struct sk_buff *skb, struct genl_info *info)
{
	const struct genl_split_ops *op = compat_split_do(ops->cmd);

	return op && op->pre_doit ? op->pre_doit(op, skb, info) : 0;
}

/**
 * damon_perf_compat_post_doit() - 6.1 family post_doit: the split op's hook.
 * @ops:	the folded op.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context.
 */
void damon_perf_compat_post_doit(const struct genl_ops *ops,
				 struct sk_buff *skb, struct genl_info *info)
{
	const struct genl_split_ops *op = compat_split_do(ops->cmd);

	if (op && op->post_doit)
		op->post_doit(op, skb, info);
}

/**
 * damon_perf_compat_genl_ops() - Fold a split ops table into genl_ops (6.1).
 * @family:	the family, not registered yet; gets ops and n_ops.
 * @split:	the generated table: one entry per do and per dump.
 * @n:		its entries.
 *
 * The do and the dump of one command become one op. 6.1 keeps one policy
 * per op, so the two must share it (the spec gives them the same request).
 *
 * Context: module init.
 * Return: 0, or -EINVAL when the table does not fold.
 */
int damon_perf_compat_genl_ops(struct genl_family *family,
			       const struct genl_split_ops *split,
			       unsigned int n)
{
	unsigned int i, j, n_ops = 0;
	struct genl_ops *op;

	for (i = 0; i < n; i++) {
		const struct genl_split_ops *s = &split[i];

		for (j = 0; j < n_ops; j++)
			if (compat_genl_ops[j].cmd == s->cmd)
				break;
		if (j == n_ops) {
			if (WARN_ON(n_ops == COMPAT_GENL_OPS_MAX))
				return -EINVAL;
			n_ops++;
		}
		op = &compat_genl_ops[j];
		if (op->cmd == s->cmd && op->maxattr &&
		    WARN_ON(op->maxattr != s->maxattr))
			return -EINVAL;
		op->cmd = s->cmd;
		op->flags |= s->flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM);
		op->validate |= s->validate;
		op->policy = s->policy;
		op->maxattr = s->maxattr;
		if (s->flags & GENL_CMD_CAP_DO) {
			op->doit = s->doit;
		} else {
			op->start = s->start;
			op->dumpit = s->dumpit;
			op->done = s->done;
		}
	}
	compat_split = split;
	compat_n_split = n;
	family->ops = compat_genl_ops;
	family->n_ops = n_ops;
	return 0;
}
#endif

/**
 * damon_perf_compat_ptrace_may_read() - ptrace_may_access(@task,
 * PTRACE_MODE_READ_REALCREDS) for a module.
 * @task:	the task whose address space the caller wants to monitor.
 *
 * perf_event_open() asks ptrace_may_access() before it follows a task, but
 * no kernel exports it. This repeats __ptrace_may_access() for
 * PTRACE_MODE_READ_REALCREDS (6.1 to 7.x alike) and the capability
 * module's hook, cap_ptrace_access_check(): the caller's thread group;
 * else a real uid and gid equal to each of the task's uid, euid, suid and
 * gid, egid, sgid, or CAP_SYS_PTRACE in the task's user namespace; then a
 * dumpable task, or CAP_SYS_PTRACE in the user namespace its dumpability
 * is judged in (the mm's, or the task's exec_state's since 7.2); then
 * permitted capabilities that include the task's (same user namespace), or
 * CAP_SYS_PTRACE. The hooks of the other security modules
 * (security_ptrace_access_check(): SELinux, AppArmor, Smack; Yama's applies
 * to attaching only) are not exported either and are not consulted.
 *
 * Context: process context of the requesting task.
 * Return: true when the caller may read @task as ptrace would let it.
 */
bool damon_perf_compat_ptrace_may_read(struct task_struct *task)
{
	const struct cred *cred, *tcred;
#ifdef DAMON_PERF_HAVE_TASK_EXEC_STATE
	struct task_exec_state *es;
#else
	struct mm_struct *mm;
#endif
	bool ok;

	if (same_thread_group(task, current))
		return true;
	task_lock(task);
	rcu_read_lock();
	cred = current_cred();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) &&
	      uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) &&
	      gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) &&
	      gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (ok) {
		/* dumpability after the credentials: commit_creds() orders */
		smp_rmb();
#ifdef DAMON_PERF_HAVE_TASK_EXEC_STATE
		rcu_read_lock();
		es = rcu_dereference(task->exec_state);
		if (es && es->dumpable != TASK_DUMPABLE_OWNER &&
		    !ns_capable(es->user_ns, CAP_SYS_PTRACE))
			ok = false;
		rcu_read_unlock();
#else
		mm = task->mm;
		if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
		    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
			ok = false;
#endif
	}
	if (ok) {
		rcu_read_lock();
		cred = current_cred();
		tcred = __task_cred(task);
		ok = (cred->user_ns == tcred->user_ns &&
		      cap_issubset(tcred->cap_permitted,
				   cred->cap_permitted)) ||
		     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
		rcu_read_unlock();
	}
	task_unlock(task);
	return ok;
}
