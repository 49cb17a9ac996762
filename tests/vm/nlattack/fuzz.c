// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: the fuzzer's generation (requests from the policies, mutated) and
 * its run (nlattack fuzz; main.c has what it does).
 */
#include "common.h"

enum kind {
	K_TOP,
	K_ATTRS,
	K_TARGET,
	K_PROBE,
	K_FILTERS,
	K_FILTER,
	K_AUX,
	K_OTHER
};

static enum kind sub_kind(enum kind k, int t)
{
	if (k == K_TOP) {
		switch (t) {
		case DAMON_PERF_A_ATTRS:
			return K_ATTRS;
		case DAMON_PERF_A_TARGET:
			return K_TARGET;
		case DAMON_PERF_A_PROBE:
			return K_PROBE;
		case DAMON_PERF_A_FILTERS:
			return K_FILTERS;
		case DAMON_PERF_A_AUX:
			return K_AUX;
		}
	}
	if (k == K_FILTERS && t == DAMON_PERF_FILTERS_A_FILTER)
		return K_FILTER;
	return K_OTHER;
}

static struct mctx *cur; /* the context this request is about */
static int cur_fd;

static uint32_t pick_pid(void)
{
	switch (rr(6)) {
	case 0:
		return 1;
	case 1:
		return (uint32_t)getpid();
	case 2:
		return 99999;
	default:
		return (uint32_t)faulters[rr(2)];
	}
}

/* A value from the policy's range (edges now and then), with semantics. */
static uint64_t gen_int(enum kind k, int t, const struct pattr *pa)
{
	uint64_t lo = 0, hi = ~0ULL;
	int w = int_width(pa->type);

	if (w < 8)
		hi = (1ULL << (8 * w)) - 1;
	if (pa->has_u) {
		lo = pa->min_u;
		hi = pa->max_u;
	} else if (pa->has_s) {
		lo = (uint64_t)(pa->min_s < 0 ? 0 : pa->min_s);
		hi = (uint64_t)pa->max_s;
	}
	if (chance(80)) {
		switch (k) {
		case K_TOP:
			if (t == DAMON_PERF_A_CTX_ID && cur)
				return cur->id;
			if (t == DAMON_PERF_A_CTX_OPS)
				return chance(80) ? DAMON_PERF_OPS_VADDR :
						    DAMON_PERF_OPS_PADDR;
			if (t == DAMON_PERF_A_TARGET_ID && cur && cur->nt)
				return cur->t[rr(cur->nt)].id;
			if (t == DAMON_PERF_A_PROBE_IDX)
				return 1 + rr(3);
			break;
		case K_ATTRS:
			switch (t) {
			/* aggregation and update: multiples of the sample */
			/* (and long enough that running contexts stay cheap) */
			case DAMON_PERF_ATTRS_A_SAMPLE_US:
				return 10000ULL << rr(3);
			case DAMON_PERF_ATTRS_A_AGGR_US:
				return 80000 * (1 + rr(5));
			case DAMON_PERF_ATTRS_A_UPDATE_US:
				return 80000 * (1 + rr(10));
			case DAMON_PERF_ATTRS_A_MIN_NR_REGIONS:
				return 3 + rr(20);
			case DAMON_PERF_ATTRS_A_MAX_NR_REGIONS:
				return 10 + rr(200);
			case DAMON_PERF_ATTRS_A_MODE:
				return rr(2);
			case DAMON_PERF_ATTRS_A_RING_SIZE:
				return 1ULL << (4 + rr(10));
			}
			break;
		case K_TARGET:
			switch (t) {
			case DAMON_PERF_TARGET_A_PID:
				return pick_pid();
			case DAMON_PERF_TARGET_A_START:
				return (1 + rr(64)) << 20;
			case DAMON_PERF_TARGET_A_END:
				return (66 + rr(64)) << 20;
			}
			break;
		case K_PROBE:
			switch (t) {
			case DAMON_PERF_PROBE_A_TYPE:
				return chance(85) ? 1 : rr(8);
			case DAMON_PERF_PROBE_A_CONFIG:
				return chance(70) ? 2 : rr(12);
			case DAMON_PERF_PROBE_A_CONFIG1:
			case DAMON_PERF_PROBE_A_CONFIG2:
				return chance(90) ? 0 : rnd();
			case DAMON_PERF_PROBE_A_SAMPLE_PERIOD:
				return 1 + rr(chance(90) ? 1000 : 1000000000);
			case DAMON_PERF_PROBE_A_WAKEUP_EVENTS:
				return rr(5);
			case DAMON_PERF_PROBE_A_WEIGHT:
				return 1 + rr(10);
			case DAMON_PERF_PROBE_A_PRECISE_IP:
				return rr(4);
			}
			break;
		case K_FILTER:
			switch (t) {
			case DAMON_PERF_FILTER_A_TYPE:
				return rr(3);
			case DAMON_PERF_FILTER_A_TID:
				return pick_pid();
			}
			break;
		case K_AUX:
			switch (t) {
			case DAMON_PERF_AUX_A_CPU:
				return rr(3);
			case DAMON_PERF_AUX_A_FD:
				return chance(50) ? (uint64_t)cur_fd : rr(8);
			case DAMON_PERF_AUX_A_USER_PAGE:
				return 0x10000 * rr(16);
			case DAMON_PERF_AUX_A_AUX_ADDR:
				return 0x10000 * rr(16);
			case DAMON_PERF_AUX_A_AUX_SIZE:
				return 4096ULL << rr(6);
			case DAMON_PERF_AUX_A_PID:
				return chance(50) ? 0 : pick_pid();
			case DAMON_PERF_AUX_A_PROBE_IDX:
				return 1 + rr(3);
			}
			break;
		default:
			break;
		}
	}
	switch (rr(6)) {
	case 0:
		return lo;
	case 1:
		return hi;
	default:
		return hi - lo == ~0ULL ? rnd() : lo + rr(hi - lo + 1);
	}
}

