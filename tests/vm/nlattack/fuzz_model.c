// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: the fuzzer's model: what the contexts should be after the requests
 * the kernel accepted, and its comparison with what CTX_GET reads back.
 */
#include "common.h"

struct mctx model[MNAMES + 8];
int subscribed;

uint64_t rnd_state;

uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rnd_state = x;
	return x;
}

uint64_t rr(uint64_t n)
{
	return n ? rnd() % n : 0;
}
int chance(int pct)
{
	return (int)rr(100) < pct;
}

static struct mctx *mfind(uint32_t id)
{
	int i;

	for (i = 0; i < (int)(sizeof(model) / sizeof(model[0])); i++)
		if (model[i].used && model[i].id == id)
			return &model[i];
	return NULL;
}

static struct mctx *mfind_name(const char *name)
{
	int i;

	for (i = 0; i < (int)(sizeof(model) / sizeof(model[0])); i++)
		if (model[i].used && !strcmp(model[i].name, name))
			return &model[i];
	return NULL;
}

struct mctx *mrandom(void)
{
	int i, n = 0;
	struct mctx *pick = NULL;

	for (i = 0; i < (int)(sizeof(model) / sizeof(model[0])); i++)
		if (model[i].used && !rr(++n))
			pick = &model[i];
	return pick;
}

static uint64_t cpulist_mask(const char *s)
{
	uint64_t m = 0;
	char *end;

	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b = a, i;

		if (end == s)
			break;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			s = end;
		}
		for (i = a; i <= b && i < 64; i++)
			m |= 1ULL << i;
		if (*s == ',')
			s++;
	}
	return m;
}

/* The full context as the kernel reports it, into @c (used = 1). */
static void fill_mctx(const struct nlmsghdr *h, struct mctx *c)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1], *a;
	const uint8_t *p;
	size_t n;
	int i;

	memset(c, 0, sizeof(*c));
	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	c->used = 1;
	c->id = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]);
	c->ops = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_OPS]);
	c->state = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_STATE]);
	if (tb[DAMON_PERF_A_CTX_NAME])
		snprintf(c->name, 32, "%s",
			 (const char *)nla_data(tb[DAMON_PERF_A_CTX_NAME]));
	if (tb[DAMON_PERF_A_ATTRS]) {
		const struct nlattr *ab[DAMON_PERF_ATTRS_A_MAX + 1];

		parse_nest(ab, DAMON_PERF_ATTRS_A_MAX, tb[DAMON_PERF_A_ATTRS]);
		for (i = 2; i <= DAMON_PERF_ATTRS_A_MAX; i++)
			c->attrs[i] = get_uint(ab[i]);
	}
	for_each_nla(a, p, n) {
		if (nla_t(a) == DAMON_PERF_A_TARGET && c->nt < MTARGETS) {
			const struct nlattr *xb[DAMON_PERF_TARGET_A_MAX + 1];
			struct mtarget *t = &c->t[c->nt++];

			parse_nest(xb, DAMON_PERF_TARGET_A_MAX, a);
			t->id = (uint32_t)get_uint(xb[DAMON_PERF_TARGET_A_ID]);
			t->pid =
				(uint32_t)get_uint(xb[DAMON_PERF_TARGET_A_PID]);
			t->start = get_uint(xb[DAMON_PERF_TARGET_A_START]);
			t->end = get_uint(xb[DAMON_PERF_TARGET_A_END]);
		} else if (nla_t(a) == DAMON_PERF_A_PROBE) {
			const struct nlattr *pb[DAMON_PERF_PROBE_A_MAX + 1];
			uint32_t idx;

			parse_nest(pb, DAMON_PERF_PROBE_A_MAX, a);
			idx = (uint32_t)get_uint(pb[DAMON_PERF_PROBE_A_IDX]);
			if (idx < 1 || idx > 3)
				continue;
			c->p[idx].used = 1;
			for (i = DAMON_PERF_PROBE_A_TYPE;
			     i <= DAMON_PERF_PROBE_A_MAX; i++)
				c->p[idx].f[i] =
					pb[i] ? (nla_plen(pb[i]) ?
							 get_uint(pb[i]) :
							 1) :
						0;
		} else if (nla_t(a) == DAMON_PERF_A_FILTERS) {
			const struct nlattr *fa;

			for_each_nla(fa, nla_data(a), nla_plen(a)) {
				const struct nlattr
					*fb[DAMON_PERF_FILTER_A_MAX + 1],
					*x;
				struct mfilter *f;

				if (c->nf >= 8)
					break;
				f = &c->f[c->nf++];
				parse_nest(fb, DAMON_PERF_FILTER_A_MAX, fa);
				f->type = (uint32_t)get_uint(
					fb[DAMON_PERF_FILTER_A_TYPE]);
				f->allow = !!fb[DAMON_PERF_FILTER_A_ALLOW];
				if (fb[DAMON_PERF_FILTER_A_CPUS])
					f->cpus = cpulist_mask(nla_data(
						fb[DAMON_PERF_FILTER_A_CPUS]));
				for_each_nla(x, nla_data(fa), nla_plen(fa))
					if (nla_t(x) ==
						    DAMON_PERF_FILTER_A_TID &&
					    f->nr_tids < 16)
						f->tids[f->nr_tids++] =
							(uint32_t)get_uint(x);
			}
		}
	}
}

