// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: fault injection (nlattack inject) and a PROBE_ADD whose reply
 * cannot be sent (nlattack replyfail); main.c has what they do.
 */
#include "common.h"

enum step {
	S_CTX_NEW,
	S_TARGET_ADD,
	S_PROBE_ADD,
	S_SET_FILTERS,
	S_SET_ATTRS,
	S_START,
	S_NR
};

static const char *const step_name[S_NR] = {
	"context creation",
	"target add",
	"probe add",
	"filters",
	"attributes (ring size)",
	"start (probe arm, rings, kdamond)"
};

/* The request of @st against context @id (0 for CTX_NEW). */
static void step_msg(struct buf *b, int st, uint32_t id, pid_t pid)
{
	size_t n, m;

	switch (st) {
	case S_CTX_NEW:
		msg_begin(b, fam, DAMON_PERF_CMD_CTX_NEW, NLM_F_ACK);
		put_str(b, DAMON_PERF_A_CTX_NAME, "inj");
		break;
	case S_TARGET_ADD:
		ctx_msg(b, DAMON_PERF_CMD_TARGET_ADD, id);
		put_pid_target(b, pid);
		break;
	case S_PROBE_ADD:
		ctx_msg(b, DAMON_PERF_CMD_PROBE_ADD, id);
		put_fault_probe(b);
		break;
	case S_SET_FILTERS:
		ctx_msg(b, DAMON_PERF_CMD_SET_FILTERS, id);
		n = nest_start(b, DAMON_PERF_A_FILTERS);
		m = nest_start(b, DAMON_PERF_FILTERS_A_FILTER);
		put_u32(b, DAMON_PERF_FILTER_A_TYPE, DAMON_PERF_FILTER_CPUMASK);
		put_flag(b, DAMON_PERF_FILTER_A_ALLOW);
		put_str(b, DAMON_PERF_FILTER_A_CPUS, "0-1");
		nest_end(b, m);
		m = nest_start(b, DAMON_PERF_FILTERS_A_FILTER);
		put_u32(b, DAMON_PERF_FILTER_A_TYPE, DAMON_PERF_FILTER_TID);
		put_flag(b, DAMON_PERF_FILTER_A_ALLOW);
		put_u32(b, DAMON_PERF_FILTER_A_TID, (uint32_t)pid);
		nest_end(b, m);
		nest_end(b, n);
		break;
	case S_SET_ATTRS:
		ctx_msg(b, DAMON_PERF_CMD_SET_ATTRS, id);
		n = nest_start(b, DAMON_PERF_A_ATTRS);
		put_u32(b, DAMON_PERF_ATTRS_A_RING_SIZE, 4096);
		put_u64(b, DAMON_PERF_ATTRS_A_SAMPLE_US, 2000);
		put_u64(b, DAMON_PERF_ATTRS_A_AGGR_US, 40000);
		nest_end(b, n);
		break;
	default:
		ctx_msg(b, DAMON_PERF_CMD_START, id);
		break;
	}
	msg_end(b);
}

/* Build context "inj" up to (not including) step @st; its id. */
static uint32_t step_setup(struct nl *nl, int st, pid_t pid)
{
	uint32_t id = 0;
	struct reply r;
	struct buf b;
	int i;

	delete_all(nl);
	if (st == S_CTX_NEW)
		return 0;
	step_msg(&b, S_CTX_NEW, 0, pid);
	xfer(nl, &b, reply_id_cb, &id, &r);
	if (r.err || !id) {
		fail("inject: setup: CTX_NEW: %d %s", r.err, r.msg);
		return 0;
	}
	for (i = S_TARGET_ADD; i < st; i++) {
		step_msg(&b, i, id, pid);
		xfer(nl, &b, NULL, NULL, &r);
		if (r.err) {
			fail("inject: setup: %s: %d %s", step_name[i], r.err,
			     r.msg);
			return 0;
		}
	}
	return id;
}

