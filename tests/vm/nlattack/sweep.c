// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: the boundary sweep (nlattack sweep; main.c has what it does).
 */
#include "common.h"

struct sweep_stats {
	unsigned long cases, accepted, refused, worked, start_refused;
};

static uint32_t sweep_ctx(struct nl *nl, const char *name, uint32_t ops_kind)
{
	struct buf b;
	struct reply r;
	uint32_t id = 0;
	size_t n;

	msg_begin(&b, fam, DAMON_PERF_CMD_CTX_NEW, NLM_F_ACK);
	put_str(&b, DAMON_PERF_A_CTX_NAME, name);
	put_u32(&b, DAMON_PERF_A_CTX_OPS, ops_kind);
	msg_end(&b);
	xfer(nl, &b, reply_id_cb, &id, &r);
	if (r.err || !id) {
		fail("sweep: CTX_NEW %s: %d %s", name, r.err, r.msg);
		return 0;
	}
	ctx_msg(&b, DAMON_PERF_CMD_TARGET_ADD, id);
	if (ops_kind == DAMON_PERF_OPS_VADDR) {
		put_pid_target(&b, faulters[0]);
	} else {
		n = nest_start(&b, DAMON_PERF_A_TARGET);
		put_u64(&b, DAMON_PERF_TARGET_A_START, 1ULL << 20);
		put_u64(&b, DAMON_PERF_TARGET_A_END, 1ULL << 30);
		nest_end(&b, n);
	}
	ack(nl, &b, "sweep: TARGET_ADD");
	ctx_msg(&b, DAMON_PERF_CMD_PROBE_ADD, id);
	put_fault_probe(&b);
	ack(nl, &b, "sweep: PROBE_ADD");
	ctx_msg(&b, DAMON_PERF_CMD_SET_ATTRS, id);
	put_fast_attrs(&b);
	ack(nl, &b, "sweep: SET_ATTRS");
	return id;
}

static int ctx_state(struct nl *nl, uint32_t id, int *exists)
{
	struct ctxlist l;
	int i;

	list_ctxs(nl, &l, NULL, NULL);
	for (i = 0; i < l.n; i++) {
		if (l.c[i].id == id) {
			*exists = 1;
			return (int)l.c[i].state;
		}
	}
	*exists = 0;
	return -1;
}

/*
 * The request of one sweep case: command @cmd against context @id, with
 * attribute @path (top type, nested type, second nested type; 0 ends) set
 * to @v at @w bytes instead of its usual value.
 */
