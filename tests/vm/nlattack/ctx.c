// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: the faulters (children taking user page faults, the targets) and
 * the context helpers every mode uses.
 */
#include "common.h"

pid_t faulters[2];

unsigned int fault_pause_us = 200;

/* Fault on 64 pages, rest a little (the machine is shared), again. */
static void fault_loop(void)
{
	size_t len = 64 << 12, off;
	unsigned char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	for (;;) {
		for (off = 0; off < len; off += 4096)
			p[off] = (unsigned char)off;
		madvise(p, len, MADV_DONTNEED);
		usleep(fault_pause_us);
	}
}

void start_faulters(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		faulters[i] = fork();
		if (!faulters[i]) {
			fault_loop();
		}
	}
}

void stop_faulters(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (faulters[i] > 0) {
			kill(faulters[i], SIGKILL);
			waitpid(faulters[i], NULL, 0);
		}
	}
}

/* ---- context helpers (used by both modes) ---- */

static void ctxlist_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1];
	struct ctxlist *l = arg;
	const uint8_t *p;
	size_t n;

	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (!tb[DAMON_PERF_A_CTX_ID] || l->n >= 64)
		return;
	l->c[l->n].id = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]);
	l->c[l->n].state = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_STATE]);
	snprintf(l->c[l->n].name, 32, "%s",
		 tb[DAMON_PERF_A_CTX_NAME] ?
			 (const char *)nla_data(tb[DAMON_PERF_A_CTX_NAME]) :
			 "");
	l->n++;
}

/*
 * The requests every mode builds its contexts from: ctx_msg() begins the
 * request of @cmd against context @id, the put_*() fill it, ack() sends it.
 */
void ctx_msg(struct buf *b, uint8_t cmd, uint32_t id)
{
	msg_begin(b, fam, cmd, NLM_F_ACK);
	put_u32(b, DAMON_PERF_A_CTX_ID, id);
}

/* A vaddr target: process @pid. */
void put_pid_target(struct buf *b, pid_t pid)
{
	size_t n = nest_start(b, DAMON_PERF_A_TARGET);

	put_u32(b, DAMON_PERF_TARGET_A_PID, (uint32_t)pid);
	nest_end(b, n);
}

/* The page-fault probe: every software page fault, user space only. */
void put_fault_probe(struct buf *b)
{
	size_t n = nest_start(b, DAMON_PERF_A_PROBE);

	put_u32(b, DAMON_PERF_PROBE_A_TYPE, 1); /* PERF_TYPE_SOFTWARE */
	put_u64(b, DAMON_PERF_PROBE_A_CONFIG, 2); /* page faults */
	put_u64(b, DAMON_PERF_PROBE_A_SAMPLE_PERIOD, 1);
	put_flag(b, DAMON_PERF_PROBE_A_EXCLUDE_KERNEL);
	nest_end(b, n);
}

/* Intervals short enough that a case waits little for an aggregation. */
void put_fast_attrs(struct buf *b)
{
	size_t n = nest_start(b, DAMON_PERF_A_ATTRS);

	put_u64(b, DAMON_PERF_ATTRS_A_SAMPLE_US, 1000);
	put_u64(b, DAMON_PERF_ATTRS_A_AGGR_US, 20000);
	put_u64(b, DAMON_PERF_ATTRS_A_UPDATE_US, 40000);
	nest_end(b, n);
}

/* Send request @b and read its ack; a refusal fails as @what. */
int ack(struct nl *nl, struct buf *b, const char *what)
{
	struct reply r;

	msg_end(b);
	xfer(nl, b, NULL, NULL, &r);
	if (r.err)
		fail("%s: %d %s", what, r.err, r.msg);
	return r.err;
}

void simple(struct nl *nl, uint8_t cmd, uint32_t id, struct reply *r)
{
	struct buf b;

	ctx_msg(&b, cmd, id);
	msg_end(&b);
	xfer(nl, &b, NULL, NULL, r);
}

void list_ctxs(struct nl *nl, struct ctxlist *l, msg_cb cb, void *arg)
{
	struct buf b;
	struct reply r;

	if (l)
		memset(l, 0, sizeof(*l));
	msg_begin(&b, fam, DAMON_PERF_CMD_CTX_GET, NLM_F_DUMP);
	msg_end(&b);
	xfer(nl, &b, cb ? cb : ctxlist_cb, cb ? arg : l, &r);
	if (r.err)
		fail("CTX_GET dump: %d %s", r.err, r.msg);
}

void delete_all(struct nl *nl)
{
	struct ctxlist l;
	struct reply r;
	int i;

	list_ctxs(nl, &l, NULL, NULL);
	for (i = 0; i < l.n; i++) {
		if (l.c[i].state == DAMON_PERF_CTX_STATE_RUNNING)
			simple(nl, DAMON_PERF_CMD_STOP, l.c[i].id, &r);
		simple(nl, DAMON_PERF_CMD_CTX_DEL, l.c[i].id, &r);
		if (r.err)
			fail("delete context %u: %d %s", l.c[i].id, r.err,
			     r.msg);
	}
}

void reply_id_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1];
	const uint8_t *p;
	size_t n;

	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (tb[DAMON_PERF_A_CTX_ID])
		*(uint32_t *)arg = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]);
}

static void snap_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1], *a;
	struct snapinfo *s = arg;
	const uint8_t *p;
	size_t n;

	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (tb[DAMON_PERF_A_SNAPSHOT]) {
		const struct nlattr *sb[DAMON_PERF_SNAP_A_MAX + 1];

		parse_nest(sb, DAMON_PERF_SNAP_A_MAX,
			   tb[DAMON_PERF_A_SNAPSHOT]);
		s->seq = get_uint(sb[DAMON_PERF_SNAP_A_SEQ]);
	}
	for_each_nla(a, p, n) {
		const struct nlattr *rb[DAMON_PERF_REGION_A_MAX + 1], *hh;

		if (nla_t(a) != DAMON_PERF_A_REGION)
			continue;
		s->regions++;
		parse_nest(rb, DAMON_PERF_REGION_A_MAX, a);
		if (rb[DAMON_PERF_REGION_A_PROBE_HITS])
			for_each_nla(
				hh,
				nla_data(rb[DAMON_PERF_REGION_A_PROBE_HITS]),
				nla_plen(rb[DAMON_PERF_REGION_A_PROBE_HITS]))
				s->hits += get_uint(hh);
	}
}

static int snapshot(struct nl *nl, uint32_t id, struct snapinfo *s)
{
	struct buf b;
	struct reply r;

	memset(s, 0, sizeof(*s));
	msg_begin(&b, fam, DAMON_PERF_CMD_SNAPSHOT_GET, NLM_F_DUMP);
	put_u32(&b, DAMON_PERF_A_CTX_ID, id);
	msg_end(&b);
	xfer(nl, &b, snap_cb, s, &r);
	return r.err;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait until context @id publishes an aggregation after the one seen now
 * (at most @secs seconds); fills @s with the new one. 0 on success.
 */
int wait_aggregation(struct nl *nl, uint32_t id, double secs,
		     struct snapinfo *s)
{
	double end = now() + secs;
	uint64_t first;

	if (snapshot(nl, id, s))
		return -1;
	first = s->seq;
	while (now() < end) {
		usleep(20000);
		if (snapshot(nl, id, s))
			return -1;
		if (s->seq > first)
			return 0;
	}
	return -1;
}