static const char *const names[MNAMES] = { "f0", "f1", "f2", "f3", "f4", "f5" };

static void gen_string(struct buf *b, enum kind k, int t,
		       const struct pattr *pa)
{
	char s[64];
	int n, i;

	if (k == K_TOP && t == DAMON_PERF_A_CTX_NAME && chance(90)) {
		put_str(b, (uint16_t)t,
			cur && chance(80) ? cur->name : names[rr(MNAMES)]);
		return;
	}
	if (k == K_FILTER && t == DAMON_PERF_FILTER_A_CPUS && chance(85)) {
		static const char *const l[] = { "0",	"1",	   "0-1", "0,1",
						 "1-0", "0-99999", "",	  "x" };

		put_str(b, (uint16_t)t, l[rr(sizeof(l) / sizeof(l[0]))]);
		return;
	}
	n = (int)rr(pa->has_len && pa->max_len ? pa->max_len + 3 : 40);
	for (i = 0; i < n && i < 63; i++)
		s[i] = (char)('a' + rr(26));
	s[i] = 0;
	put_str(b, (uint16_t)t, s);
}

int mutate_pct = 50;

static void gen_policy(struct buf *b, int pidx, enum kind k, int depth);

/* One attribute of type @t per policy @pa (sometimes mangled). */
static void gen_attr(struct buf *b, int t, const struct pattr *pa, enum kind k,
		     int depth)
{
	int flags = 0;
	size_t off;

	if (chance(mutate_pct / 10)) { /* wrong type or length */
		uint8_t junk[24];
		size_t n = rr(sizeof(junk) + 1), i;

		for (i = 0; i < n; i++)
			junk[i] = (uint8_t)rnd();
		put_attr(b, (uint16_t)(t | (chance(30) ? NLA_F_NESTED : 0)),
			 junk, n);
		return;
	}
	if (chance(mutate_pct / 25))
		flags |= NLA_F_NET_BYTEORDER;
	switch (pa->type) {
	case NL_ATTR_TYPE_FLAG:
		put_flag(b, (uint16_t)(t | flags));
		break;
	case NL_ATTR_TYPE_NUL_STRING:
	case NL_ATTR_TYPE_STRING:
		gen_string(b, k, t, pa);
		break;
	case NL_ATTR_TYPE_NESTED:
	case NL_ATTR_TYPE_NESTED_ARRAY:
		off = attr_start(b,
				 (uint16_t)(t | (chance(100 - mutate_pct / 10) ?
							 NLA_F_NESTED :
							 0)));
		if (pa->nested && depth < 8)
			gen_policy(b, pa->nested - 1, sub_kind(k, t),
				   depth + 1);
		if (chance(mutate_pct / 25)) { /* nest inside nest, deep */
			int d = 1 + (int)rr(40), i;
			size_t offs[48];

			for (i = 0; i < d; i++)
				offs[i] =
					attr_start(b, (uint16_t)((1 + rr(4)) |
								 NLA_F_NESTED));
			for (i = d - 1; i >= 0; i--)
				attr_end(b, offs[i], b->len);
		}
		attr_end(b, off, b->len);
		break;
	default:
		if (is_int(pa->type)) {
			uint64_t v = gen_int(k, t, pa);
			int w = int_width(pa->type);

			if (chance(mutate_pct / 5)) {
				static const uint64_t edge[] = {
					0,
					1,
					0xffffffffULL,
					1ULL << 63,
					~0ULL,
					(1ULL << 63) - 1,
					0x100000000ULL
				};

				v = edge[rr(sizeof(edge) / sizeof(edge[0]))];
				if (pa->has_u && chance(50))
					v = chance(50) ? pa->max_u + 1 :
							 pa->min_u - 1;
			}
			put_int(b, (uint16_t)(t | flags), w, v);
		} else {
			uint8_t junk[16] = { 0 };

			put_attr(b, (uint16_t)t, junk, rr(17));
		}
	}
}