static void sweep_msg(struct buf *b, int cmd, int dump, uint32_t id,
		      const int *path, int w, uint64_t v)
{
	int top = path[0], sub = path[1], sub2 = path[2];
	size_t n, m;

#define VAL(level_type, attr, width, dflt)             \
	do {                                           \
		if ((level_type) == (attr))            \
			put_int(b, attr, w, v);        \
		else                                   \
			put_int(b, attr, width, dflt); \
	} while (0)

	msg_begin(b, fam, (uint8_t)cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
	if (cmd == DAMON_PERF_CMD_CTX_NEW) {
		put_str(b, DAMON_PERF_A_CTX_NAME, "sweep2");
		VAL(top, DAMON_PERF_A_CTX_OPS, 4, 0);
		msg_end(b);
		return;
	}
	VAL(top, DAMON_PERF_A_CTX_ID, 4, id);
	switch (cmd) {
	case DAMON_PERF_CMD_SET_ATTRS:
		n = nest_start(b, DAMON_PERF_A_ATTRS);
		if (sub)
			put_int(b, (uint16_t)sub, w, v);
		else
			put_u64(b, DAMON_PERF_ATTRS_A_AGGR_US, 30000);
		nest_end(b, n);
		break;
	case DAMON_PERF_CMD_TARGET_ADD:
		n = nest_start(b, DAMON_PERF_A_TARGET);
		if (sub == DAMON_PERF_TARGET_A_PID) {
			put_int(b, (uint16_t)sub, w, v);
		} else if (!sub) {
			put_u32(b, DAMON_PERF_TARGET_A_PID,
				(uint32_t)faulters[1]);
		} else {
			VAL(sub, DAMON_PERF_TARGET_A_START, 8, 2ULL << 30);
			VAL(sub, DAMON_PERF_TARGET_A_END, 8, 3ULL << 30);
		}
		nest_end(b, n);
		break;
	case DAMON_PERF_CMD_TARGET_DEL:
		VAL(top, DAMON_PERF_A_TARGET_ID, 4, 1);
		break;
	case DAMON_PERF_CMD_PROBE_ADD:
		n = nest_start(b, DAMON_PERF_A_PROBE);
		VAL(sub, DAMON_PERF_PROBE_A_TYPE, 4, 1);
		VAL(sub, DAMON_PERF_PROBE_A_CONFIG, 8, 2);
		VAL(sub, DAMON_PERF_PROBE_A_SAMPLE_PERIOD, 8, 1);
		if (sub && sub != DAMON_PERF_PROBE_A_TYPE &&
		    sub != DAMON_PERF_PROBE_A_CONFIG &&
		    sub != DAMON_PERF_PROBE_A_SAMPLE_PERIOD)
			put_int(b, (uint16_t)sub, w, v);
		put_flag(b, DAMON_PERF_PROBE_A_EXCLUDE_KERNEL);
		nest_end(b, n);
		break;
	case DAMON_PERF_CMD_PROBE_DEL:
		VAL(top, DAMON_PERF_A_PROBE_IDX, 4, 1);
		break;
	case DAMON_PERF_CMD_SET_FILTERS:
		n = nest_start(b, DAMON_PERF_A_FILTERS);
		m = nest_start(b, DAMON_PERF_FILTERS_A_FILTER);
		if (sub2 == DAMON_PERF_FILTER_A_TYPE) {
			put_int(b, (uint16_t)sub2, w, v);
		} else {
			put_u32(b, DAMON_PERF_FILTER_A_TYPE,
				DAMON_PERF_FILTER_TID);
			put_flag(b, DAMON_PERF_FILTER_A_ALLOW);
			if (sub2)
				put_int(b, (uint16_t)sub2, w, v);
			else
				put_u32(b, DAMON_PERF_FILTER_A_TID,
					(uint32_t)faulters[0]);
		}
		nest_end(b, m);
		nest_end(b, n);
		break;
	case DAMON_PERF_CMD_AUX_ATTACH:
		n = nest_start(b, DAMON_PERF_A_AUX);
		VAL(sub, DAMON_PERF_AUX_A_CPU, 4, 0);
		VAL(sub, DAMON_PERF_AUX_A_FD, 4, 0);
		VAL(sub, DAMON_PERF_AUX_A_USER_PAGE, 8, 4096);
		VAL(sub, DAMON_PERF_AUX_A_AUX_ADDR, 8, 65536);
		VAL(sub, DAMON_PERF_AUX_A_AUX_SIZE, 8, 65536);
		VAL(sub, DAMON_PERF_AUX_A_PID, 4, 0);
		VAL(sub, DAMON_PERF_AUX_A_PROBE_IDX, 1, 1);
		nest_end(b, n);
		break;
	}
	msg_end(b);
#undef VAL
}

/* Intervals large enough that waiting for an aggregation is pointless. */
static int interval_path(const int *path)
{
	return path[0] == DAMON_PERF_A_ATTRS &&
	       (path[1] == DAMON_PERF_ATTRS_A_SAMPLE_US ||
		path[1] == DAMON_PERF_ATTRS_A_AGGR_US ||
		path[1] == DAMON_PERF_ATTRS_A_UPDATE_US);
}

static void tune_back(struct nl *nl, uint32_t id)
{
	char what[48];
	struct buf b;

	snprintf(what, sizeof(what), "sweep: tuning context %u back", id);
	ctx_msg(&b, DAMON_PERF_CMD_SET_ATTRS, id);
	put_fast_attrs(&b);
	ack(nl, &b, what);
}

static void sweep_case(struct nl *nl, struct sweep_stats *st, int cmd, int dump,
		       const int *path, const struct pattr *pa, uint64_t v)
{
	int paddr = path[0] == DAMON_PERF_A_TARGET &&
		    path[1] != DAMON_PERF_TARGET_A_PID;
	int w = int_width(pa->type), exists, state, run_first;
	uint32_t id, check_id;
	struct snapinfo s;
	struct reply r;
	struct buf b;
	char what[96];
	double wait;

	if (w < 8 && (v >> (8 * w)))
		w = 8; /* does not fit: the length check must say so */
	snprintf(what, sizeof(what),
		 "cmd %d%s attr %d/%d/%d = %" PRIu64 " (%d bytes)", cmd,
		 dump ? " dump" : "", path[0], path[1], path[2], v, w);
	st->cases++;
	delete_all(nl);
	id = sweep_ctx(nl, "sweep",
		       paddr ? DAMON_PERF_OPS_PADDR : DAMON_PERF_OPS_VADDR);
	if (!id)
		return;
	run_first = cmd == DAMON_PERF_CMD_AUX_ATTACH ||
		    cmd == DAMON_PERF_CMD_STOP ||
		    cmd == DAMON_PERF_CMD_SNAPSHOT_GET;
	if (run_first) {
		simple(nl, DAMON_PERF_CMD_START, id, &r);
		if (r.err)
			fail("sweep: %s: START before it: %d %s", what, r.err,
			     r.msg);
	}
	sweep_msg(&b, cmd, dump, id, path, w, v);
	xfer(nl, &b, NULL, NULL, &r);
	if (!r.acked) {
		fail("sweep: %s: no reply", what);
		return;
	}
	if (r.err > 0) {
		fail("sweep: %s: ack carries %d, no errno", what, r.err);
		return;
	}
	if (r.err) {
		st->refused++;
		if (!r.has_msg)
			fail("sweep: %s: error %d without an extack message",
			     what, r.err);
		else if (getenv("NLATTACK_VERBOSE"))
			printf("nlattack: sweep: %s: refused: %s\n", what,
			       r.msg);
		return;
	}
	st->accepted++;
	if (!dump &&
	    (cmd == DAMON_PERF_CMD_CTX_GET || cmd == DAMON_PERF_CMD_STOP ||
	     cmd == DAMON_PERF_CMD_CTX_DEL ||
	     cmd == DAMON_PERF_CMD_TARGET_DEL ||
	     cmd == DAMON_PERF_CMD_PROBE_DEL))
		return; /* nothing built that could run */
	if (dump)
		return;
	/* A context that works: the one the case changed (or created). */
	check_id = id;
	if (cmd == DAMON_PERF_CMD_CTX_NEW) {
		struct ctxlist l;
		int i;

		list_ctxs(nl, &l, NULL, NULL);
		check_id = 0;
		for (i = 0; i < l.n; i++)
			if (!strcmp(l.c[i].name, "sweep2"))
				check_id = l.c[i].id;
		if (!check_id) {
			fail("sweep: %s: accepted, but no context sweep2",
			     what);
			return;
		}
		/* Give it the sweep context's configuration, then run it. */
		simple(nl, DAMON_PERF_CMD_CTX_DEL, id, &r);
		simple(nl, DAMON_PERF_CMD_CTX_DEL, check_id, &r);
		check_id = sweep_ctx(nl, "sweep", (uint32_t)v);
		if (!check_id)
			return;
	}
	state = ctx_state(nl, check_id, &exists);
	if (!exists) {
		fail("sweep: %s: accepted, context %u gone", what, check_id);
		return;
	}
	if (state != DAMON_PERF_CTX_STATE_RUNNING) {
		simple(nl, DAMON_PERF_CMD_START, check_id, &r);
		if (r.err) {
			st->start_refused++;
			if (!r.has_msg)
				fail("sweep: %s: start refused without a message (%d)",
				     what, r.err);
			else
				printf("nlattack: sweep: %s: start refused: %s\n",
				       what, r.msg);
			return;
		}
	}
	wait = 10;
	if (interval_path(path)) {
		if (path[1] == DAMON_PERF_ATTRS_A_SAMPLE_US)
			wait = 10 +
			       (double)v / 1e6; /* the tune waits one sample */
		tune_back(nl, check_id);
	}
	if (wait_aggregation(nl, check_id, wait, &s)) {
		fail("sweep: %s: accepted, but no aggregation within %.0f s",
		     what, wait);
		return;
	}
	st->worked++;
	if (getenv("NLATTACK_VERBOSE"))
		printf("nlattack: sweep: %s: aggregation %" PRIu64
		       ", %u regions, %" PRIu64 " hits\n",
		       what, s.seq, s.regions, s.hits);
}

static void sweep_policy(struct nl *nl, struct sweep_stats *st, int cmd,
			 int dump, int pidx, int *path, int depth)
{
	static const uint64_t fixed[] = {
		0, 1, 0xffffffffULL, (1ULL << 63) - 1, 1ULL << 63, ~0ULL
	};
	int t, i, j, nv;

	for (t = 1; t < MAXATTR; t++) {
		const struct pattr *pa = &pol[pidx].a[t];
		uint64_t vals[16];

		if (!pa->present)
			continue;
		path[depth] = t;
		path[depth + 1] = 0;
		if (pa->nested && depth < 3) {
			sweep_policy(nl, st, cmd, dump, pa->nested - 1, path,
				     depth + 1);
			continue;
		}
		if (!is_int(pa->type))
			continue;
		nv = 0;
		for (i = 0; i < (int)(sizeof(fixed) / sizeof(fixed[0])); i++)
			vals[nv++] = fixed[i];
		if (pa->has_u) {
			vals[nv++] = pa->min_u;
			vals[nv++] = pa->max_u;
			vals[nv++] = pa->max_u + 1;
			if (pa->min_u)
				vals[nv++] = pa->min_u - 1;
		} else if (pa->has_s) {
			vals[nv++] = (uint64_t)pa->min_s;
			vals[nv++] = (uint64_t)pa->max_s;
			vals[nv++] = (uint64_t)pa->max_s + 1;
			vals[nv++] = (uint64_t)pa->min_s - 1;
		} else {
			int w = int_width(pa->type);

			vals[nv++] = w == 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
		}
		for (i = 0; i < nv; i++) {
			for (j = 0; j < i; j++)
				if (vals[j] == vals[i])
					break;
			if (j == i)
				sweep_case(nl, st, cmd, dump, path, pa,
					   vals[i]);
		}
	}
	path[depth] = 0;
}

int do_sweep(struct nl *nl)
{
	struct sweep_stats st = { 0 };
	int cmd, path[4];

	for (cmd = 1; cmd < 64; cmd++) {
		if (!ops[cmd].present)
			continue;
		memset(path, 0, sizeof(path));
		if (ops[cmd].do_idx)
			sweep_policy(nl, &st, cmd, 0, ops[cmd].do_idx - 1, path,
				     0);
		memset(path, 0, sizeof(path));
		if (ops[cmd].dump_idx)
			sweep_policy(nl, &st, cmd, 1, ops[cmd].dump_idx - 1,
				     path, 0);
	}
	delete_all(nl);
	printf("nlattack: sweep: %lu cases: %lu refused with a message, %lu accepted "
	       "(%lu then ran and aggregated, %lu start refused with a message)\n",
	       st.cases, st.refused, st.accepted, st.worked, st.start_refused);
	return st.cases ? 0 : 1;
}