struct getctx {
	int got;
	struct mctx c;
};

static void getctx_cb(const struct nlmsghdr *h, void *arg)
{
	struct getctx *g = arg;

	fill_mctx(h, &g->c);
	g->got = 1;
}

int get_ctx(struct nl *nl, uint32_t id, struct mctx *out)
{
	struct getctx g = { 0 };
	struct reply r;

	{
		struct buf b;

		ctx_msg(&b, DAMON_PERF_CMD_CTX_GET, id);
		msg_end(&b);
		xfer(nl, &b, getctx_cb, &g, &r);
	}
	if (r.err || !g.got)
		return -1;
	*out = g.c;
	return 0;
}

/* Apply a request the kernel accepted, as the kernel should have. */
void model_apply(struct nl *nl, const struct buf *b, uint32_t reply_id,
		 uint32_t reply_probe)
{
	const struct nlmsghdr *h = (const void *)b->d;
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1], *a, *sb[32];
	struct mctx *c = NULL;
	const uint8_t *p;
	size_t n;
	int i;

	if (h->nlmsg_flags & NLM_F_DUMP)
		return;
	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (tb[DAMON_PERF_A_CTX_ID])
		c = mfind((uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]));
	else if (tb[DAMON_PERF_A_CTX_NAME])
		c = mfind_name(nla_data(tb[DAMON_PERF_A_CTX_NAME]));

	switch (g->cmd) {
	case DAMON_PERF_CMD_CTX_NEW: {
		struct mctx k;

		for (i = 0; i < (int)(sizeof(model) / sizeof(model[0])); i++)
			if (!model[i].used)
				break;
		if (i == (int)(sizeof(model) / sizeof(model[0])) ||
		    get_ctx(nl, reply_id, &k)) {
			fail("fuzz: CTX_NEW accepted, context %u not readable",
			     reply_id);
			return;
		}
		if (strcmp(k.name, nla_data(tb[DAMON_PERF_A_CTX_NAME])) ||
		    k.ops != (tb[DAMON_PERF_A_CTX_OPS] ?
				      get_uint(tb[DAMON_PERF_A_CTX_OPS]) :
				      0) ||
		    k.nt || k.nf)
			fail("fuzz: CTX_NEW %s: the new context reads back otherwise",
			     k.name);
		model[i] = k;
		if (getenv("NLATTACK_TRACE"))
			printf("nlattack: model: new context %u %s in slot %d\n",
			       k.id, k.name, i);
		return;
	}
	default:
		break;
	}
	if (!c) {
		if (g->cmd != DAMON_PERF_CMD_MONITOR_SUBSCRIBE &&
		    g->cmd != DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE &&
		    g->cmd != DAMON_PERF_CMD_STATS_GET)
			fail("fuzz: cmd %d accepted for a context the model does not have",
			     g->cmd);
		if (g->cmd == DAMON_PERF_CMD_MONITOR_SUBSCRIBE)
			subscribed = 1;
		if (g->cmd == DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE)
			subscribed = 0;
		return;
	}
	switch (g->cmd) {
	case DAMON_PERF_CMD_CTX_DEL:
		c->used = 0;
		if (getenv("NLATTACK_TRACE"))
			printf("nlattack: model: context %u deleted\n", c->id);
		break;
	case DAMON_PERF_CMD_SET_ATTRS:
		parse_nest(sb, DAMON_PERF_ATTRS_A_MAX, tb[DAMON_PERF_A_ATTRS]);
		for (i = 2; i <= DAMON_PERF_ATTRS_A_MAX; i++)
			if (sb[i])
				c->attrs[i] = get_uint(sb[i]);
		break;
	case DAMON_PERF_CMD_TARGET_ADD: {
		struct mctx k;
		int j, found = 0;

		parse_nest(sb, DAMON_PERF_TARGET_A_MAX,
			   tb[DAMON_PERF_A_TARGET]);
		if (get_ctx(nl, c->id, &k)) {
			fail("fuzz: TARGET_ADD accepted, context %u not readable",
			     c->id);
			break;
		}
		for (i = 0; i < k.nt; i++) {
			for (j = 0; j < c->nt; j++)
				if (c->t[j].id == k.t[i].id)
					break;
			if (j < c->nt || c->nt >= MTARGETS)
				continue;
			found = 1;
			if (k.t[i].pid !=
				    get_uint(sb[DAMON_PERF_TARGET_A_PID]) ||
			    k.t[i].start !=
				    get_uint(sb[DAMON_PERF_TARGET_A_START]) ||
			    k.t[i].end != get_uint(sb[DAMON_PERF_TARGET_A_END]))
				fail("fuzz: TARGET_ADD: target %u reads back otherwise",
				     k.t[i].id);
			c->t[c->nt++] = k.t[i];
			if (getenv("NLATTACK_TRACE"))
				printf("nlattack: model: context %u += target %u\n",
				       c->id, k.t[i].id);
		}
		if (!found)
			fail("fuzz: TARGET_ADD accepted, no new target in context %u",
			     c->id);
		break;
	}
	case DAMON_PERF_CMD_TARGET_DEL: {
		uint32_t tid = (uint32_t)get_uint(tb[DAMON_PERF_A_TARGET_ID]);

		for (i = 0; i < c->nt; i++)
			if (c->t[i].id == tid)
				break;
		if (i == c->nt) {
			struct mctx k;
			char have[128] = "", got[128] = "";
			int j;

			for (j = 0; j < c->nt; j++)
				snprintf(have + strlen(have),
					 sizeof(have) - strlen(have), " %u",
					 c->t[j].id);
			if (!get_ctx(nl, c->id, &k))
				for (j = 0; j < k.nt; j++)
					snprintf(got + strlen(got),
						 sizeof(got) - strlen(got),
						 " %u", k.t[j].id);
			fail("fuzz: TARGET_DEL of target %u in context %u (%s): model has [%s ], kernel [%s ]",
			     tid, c->id, c->name, have, got);
			break;
		}
		c->t[i] = c->t[--c->nt];
		break;
	}
	case DAMON_PERF_CMD_PROBE_ADD: {
		struct mprobe *pr;

		if (reply_probe < 1 || reply_probe > 3) {
			fail("fuzz: PROBE_ADD reply index %u", reply_probe);
			break;
		}
		pr = &c->p[reply_probe];
		if (pr->used)
			fail("fuzz: PROBE_ADD reused index %u", reply_probe);
		memset(pr, 0, sizeof(*pr));
		pr->used = 1;
		parse_nest(sb, DAMON_PERF_PROBE_A_MAX, tb[DAMON_PERF_A_PROBE]);
		for (i = DAMON_PERF_PROBE_A_TYPE; i <= DAMON_PERF_PROBE_A_MAX;
		     i++)
			pr->f[i] = sb[i] ? (nla_plen(sb[i]) ? get_uint(sb[i]) :
							      1) :
					   0;
		if (!sb[DAMON_PERF_PROBE_A_WEIGHT])
			pr->f[DAMON_PERF_PROBE_A_WEIGHT] = 1;
		break;
	}
	case DAMON_PERF_CMD_PROBE_DEL: {
		uint32_t idx = (uint32_t)get_uint(tb[DAMON_PERF_A_PROBE_IDX]);

		if (idx < 1 || idx > 3 || !c->p[idx].used)
			fail("fuzz: PROBE_DEL of probe %u the model does not have",
			     idx);
		else
			c->p[idx].used = 0;
		break;
	}
	case DAMON_PERF_CMD_SET_FILTERS:
		c->nf = 0;
		for_each_nla(a, nla_data(tb[DAMON_PERF_A_FILTERS]),
			     nla_plen(tb[DAMON_PERF_A_FILTERS])) {
			const struct nlattr *x;
			struct mfilter *f;

			if (c->nf >= 8)
				break;
			f = &c->f[c->nf++];
			memset(f, 0, sizeof(*f));
			parse_nest(sb, DAMON_PERF_FILTER_A_MAX, a);
			f->type = (uint32_t)get_uint(
				sb[DAMON_PERF_FILTER_A_TYPE]);
			f->allow = !!sb[DAMON_PERF_FILTER_A_ALLOW];
			if (sb[DAMON_PERF_FILTER_A_CPUS] &&
			    f->type == DAMON_PERF_FILTER_CPUMASK)
				f->cpus = cpulist_mask(
					nla_data(sb[DAMON_PERF_FILTER_A_CPUS]));
			if (f->type == DAMON_PERF_FILTER_TID)
				for_each_nla(x, nla_data(a), nla_plen(a))
					if (nla_t(x) ==
						    DAMON_PERF_FILTER_A_TID &&
					    f->nr_tids < 16)
						f->tids[f->nr_tids++] =
							(uint32_t)get_uint(x);
		}
		break;
	case DAMON_PERF_CMD_START:
		c->state = DAMON_PERF_CTX_STATE_RUNNING;
		if (c->ops == DAMON_PERF_OPS_PADDR && !c->nt) {
			/* without a range, a paddr context takes all System RAM */
			struct mctx k;

			if (get_ctx(nl, c->id, &k) || !k.nt)
				fail("fuzz: paddr context %u started without System RAM targets",
				     c->id);
			else
				memcpy(c->t, k.t, sizeof(c->t)), c->nt = k.nt;
		}
		break;
	case DAMON_PERF_CMD_STOP:
		c->state = DAMON_PERF_CTX_STATE_STOPPED;
		break;
	}
}

