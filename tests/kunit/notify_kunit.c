// SPDX-License-Identifier: GPL-2.0
/*
 * AGGREGATION delivery to subscribers: a message reaches the subscribed
 * socket while it is open, and nothing reaches another socket that binds
 * the same port id once the subscriber closed its own, even when that
 * happens while a delivery is under way (the test hook of
 * damon_perf_nl_deliver() releases the subscriber and binds its port id
 * between the liveness check and the send). A subscriber whose receive
 * buffer is full has its messages counted as dropped and learns it from
 * one ENOBUFS per run of drops, as a netlink listener that overran does.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <linux/damon_perf.h>

#include "netlink_notify.h"

/* A port id no test client autobinds (those are pids or negative). */
#define PORT 0x7ff0d417

static struct notify_test {
	struct socket *sub;		/* the subscriber */
	struct socket *thief;		/* binds PORT after sub closed */
	struct completion released;	/* sub passed netlink_remove() */
	struct completion closed;	/* sock_release(sub) returned */
	struct sock *target;		/* the hook acts for this socket */
	int thief_err;
	bool fired;
} nt;

static struct socket *port_sock(u32 portid, int *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_pid = portid };
	struct socket *sock;

	*err = sock_create_kern(&init_net, PF_NETLINK, SOCK_RAW,
				NETLINK_GENERIC, &sock);
	if (*err)
		return NULL;
	*err = kernel_bind(sock, (struct sockaddr *)&sa, sizeof(sa));
	if (*err) {
		sock_release(sock);
		return NULL;
	}
	return sock;
}

/*
 * Messages waiting on @sock (read and counted); the errors the reads met
 * on the way (ENOBUFS) in @errors, when given.
 */
static int drain_errors(struct socket *sock, int *errors)
{
	struct msghdr mh = { .msg_flags = MSG_DONTWAIT };
	char buf[64];
	struct kvec v = { .iov_base = buf, .iov_len = sizeof(buf) };
	int n = 0, ret;

	for (;;) {
		ret = kernel_recvmsg(sock, &mh, &v, 1, sizeof(buf),
				     MSG_DONTWAIT | MSG_TRUNC);
		if (ret > 0)
			n++;
		else if (ret == -ENOBUFS && errors)
			(*errors)++;
		else
			return n;
	}
}

static int drain(struct socket *sock)
{
	return drain_errors(sock, NULL);
}

static struct sk_buff *aggregation(void)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	struct nlmsghdr *h;

	if (!msg)
		return NULL;
	h = nlmsg_put(msg, 0, 0, GENL_ID_CTRL, GENL_HDRLEN, 0);
	if (!h) {
		nlmsg_free(msg);
		return NULL;
	}
	nlmsg_end(msg, h);
	return msg;
}

/* Runs first on NETLINK_URELEASE: the port id is free from now on. */
static int release_seen(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->portid == PORT)
		complete(&nt.released);
	return NOTIFY_DONE;
}

static struct notifier_block release_nb = {
	.notifier_call = release_seen,
	.priority = INT_MAX,
};

static int closer(void *arg)
{
	sock_release(nt.sub);
	complete(&nt.closed);
	return 0;
}

/*
 * With the subscriber found alive: release it (in a thread: its release
 * notifier waits for the delivery to end), wait until netlink freed its
 * port id, and bind the port id from another socket.
 */
static void close_and_steal(struct sock *sk)
{
	struct task_struct *t;

	if (sk != nt.target || nt.fired)
		return;
	nt.fired = true;
	t = kthread_run(closer, NULL, "nl_closer");
	if (IS_ERR(t)) {
		nt.thief_err = PTR_ERR(t);
		return;
	}
	wait_for_completion(&nt.released);
	nt.thief = port_sock(PORT, &nt.thief_err);
}