/* What step @st built on context @id, per CTX_GET: 1 built, 0 not. */
static int step_built(struct nl *nl, int st, uint32_t id)
{
	struct mctx k;
	int i;

	if (st == S_CTX_NEW) {
		struct ctxlist l;

		list_ctxs(nl, &l, NULL, NULL);
		for (i = 0; i < l.n; i++)
			if (!strcmp(l.c[i].name, "inj"))
				return 1;
		return 0;
	}
	if (get_ctx(nl, id, &k))
		return -1;
	switch (st) {
	case S_TARGET_ADD:
		return k.nt > 0;
	case S_PROBE_ADD:
		return k.p[1].used || k.p[2].used || k.p[3].used;
	case S_SET_FILTERS:
		return k.nf > 0;
	case S_SET_ATTRS:
		return k.attrs[DAMON_PERF_ATTRS_A_RING_SIZE] == 4096;
	default:
		return k.state == DAMON_PERF_CTX_STATE_RUNNING;
	}
}

int do_inject(struct nl *nl, pid_t pid)
{
	unsigned long total_inj = 0, total_err = 0;
	int st;

	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		perror("nlattack: /proc/thread-self/fail-nth");
		return 2;
	}
	for (st = 0; st < S_NR; st++) {
		int n, injected = 0, errors = 0, survived = 0, lost = 0;

		for (n = 1; n <= 400; n++) {
			uint32_t id = step_setup(nl, st, pid), nid = 0;
			struct reply r;
			struct buf b;
			int built;

			if (st != S_CTX_NEW && !id)
				break;
			step_msg(&b, st, id, pid);
			inject_n = n;
			xfer(nl, &b, reply_id_cb, &nid, &r);
			inject_n = 0;
			if (!inject_fired)
				break; /* fewer than n fault sites: all done */
			injected++;
			if (!r.acked && r.err == -ETIMEDOUT) {
				/* the failed allocation was netlink's own reply or ack */
				lost++;
				continue;
			}
			if (!r.acked || r.err > 0) {
				fail("inject: %s, site %d: no proper reply (%d)",
				     step_name[st], n, r.err);
				continue;
			}
			built = step_built(nl, st, id);
			if (r.err) {
				errors++;
				if (built)
					fail("inject: %s, site %d: failed (%d %s) but was built",
					     step_name[st], n, r.err, r.msg);
				/* a retry succeeds */
				step_msg(&b, st, id, pid);
				xfer(nl, &b, NULL, NULL, &r);
				if (r.err)
					fail("inject: %s, site %d: retry failed: %d %s",
					     step_name[st], n, r.err, r.msg);
				else if (step_built(nl, st, id) != 1)
					fail("inject: %s, site %d: retry succeeded, nothing built",
					     step_name[st], n);
			} else {
				survived++; /* a failure the kernel absorbed */
				if (built != 1)
					fail("inject: %s, site %d: succeeded, nothing built",
					     step_name[st], n);
			}
		}
		delete_all(nl);
		printf("nlattack: inject: %s: %d fault sites, %d failed with an error, %d absorbed, %d lost the reply\n",
		       step_name[st], injected, errors, survived, lost);
		total_inj += (unsigned long)injected;
		total_err += (unsigned long)errors;
	}
	printf("nlattack: inject: total: %lu allocations failed, %lu requests failed with an error and then succeeded on retry\n",
	       total_inj, total_err);
	return total_inj ? 0 : 1;
}

/* ---- a reply that cannot be sent ---- */

/* The probes context @id has per CTX_GET, -1 if it cannot be read. */
static int nr_probes(struct nl *nl, uint32_t id)
{
	struct mctx k;
	int i, n = 0;

	if (get_ctx(nl, id, &k))
		return -1;
	for (i = 1; i <= 3; i++)
		n += !!k.p[i].used;
	return n;
}

/*
 * PROBE_ADD from a socket whose receive queue is full: the kernel cannot
 * queue the reply (netlink refuses it, EAGAIN, and marks the socket
 * congested, so every later reply and ack is refused too until the queue
 * is read empty). The probe must not stay behind, nor its PMU ownership
 * (another context adds a probe of the same PMU type), and once the
 * sender read its queue a retry adds exactly one probe.
 */