/* Compare the model with context @k the kernel reports; 0 when equal. */
static int model_cmp(const struct mctx *m, const struct mctx *k)
{
	uint64_t eff;
	int i, j;

#define DIFF(...)                  \
	do {                       \
		fail(__VA_ARGS__); \
		return 1;          \
	} while (0)
	if (strcmp(m->name, k->name) || m->ops != k->ops)
		DIFF("final: context %u: name/ops %s/%u, model %s/%u", k->id,
		     k->name, k->ops, m->name, m->ops);
	if (m->state != k->state)
		DIFF("final: context %u (%s): state %u, model %u", k->id,
		     k->name, k->state, m->state);
	for (i = 2; i <= DAMON_PERF_ATTRS_A_MAX; i++)
		if (m->attrs[i] != k->attrs[i])
			DIFF("final: context %u: attrs field %d = %" PRIu64
			     ", model %" PRIu64,
			     k->id, i, k->attrs[i], m->attrs[i]);
	if (m->nt != k->nt)
		DIFF("final: context %u: %d targets, model %d", k->id, k->nt,
		     m->nt);
	for (i = 0; i < k->nt; i++) {
		for (j = 0; j < m->nt; j++)
			if (m->t[j].id == k->t[i].id &&
			    m->t[j].pid == k->t[i].pid &&
			    m->t[j].start == k->t[i].start &&
			    m->t[j].end == k->t[i].end)
				break;
		if (j == m->nt)
			DIFF("final: context %u: target %u (pid %u) not in the model",
			     k->id, k->t[i].id, k->t[i].pid);
	}
	for (i = 1; i <= 3; i++) {
		if (m->p[i].used != k->p[i].used)
			DIFF("final: context %u: probe %d used %d, model %d",
			     k->id, i, k->p[i].used, m->p[i].used);
		if (!k->p[i].used)
			continue;
		for (j = DAMON_PERF_PROBE_A_TYPE; j <= DAMON_PERF_PROBE_A_MAX;
		     j++)
			if (j != DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD &&
			    m->p[i].f[j] != k->p[i].f[j])
				DIFF("final: context %u: probe %d field %d = %" PRIu64
				     ", model %" PRIu64,
				     k->id, i, j, k->p[i].f[j], m->p[i].f[j]);
		/*
		 * The period in force is the kernel's (the CPU budget raises
		 * it): only a running fixed-period probe reports one, never
		 * below the period asked for.
		 */
		eff = k->p[i].f[DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD];
		if (eff && (k->state != DAMON_PERF_CTX_STATE_RUNNING ||
			    k->p[i].f[DAMON_PERF_PROBE_A_FREQ] ||
			    eff < k->p[i].f[DAMON_PERF_PROBE_A_SAMPLE_PERIOD]))
			DIFF("final: context %u (state %u): probe %d effective period %" PRIu64
			     " for sample period %" PRIu64 "%s",
			     k->id, k->state, i, eff,
			     k->p[i].f[DAMON_PERF_PROBE_A_SAMPLE_PERIOD],
			     k->p[i].f[DAMON_PERF_PROBE_A_FREQ] ? " (freq)" :
								  "");
	}
	if (m->nf != k->nf)
		DIFF("final: context %u: %d filters, model %d", k->id, k->nf,
		     m->nf);
	for (i = 0; i < k->nf; i++)
		if (m->f[i].type != k->f[i].type ||
		    m->f[i].allow != k->f[i].allow ||
		    m->f[i].cpus != k->f[i].cpus ||
		    m->f[i].nr_tids != k->f[i].nr_tids ||
		    memcmp(m->f[i].tids, k->f[i].tids, 4 * k->f[i].nr_tids))
			DIFF("final: context %u: filter %d differs from the model",
			     k->id, i);
#undef DIFF
	return 0;
}

void final_cb(const struct nlmsghdr *h, void *arg)
{
	struct finalchk *fc = arg;
	struct mctx k, *m;

	fill_mctx(h, &k);
	fc->n++;
	m = mfind(k.id);
	if (!m) {
		fail("final: context %u (%s) exists, the model has none", k.id,
		     k.name);
		fc->bad++;
		return;
	}
	fc->seen[m - model] = 1;
	fc->bad += model_cmp(m, &k);
}