static void deliver_should_not_reach_a_new_port_owner(struct kunit *test)
{
	struct sk_buff *msg;
	int err;

	memset(&nt, 0, sizeof(nt));
	init_completion(&nt.released);
	init_completion(&nt.closed);
	nt.sub = port_sock(PORT, &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, netlink_register_notifier(&release_nb), 0);
	err = damon_perf_nl_subscribe(nt.sub->sk, PORT, true, NULL);
	KUNIT_ASSERT_EQ(test, err, 0);

	/* open: the subscriber gets each message */
	msg = aggregation();
	KUNIT_ASSERT_NOT_NULL(test, msg);
	damon_perf_nl_deliver(msg, NULL);
	KUNIT_EXPECT_EQ(test, drain(nt.sub), 1);

	/* closed mid-delivery, its port id bound by another socket */
	nt.target = nt.sub->sk;
	WRITE_ONCE(damon_perf_nl_deliver_hook, close_and_steal);
	msg = aggregation();
	KUNIT_ASSERT_NOT_NULL(test, msg);
	damon_perf_nl_deliver(msg, NULL);
	WRITE_ONCE(damon_perf_nl_deliver_hook, NULL);
	wait_for_completion(&nt.closed);
	netlink_unregister_notifier(&release_nb);
	KUNIT_EXPECT_TRUE(test, nt.fired);
	KUNIT_ASSERT_EQ(test, nt.thief_err, 0);
	KUNIT_ASSERT_NOT_NULL(test, nt.thief);
	KUNIT_EXPECT_EQ(test, drain(nt.thief), 0);

	/* and none afterwards: the subscription ended with the socket */
	msg = aggregation();
	if (msg)
		damon_perf_nl_deliver(msg, NULL);
	KUNIT_EXPECT_EQ(test, drain(nt.thief), 0);
	sock_release(nt.thief);
}

static void deliver_n(struct kunit *test, int n)
{
	struct sk_buff *msg;

	while (n--) {
		msg = aggregation();
		KUNIT_ASSERT_NOT_NULL(test, msg);
		damon_perf_nl_deliver(msg, NULL);
	}
}

static void full_buffer_should_count_drops_and_raise_enobufs(struct kunit *test)
{
	struct socket *sub;
	int err, errors = 0;

	sub = port_sock(PORT, &err);
	KUNIT_ASSERT_EQ(test, err, 0);
	err = damon_perf_nl_subscribe(sub->sk, PORT, true, NULL);
	KUNIT_ASSERT_EQ(test, err, 0);
	/* room for one message: the first is queued, the next ones not */
	WRITE_ONCE(sub->sk->sk_rcvbuf, 1);

	deliver_n(test, 5);
	KUNIT_EXPECT_EQ(test, damon_perf_nl_dropped(sub->sk), 4ULL);
	/* one ENOBUFS for the run of four drops, then the queued message */
	KUNIT_EXPECT_EQ(test, drain_errors(sub, &errors), 1);
	KUNIT_EXPECT_EQ(test, errors, 1);

	/* read: room again, then a new run of drops, a new ENOBUFS */
	errors = 0;
	deliver_n(test, 3);
	KUNIT_EXPECT_EQ(test, damon_perf_nl_dropped(sub->sk), 6ULL);
	KUNIT_EXPECT_EQ(test, drain_errors(sub, &errors), 1);
	KUNIT_EXPECT_EQ(test, errors, 1);

	/* room for every message: nothing dropped, no error */
	errors = 0;
	WRITE_ONCE(sub->sk->sk_rcvbuf, 1 << 20);
	deliver_n(test, 3);
	KUNIT_EXPECT_EQ(test, damon_perf_nl_dropped(sub->sk), 6ULL);
	KUNIT_EXPECT_EQ(test, drain_errors(sub, &errors), 3);
	KUNIT_EXPECT_EQ(test, errors, 0);
	sock_release(sub);
}

static struct kunit_case notify_cases[] = {
	KUNIT_CASE(deliver_should_not_reach_a_new_port_owner),
	KUNIT_CASE(full_buffer_should_count_drops_and_raise_enobufs),
	{}
};

static struct kunit_suite notify_suite = {
	.name = "damon_perf_notify",
	.test_cases = notify_cases,
};

kunit_test_suites(&notify_suite);
