// SPDX-License-Identifier: GPL-2.0
/*
 * AGGREGATION notifications of the "damon_perf" family: one message per
 * aggregation of any context.
 *
 * Notifications reach two kinds of listeners:
 *  - sockets that sent MONITOR_SUBSCRIBE (a privileged command): the
 *    message is queued on the subscribing socket itself, never sent to its
 *    port id. A subscriber without CAP_SYS_ADMIN gets only the
 *    aggregations of the contexts it owns (its euid, its PID namespace),
 *    as CTX_GET shows it only those. A subscription holds a reference
 *    on the socket and ends with MONITOR_UNSUBSCRIBE, when the socket is
 *    released (NETLINK_URELEASE notifier), or when delivery finds the
 *    socket dead.
 *    A message that finds the subscriber's receive buffer full is dropped
 *    and counted in the subscriber (debugfs "subscribers"), and the socket
 *    is told as netlink tells a listener it overran: its next recvmsg()
 *    fails with ENOBUFS, once per run of drops.
 *  - the "monitor" multicast group, only where the kernel checks
 *    CAP_SYS_ADMIN when a socket joins it (GENL_MCAST_CAP_SYS_ADMIN). On
 *    kernels without that flag any user may join a generic netlink group,
 *    so nothing is ever multicast there.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/debugfs.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <linux/damon_perf.h>

#include "ctx.h"
#include "debugfs.h"
#include "listener.h"
#include "netlink_internal.h"
#include "netlink_notify.h"

/* Subscribers of AGGREGATION notifications (MONITOR_SUBSCRIBE). */
struct subscriber {
	u32 portid;
	struct sock *sk;	/* reference held while subscribed */
	bool all;		/* CAP_SYS_ADMIN: every context */
	struct damon_perf_owner who;	/* else the contexts it owns */
	u64 dropped;		/* messages that found no room */
	bool congested;		/* ENOBUFS raised, nothing queued since */
	struct list_head list;
};

static LIST_HEAD(subscribers);
static DEFINE_MUTEX(subscribers_lock);	/* innermost: after damon_perf_lock */
static unsigned int nr_subscribers;
static struct dentry *subscribers_file;

#if DAMON_PERF_KUNIT_HOOKS
damon_perf_nl_deliver_hook_fn damon_perf_nl_deliver_hook;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_nl_deliver_hook);
#endif

static void subscriber_free(struct subscriber *s)
{
	list_del(&s->list);
	nr_subscribers--;
	sock_put(s->sk);
	damon_perf_owner_put(&s->who);
	kfree(s);
}

/*
 * A message for @s was dropped: count it and, once per run of drops, do
 * what netlink_overrun() (static in af_netlink.c) does for a netlink
 * listener: ENOBUFS as the socket's pending error, so that the next
 * recvmsg() fails with it and the subscriber learns it lost messages. A
 * run ends when a message is queued again. NETLINK_NO_ENOBUFS is not
 * honoured: the flag is private to af_netlink.c.
 */
static void subscriber_overrun(struct subscriber *s)
{
	s->dropped++;
	if (s->congested)
		return;
	s->congested = true;
	WRITE_ONCE(s->sk->sk_err, ENOBUFS);
	sk_error_report(s->sk);
}

/**
 * damon_perf_nl_subscribe() - Queue AGGREGATION notifications on @sk.
 * @sk:		the subscribing netlink socket (a reference is taken).
 * @portid:	its port id, for the release notifier.
 * @all:	notify every context's aggregations (the subscriber has
 *		CAP_SYS_ADMIN); else only those of the contexts the calling
 *		task owns (damon_perf_owner_get_current()).
 * @extack:	the reason of a refusal.
 *
 * Context: process context of the subscriber, may sleep.
 * Return: 0, -EALREADY (@sk is subscribed), -ENOSPC (64 subscribers) or
 * -ENOMEM.
 */
int damon_perf_nl_subscribe(struct sock *sk, u32 portid, bool all,
			    struct netlink_ext_ack *extack)
{
	struct subscriber *s;
	int ret = 0;

	mutex_lock(&subscribers_lock);
	list_for_each_entry(s, &subscribers, list) {
		if (s->sk == sk) {
			NL_SET_ERR_MSG(extack, "already subscribed");
			ret = -EALREADY;
			goto out;
		}
	}
	if (nr_subscribers >= 64) {
		NL_SET_ERR_MSG(extack, "too many subscribers");
		ret = -ENOSPC;
		goto out;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		ret = -ENOMEM;
		goto out;
	}
	sock_hold(sk);
	s->sk = sk;
	s->portid = portid;
	s->all = all;
	if (!all)
		damon_perf_owner_get_current(&s->who);
	list_add_tail(&s->list, &subscribers);
	nr_subscribers++;
out:
	mutex_unlock(&subscribers_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_nl_subscribe);

/**
 * damon_perf_nl_monitor_subscribe_doit() - MONITOR_SUBSCRIBE: queue AGGREGATION
 * notifications on the sending socket.
 * @skb:	the request.
 * @info:	its header and attributes.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno with the reason in the extack.
 */
int damon_perf_nl_monitor_subscribe_doit(struct sk_buff *skb,
					 struct genl_info *info)
{
	struct sock *sk = NETLINK_CB(skb).sk;

