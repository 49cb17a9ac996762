/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AGGREGATION delivery (netlink_notify.c), as far as the KUnit tests reach
 * it: subscribing a socket, sending one message to every listener and
 * the count of messages a subscriber had no room for.
 */
#ifndef _DAMON_PERF_NETLINK_NOTIFY_H
#define _DAMON_PERF_NETLINK_NOTIFY_H

#include <linux/types.h>

struct damon_perf_owner;
struct netlink_ext_ack;
struct sk_buff;
struct sock;

int damon_perf_nl_subscribe(struct sock *sk, u32 portid, bool all,
			    struct netlink_ext_ack *extack);
void damon_perf_nl_deliver(struct sk_buff *msg,
			   const struct damon_perf_owner *owner);
u64 damon_perf_nl_dropped(struct sock *sk);

#if DAMON_PERF_KUNIT_HOOKS
/*
 * Test hook: when set, delivery calls it for each live subscriber's socket
 * with subscribers_lock held, after the subscriber was found alive and
 * just before the message goes out, so a test can release the socket and
 * bind its port id exactly there. Never set outside KUnit.
 */
typedef void (*damon_perf_nl_deliver_hook_fn)(struct sock *sk);
extern damon_perf_nl_deliver_hook_fn damon_perf_nl_deliver_hook;
#endif

#endif /* _DAMON_PERF_NETLINK_NOTIFY_H */