static void gen_policy(struct buf *b, int pidx, enum kind k, int depth)
{
	int t, reps, i;

	for (t = 1; t < MAXATTR; t++) {
		const struct pattr *pa = &pol[pidx].a[t];
		int pct = 75;

		if (!pa->present)
			continue;
		if (k == K_TOP && t == DAMON_PERF_A_CTX_NAME)
			pct = 40;
		if (k == K_TARGET && t != DAMON_PERF_TARGET_A_PID)
			pct = cur && cur->ops == DAMON_PERF_OPS_PADDR ? 95 : 10;
		if (k == K_TARGET && t == DAMON_PERF_TARGET_A_PID)
			pct = cur && cur->ops == DAMON_PERF_OPS_PADDR ? 10 : 95;
		if (k == K_PROBE && (t == DAMON_PERF_PROBE_A_TYPE ||
				     t == DAMON_PERF_PROBE_A_SAMPLE_PERIOD))
			pct = 97;
		if (k == K_PROBE && t == DAMON_PERF_PROBE_A_FREQ)
			pct = 10;
		if (k == K_AUX)
			pct = 95;
		/* a running context takes new intervals only */
		if (k == K_ATTRS && cur &&
		    cur->state == DAMON_PERF_CTX_STATE_RUNNING &&
		    t > DAMON_PERF_ATTRS_A_UPDATE_US)
			pct = 10;
		if (!chance(pct))
			continue;
		reps = 1;
		if (k == K_FILTERS)
			reps = (int)rr(4);
		if (k == K_FILTER && t == DAMON_PERF_FILTER_A_TID)
			reps = 1 + (int)rr(3);
		if (chance(mutate_pct / 10))
			reps++; /* duplicated */
		for (i = 0; i < reps; i++)
			gen_attr(b, t, pa, k, depth);
	}
	if (chance(mutate_pct / 10)) { /* unknown type */
		uint32_t v = (uint32_t)rnd();

		put_attr(b,
			 (uint16_t)(chance(50) ? MAXATTR + rr(100) :
						 rr(MAXATTR)),
			 &v, 4);
	}
}