	if (!sk) {
		NL_SET_ERR_MSG(info->extack, "no sending socket");
		return -EINVAL;
	}
	return damon_perf_nl_subscribe(sk, info->snd_portid,
				       damon_perf_nl_admin(skb), info->extack);
}

/**
 * damon_perf_nl_monitor_unsubscribe_doit() - End the sender's subscription.
 * @skb:	the request.
 * @info:	its header and attributes.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0, or -ENOENT when the sender is not subscribed.
 */
int damon_perf_nl_monitor_unsubscribe_doit(struct sk_buff *skb,
					   struct genl_info *info)
{
	struct subscriber *s, *next;
	int ret = -ENOENT;

	mutex_lock(&subscribers_lock);
	list_for_each_entry_safe(s, next, &subscribers, list) {
		if (s->sk == NETLINK_CB(skb).sk) {
			subscriber_free(s);
			ret = 0;
		}
	}
	mutex_unlock(&subscribers_lock);
	if (ret)
		NL_SET_ERR_MSG(info->extack, "not subscribed");
	return ret;
}

/**
 * damon_perf_nl_deliver() - Send one AGGREGATION message to every listener.
 * @msg:	the message; consumed.
 * @owner:	the owner of the context it describes: subscribers without
 *		CAP_SYS_ADMIN that are not it are skipped. NULL: none is.
 *
 * Each subscriber gets a clone queued on its own socket, the one it
 * subscribed from, with sock_queue_rcv_skb(): the receive-buffer limit and
 * the socket's filter apply as for a netlink unicast, and a message that
 * does not fit is dropped (counted in the socket's drops and in the
 * subscriber, whose next recvmsg() fails with ENOBUFS: subscriber_overrun()).
 * It is never sent
 * to the subscriber's port id: netlink_release() takes the socket out of
 * the port table before it marks it dead and before NETLINK_URELEASE runs,
 * so another process may bind the same port id while the subscription
 * still exists, and a check of the socket followed by a unicast to the
 * port would reach that process. The socket itself cannot change hands:
 * the subscription holds a reference on it, and a message queued on it
 * after its release is freed with it.
 *
 * Context: process context, may sleep; takes subscribers_lock.
 */
void damon_perf_nl_deliver(struct sk_buff *msg,
			   const struct damon_perf_owner *owner)
{
	struct subscriber *s, *next;
	struct sk_buff *copy;
	int err;

	mutex_lock(&subscribers_lock);
	list_for_each_entry_safe(s, next, &subscribers, list) {
		/* released: end the subscription (the notifier would too) */
		if (sock_flag(s->sk, SOCK_DEAD)) {
			subscriber_free(s);
			continue;
		}
		if (owner && !s->all && !damon_perf_owner_same(owner, &s->who))
			continue;
		copy = skb_clone(msg, GFP_KERNEL);
		if (!copy) {
			subscriber_overrun(s);
			continue;
		}
#if DAMON_PERF_KUNIT_HOOKS
		{
			damon_perf_nl_deliver_hook_fn hook =
				READ_ONCE(damon_perf_nl_deliver_hook);

			if (hook)
				hook(s->sk);
		}
#endif
		err = sock_queue_rcv_skb(s->sk, copy);
		if (!err) {
			s->congested = false;
			continue;
		}
		kfree_skb(copy);
		/* no room; not the socket's filter or an LSM refusing it */
		if (err == -ENOMEM || err == -ENOBUFS)
			subscriber_overrun(s);
	}
	/* only where joining the group needs CAP_SYS_ADMIN */
	if (damon_perf_genl_has_privileged_listeners(&damon_perf_family)) {
		genlmsg_multicast(&damon_perf_family, msg, 0, 0, GFP_KERNEL);
		msg = NULL;
	}
	mutex_unlock(&subscribers_lock);
	nlmsg_free(msg);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_nl_deliver);

/**
 * damon_perf_nl_dropped() - The messages dropped for a subscriber.
 * @sk:		the subscribing socket.
 *
 * Context: process context, may sleep; takes subscribers_lock.
 * Return: the messages its receive buffer had no room for, or 0 when @sk
 * is not subscribed.
 */
u64 damon_perf_nl_dropped(struct sock *sk)
{
	struct subscriber *s;
	u64 dropped = 0;

	mutex_lock(&subscribers_lock);
	list_for_each_entry(s, &subscribers, list)
		if (s->sk == sk)
			dropped = s->dropped;
	mutex_unlock(&subscribers_lock);
	return dropped;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_nl_dropped);

/* debugfs "subscribers": one row per subscription */
static int subscribers_show(struct seq_file *m, void *v)
{
	struct subscriber *s;

	seq_puts(m, "portid all dropped\n");
	mutex_lock(&subscribers_lock);
	list_for_each_entry(s, &subscribers, list)
		seq_printf(m, "%u %d %llu\n", s->portid, s->all, s->dropped);
	mutex_unlock(&subscribers_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(subscribers);

static bool has_listeners(void)
{
	return READ_ONCE(nr_subscribers) ||
	       damon_perf_genl_has_privileged_listeners(&damon_perf_family);
}

/*
 * One AGGREGATION message: the summary and every region when they fit in
 * NLMSG_GOODSIZE, otherwise the summary and DAMON_PERF_A_TRUNCATED.
 * Nothing when nobody listens. Registered as a listener (listener.h) only
 * while the family is: process context (kdamond), may sleep; reads only
 * @ctx's immutable id, name and owner.
 */
static void notify_aggregated(struct damon_perf_ctx *ctx,
			      struct damon_perf_snapshot *snap)
{
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;
	u32 mark;

	if (!snap || !has_listeners())
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &damon_perf_family, 0,
			  DAMON_PERF_CMD_AGGREGATION);
	if (!hdr ||
	    nla_put_u32(msg, DAMON_PERF_A_CTX_ID, ctx->id) ||
	    nla_put_string(msg, DAMON_PERF_A_CTX_NAME, ctx->name) ||
	    damon_perf_nl_fill_snap(msg, snap))
		goto err;
	mark = msg->len;
	for (i = 0; i < snap->nr_regions; i++) {
		if (damon_perf_nl_fill_region(msg, &snap->regions[i])) {
			nlmsg_trim(msg, msg->data + mark);
			if (nla_put_flag(msg, DAMON_PERF_A_TRUNCATED))
				goto err;
			break;
		}
	}
	genlmsg_end(msg, hdr);
	damon_perf_nl_deliver(msg, &ctx->owner);
	return;
err:
	nlmsg_free(msg);
}

static int release_notify(struct notifier_block *nb, unsigned long event,
			  void *ptr)
{
	struct netlink_notify *n = ptr;
	struct subscriber *s, *next;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;
	/*
	 * The released socket is dead by now (sock_orphan() comes before the
	 * notifier); a socket that bound the same port id since then is not.
	 */
	mutex_lock(&subscribers_lock);
	list_for_each_entry_safe(s, next, &subscribers, list)
		if (s->portid == n->portid && sock_flag(s->sk, SOCK_DEAD))
			subscriber_free(s);
	mutex_unlock(&subscribers_lock);
	return NOTIFY_DONE;
}

static struct notifier_block release_nb = {
	.notifier_call = release_notify,
};

static const struct damon_perf_listener_ops listener_ops = {
	.aggregated = notify_aggregated,
};

static struct damon_perf_listener listener = {
	.ops = &listener_ops,
};

/**
 * damon_perf_nl_notify_init() - Watch netlink sockets for releases.
 *
 * A released socket's subscription ends (NETLINK_URELEASE). Adds the
 * debugfs file "subscribers" (port id, CAP_SYS_ADMIN, messages dropped).
 *
 * Context: module init, before the family is registered.
 * Return: 0 or a negative errno.
 */
int __init damon_perf_nl_notify_init(void)
{
	int ret = netlink_register_notifier(&release_nb);

	if (!ret)
		subscribers_file = debugfs_create_file("subscribers", 0400,
						       damon_perf_debugfs_root,
						       NULL, &subscribers_fops);
	return ret;
}

/**
 * damon_perf_nl_notify_start() - Let notifications go out: listen to the
 * aggregations.
 *
 * Context: module init, once the family is registered.
 */
void damon_perf_nl_notify_start(void)
{
	damon_perf_listener_register(&listener);
}

/**
 * damon_perf_nl_notify_stop() - Stop sending notifications.
 *
 * Waits for a notification being sent; none is sent after it returns.
 *
 * Context: module exit, before the family is unregistered.
 */
void damon_perf_nl_notify_stop(void)
{
	damon_perf_listener_unregister(&listener);
}

/**
 * damon_perf_nl_notify_exit() - Stop watching sockets, end subscriptions.
 *
 * Context: module exit (or init unwinding), the family unregistered.
 */
void damon_perf_nl_notify_exit(void)
{
	struct subscriber *s, *next;

	debugfs_remove(subscribers_file);
	subscribers_file = NULL;
	netlink_unregister_notifier(&release_nb);
	mutex_lock(&subscribers_lock);
	list_for_each_entry_safe(s, next, &subscribers, list)
		subscriber_free(s);
	mutex_unlock(&subscribers_lock);
}