int do_replyfail(struct nl *nl, pid_t pid)
{
	static uint8_t rbuf[1 << 16];
	struct nl v = { 0 };
	int one = 1, small = 1, i, n, got, enobufs = 0, left, owned;
	uint32_t id, id2 = 0;
	struct reply r;
	struct buf b;

	id = step_setup(nl, S_PROBE_ADD, pid);
	if (!id)
		return 1;
	v.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (v.fd < 0 ||
	    bind(v.fd, (void *)&(struct sockaddr_nl){ .nl_family = AF_NETLINK },
		 sizeof(struct sockaddr_nl))) {
		perror("nlattack: netlink socket");
		return 2;
	}
	setsockopt(v.fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* the smallest receive buffer the kernel allows */
	setsockopt(v.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	/* fill it: replies nobody reads, until netlink refuses one */
	for (i = 0; i < 16; i++) {
		ctx_msg(&b, DAMON_PERF_CMD_CTX_GET, id);
		msg_end(&b);
		((struct nlmsghdr *)b.d)->nlmsg_seq = ++v.seq;
		if (send(v.fd, b.d, b.len, 0) < 0) {
			perror("nlattack: send");
			return 2;
		}
	}
	ctx_msg(&b, DAMON_PERF_CMD_PROBE_ADD, id);
	put_fault_probe(&b);
	msg_end(&b);
	((struct nlmsghdr *)b.d)->nlmsg_seq = ++v.seq;
	if (send(v.fd, b.d, b.len, 0) < 0) {
		perror("nlattack: send");
		return 2;
	}
	left = nr_probes(nl, id);
	/* the PMU type is free: another context may own it now */
	msg_begin(&b, fam, DAMON_PERF_CMD_CTX_NEW, NLM_F_ACK);
	put_str(&b, DAMON_PERF_A_CTX_NAME, "inj2");
	msg_end(&b);
	xfer(nl, &b, reply_id_cb, &id2, &r);
	owned = -1;
	if (!r.err && id2) {
		ctx_msg(&b, DAMON_PERF_CMD_TARGET_ADD, id2);
		put_pid_target(&b, pid);
		msg_end(&b);
		xfer(nl, &b, NULL, NULL, &r);
		ctx_msg(&b, DAMON_PERF_CMD_PROBE_ADD, id2);
		put_fault_probe(&b);
		msg_end(&b);
		xfer(nl, &b, NULL, NULL, &r);
		owned = r.err == -EBUSY;
		if (r.err && r.err != -EBUSY)
			fail("replyfail: probe on a second context: %d %s",
			     r.err, r.msg);
		simple(nl, DAMON_PERF_CMD_CTX_DEL, id2, &r);
	} else {
		fail("replyfail: CTX_NEW inj2: %d %s", r.err, r.msg);
	}
	/* read the queue empty: what was queued, then the overrun */
	for (got = 0;;) {
		n = (int)recv(v.fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n > 0) {
			got++;
			continue;
		}
		if (n < 0 && errno == ENOBUFS) {
			enobufs = 1;
			continue;
		}
		break;
	}
	printf("nlattack: replyfail: %d replies queued, overrun %d; after the refused reply: %d probes, PMU type still owned %d\n",
	       got, enobufs, left, owned);
	if (!enobufs)
		fail("replyfail: the receive queue never overran");
	if (left != 0)
		fail("replyfail: %d probes left after a reply that was not sent",
		     left);
	if (owned != 0)
		fail("replyfail: the PMU type is still owned (%d)", owned);
	/* the retry, from the same socket, now read empty */
	ctx_msg(&b, DAMON_PERF_CMD_PROBE_ADD, id);
	put_fault_probe(&b);
	msg_end(&b);
	{
		struct timeval tv = { .tv_sec = 5 };

		setsockopt(v.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	xfer(&v, &b, NULL, NULL, &r);
	n = nr_probes(nl, id);
	printf("nlattack: replyfail: retry: %d %s, %d probes\n", r.err, r.msg,
	       n);
	if (r.err || n != 1)
		fail("replyfail: retry: %d %s, %d probes (want 0, 1)", r.err,
		     r.msg, n);
	close(v.fd);
	delete_all(nl);
	return 0;
}