/* Command weights: configuration often, start/stop/new/delete less. */
static int pick_cmd(void)
{
	static const struct {
		int cmd, w;
	} tab[] = {
		{ DAMON_PERF_CMD_CTX_NEW, 4 },
		{ DAMON_PERF_CMD_CTX_DEL, 1 },
		{ DAMON_PERF_CMD_CTX_GET, 6 },
		{ DAMON_PERF_CMD_SET_ATTRS, 14 },
		{ DAMON_PERF_CMD_TARGET_ADD, 10 },
		{ DAMON_PERF_CMD_TARGET_DEL, 5 },
		{ DAMON_PERF_CMD_PROBE_ADD, 12 },
		{ DAMON_PERF_CMD_PROBE_DEL, 5 },
		{ DAMON_PERF_CMD_SET_FILTERS, 12 },
		{ DAMON_PERF_CMD_START, 3 },
		{ DAMON_PERF_CMD_STOP, 3 },
		{ DAMON_PERF_CMD_SNAPSHOT_GET, 4 },
		{ DAMON_PERF_CMD_STATS_GET, 1 },
		{ DAMON_PERF_CMD_MONITOR_SUBSCRIBE, 1 },
		{ DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE, 1 },
		{ DAMON_PERF_CMD_AGGREGATION, 1 },
		{ DAMON_PERF_CMD_AUX_ATTACH, 6 },
		{ 0, 1 },
		{ 200, 1 },
	};
	int total = 0, i, x, live = 0;

	for (i = 0; i < (int)(sizeof(model) / sizeof(model[0])); i++)
		live += model[i].used;
	if (live < 3 && chance(30))
		return DAMON_PERF_CMD_CTX_NEW;

	for (i = 0; i < (int)(sizeof(tab) / sizeof(tab[0])); i++)
		total += tab[i].w;
	x = (int)rr(total);
	for (i = 0; i < (int)(sizeof(tab) / sizeof(tab[0])); i++) {
		x -= tab[i].w;
		if (x < 0)
			return tab[i].cmd;
	}
	return 1;
}

struct fuzz_stats {
	unsigned long sent, ok, refused, bare_genl, by_cmd_ok[64];
};

static void fuzz_reply_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1];
	uint32_t *ids = arg;
	const uint8_t *p;
	size_t n;

	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (tb[DAMON_PERF_A_CTX_ID] && !ids[0])
		ids[0] = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]);
	if (tb[DAMON_PERF_A_PROBE_IDX])
		ids[1] = (uint32_t)get_uint(tb[DAMON_PERF_A_PROBE_IDX]);
}

int do_fuzz(struct nl *nl, unsigned long count, uint64_t seed)
{
	struct fuzz_stats st = { 0 };
	struct finalchk fc = { { 0 }, 0, 0 };
	int verbose = !!getenv("NLATTACK_VERBOSE");
	int shown[64] = { 0 };
	unsigned long i;
	int models = 0, k;

	double t0 = now();

	rnd_state = seed ? seed : 1;
	printf("nlattack: fuzz: %lu messages, seed %" PRIu64 "\n", count, seed);
	fflush(stdout);
	delete_all(nl);
	for (i = 0; i < count; i++) {
		int cmd = pick_cmd(), dump = 0, pidx = -1, mutated = 0, kcmd;
		uint32_t ids[2] = { 0, 0 };
		struct buf b;
		struct reply r;

		cur = mrandom();
		cur_fd = nl->fd;
		if (cmd > 0 && cmd < 64 && ops[cmd].present) {
			dump = !ops[cmd].do_idx ||
			       (ops[cmd].dump_idx && chance(50));
			pidx = (dump ? ops[cmd].dump_idx : ops[cmd].do_idx) - 1;
		}
		if (chance(mutate_pct / 10)) {
			dump = !dump; /* the other kind */
			mutated = 1;
		}
		msg_begin(&b, fam, (uint8_t)cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
		if (chance(mutate_pct / 25)) {
			((struct genlmsghdr *)(b.d + NLMSG_HDRLEN))->reserved =
				(uint16_t)(1 + rr(100));
			mutated = 1;
		}
		if (pidx >= 0 && pol[pidx].present)
			gen_policy(&b, pidx, K_TOP, 0);
		else if (pidx >= 0 && chance(20))
			put_u32(&b, DAMON_PERF_A_CTX_ID, 1);
		if (chance(mutate_pct / 10) && b.len > NLMSG_HDRLEN) {
			/* truncate: the message ends mid-attribute */
			b.len = NLMSG_HDRLEN + rr(b.len - NLMSG_HDRLEN);
			mutated = 1;
		}
		if (chance(mutate_pct / 20) &&
		    b.len >= NLMSG_HDRLEN + GENL_HDRLEN + 4) {
			/* an attribute claims more than its parent holds */
			struct nlattr *a =
				(void *)(b.d + NLMSG_HDRLEN + GENL_HDRLEN);

			a->nla_len = (uint16_t)(a->nla_len + 4 + rr(64));
			mutated = 1;
		}
		msg_end(&b);
		(void)mutated;
		xfer(nl, &b, fuzz_reply_cb, ids, &r);
		st.sent++;
		if (!r.acked) {
			if (!subscribed)
				fail("fuzz: message %lu (cmd %d): no reply", i,
				     cmd);
			continue;
		}
		kcmd = cmd > 0 && cmd < 64 && ops[cmd].present;
		if (r.err > 0) {
			fail("fuzz: message %lu (cmd %d): ack carries %d, no errno",
			     i, cmd, r.err);
			continue;
		}
		if (r.err && r.has_msg && verbose && cmd >= 0 && cmd < 64 &&
		    shown[cmd]++ < 6)
			printf("nlattack: fuzz: cmd %d refused: %d %s\n", cmd,
			       r.err, r.msg);
		if (getenv("NLATTACK_TRACE")) {
			printf("nlattack: trace %lu: cmd %d%s ctx %u: %d %s\n",
			       i, cmd, dump ? " dump" : "", cur ? cur->id : 0,
			       r.err, r.msg);
		}
		if (!r.err) {
			st.ok++;
			if (cmd >= 0 && cmd < 64)
				st.by_cmd_ok[cmd]++;
			if (!kcmd)
				fail("fuzz: command %d is no command but was accepted",
				     cmd);
			else
				model_apply(nl, &b, ids[0], ids[1]);
		} else if (r.has_msg) {
			st.refused++;
		} else if (!kcmd ||
			   (r.err == -EOPNOTSUPP &&
			    (dump ? !ops[cmd].dump_idx : !ops[cmd].do_idx)) ||
			   (r.err == -EINVAL &&
			    b.len < NLMSG_HDRLEN + GENL_HDRLEN)) {
			st.bare_genl++; /* genetlink's own answers */
		} else {
			fail("fuzz: message %lu (cmd %d%s, %zu bytes): error %d without an extack message",
			     i, cmd, dump ? " dump" : "", b.len, r.err);
		}
		if (i && i % 2000 == 0 && verbose)
			printf("nlattack: fuzz: %lu sent in %.1f s\n", i,
			       now() - t0);
		if (i && i % 20000 == 0) {
			/* a new socket: what the old one held goes with it */
			close(nl->fd);
			nl_open(nl);
			subscribed = 0;
			printf("nlattack: fuzz: %lu sent, %lu accepted, %lu refused with a message\n",
			       st.sent, st.ok, st.refused);
			fflush(stdout);
		}
	}
	list_ctxs(nl, NULL, final_cb, &fc);
	for (k = 0; k < (int)(sizeof(model) / sizeof(model[0])); k++) {
		if (!model[k].used)
			continue;
		models++;
		if (!fc.seen[k])
			fail("final: the model's context %u (%s) is gone",
			     model[k].id, model[k].name);
	}
	printf("nlattack: fuzz: %lu messages, seed %" PRIu64
	       ": %lu accepted, %lu refused with an "
	       "extack message, %lu bare genetlink errors (unknown command or short header); "
	       "%lu socket overruns, %lu timeouts\n",
	       st.sent, seed, st.ok, st.refused, st.bare_genl, overruns,
	       timeouts);
	printf("nlattack: fuzz: %.0f s\n", now() - t0);
	printf("nlattack: fuzz: accepted per command:");
	for (k = 0; k < 64; k++)
		if (st.by_cmd_ok[k])
			printf(" %d:%lu", k, st.by_cmd_ok[k]);
	printf("\nnlattack: fuzz: final state: %d contexts read back, model %d, %d differ\n",
	       fc.n, models, fc.bad);
	delete_all(nl);
	return 0;
}
