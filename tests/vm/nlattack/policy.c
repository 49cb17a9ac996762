// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: the family and its policies, read from nlctrl (CTRL_CMD_GETPOLICY),
 * printed as read (policy) or one line per attribute (table).
 */
#include "common.h"

struct policy pol[MAXPOL];
struct op ops[64];

static void family_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const uint8_t *p;
	size_t n;

	(void)arg;
	p = genl_attrs(h, &n);
	parse(tb, CTRL_ATTR_MAX, p, n);
	if (tb[CTRL_ATTR_FAMILY_ID])
		fam = *(const uint16_t *)nla_data(tb[CTRL_ATTR_FAMILY_ID]);
}

static void policy_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *pi, *ai, *f, *o;
	const uint8_t *p;
	size_t n;

	(void)arg;
	p = genl_attrs(h, &n);
	parse(tb, CTRL_ATTR_MAX, p, n);
	if (tb[CTRL_ATTR_OP_POLICY]) {
		for_each_nla(o, nla_data(tb[CTRL_ATTR_OP_POLICY]),
			     nla_plen(tb[CTRL_ATTR_OP_POLICY])) {
			const struct nlattr *ob[CTRL_ATTR_POLICY_DUMP_MAX + 1];
			int cmd = nla_t(o);

			if (cmd >= 64)
				continue;
			parse_nest(ob, CTRL_ATTR_POLICY_DUMP_MAX, o);
			ops[cmd].present = 1;
			if (ob[CTRL_ATTR_POLICY_DO])
				ops[cmd].do_idx =
					(int)get_uint(ob[CTRL_ATTR_POLICY_DO]) +
					1;
			if (ob[CTRL_ATTR_POLICY_DUMP])
				ops[cmd].dump_idx =
					(int)get_uint(
						ob[CTRL_ATTR_POLICY_DUMP]) +
					1;
		}
	}
	if (!tb[CTRL_ATTR_POLICY])
		return;
	for_each_nla(pi, nla_data(tb[CTRL_ATTR_POLICY]),
		     nla_plen(tb[CTRL_ATTR_POLICY])) {
		int idx = nla_t(pi);

		if (idx >= MAXPOL)
			continue;
		pol[idx].present = 1;
		for_each_nla(ai, nla_data(pi), nla_plen(pi)) {
			struct pattr *pa;
			int t = nla_t(ai);

			if (t >= MAXATTR)
				continue;
			pa = &pol[idx].a[t];
			pa->present = 1;
			for_each_nla(f, nla_data(ai), nla_plen(ai)) {
				uint64_t v = get_uint(f);

				switch (nla_t(f)) {
				case NL_POLICY_TYPE_ATTR_TYPE:
					pa->type = (uint32_t)v;
					break;
				case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
					pa->has_u = 1;
					pa->min_u = v;
					break;
				case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
					pa->has_u = 1;
					pa->max_u = v;
					break;
				case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
					pa->has_s = 1;
					pa->min_s = (int64_t)v;
					break;
				case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
					pa->has_s = 1;
					pa->max_s = (int64_t)v;
					break;
				case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
					pa->has_len = 1;
					pa->min_len = (uint32_t)v;
					break;
				case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
					pa->has_len = 1;
					pa->max_len = (uint32_t)v;
					break;
				case NL_POLICY_TYPE_ATTR_POLICY_IDX:
					pa->nested = (int)v + 1;
					break;
				case NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE:
					pa->maxtype = (uint32_t)v;
					break;
				}
			}
		}
	}
}

void load_policies(struct nl *nl)
{
	struct buf b;
	struct reply r;
	int i, n = 0;

	msg_begin(&b, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	put_str(&b, CTRL_ATTR_FAMILY_NAME, DAMON_PERF_GENL_NAME);
	msg_end(&b);
	xfer(nl, &b, family_cb, NULL, &r);
	if (r.err || !fam) {
		printf("nlattack: family %s not found (%d)\n",
		       DAMON_PERF_GENL_NAME, r.err);
		exit(2);
	}
	msg_begin(&b, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, NLM_F_DUMP);
	put_attr(&b, CTRL_ATTR_FAMILY_ID, &fam, 2);
	msg_end(&b);
	xfer(nl, &b, policy_cb, NULL, &r);
	if (r.err) {
		printf("nlattack: CTRL_CMD_GETPOLICY failed: %d %s\n", r.err,
		       r.msg);
		exit(2);
	}
	for (i = 0; i < 64; i++)
		n += ops[i].present;
	if (!n) {
		printf("nlattack: no per-command policies reported\n");
		exit(2);
	}
}

static const char *tname(uint32_t t)
{
	static const char *const n[] = { "invalid",    "flag",	 "u8",
					 "u16",	       "u32",	 "u64",
					 "s8",	       "s16",	 "s32",
					 "s64",	       "binary", "string",
					 "nul-string", "nested", "nested-array",
					 "bitfield32", "mask" };

	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

void print_policies(void)
{
	int i, t;

	for (i = 0; i < 64; i++)
		if (ops[i].present)
			printf("op %d: do policy %d dump policy %d\n", i,
			       ops[i].do_idx - 1, ops[i].dump_idx - 1);
	for (i = 0; i < MAXPOL; i++) {
		if (!pol[i].present)
			continue;
		for (t = 0; t < MAXATTR; t++) {
			struct pattr *a = &pol[i].a[t];

			if (!a->present)
				continue;
			printf("policy %d attr %d: %s", i, t, tname(a->type));
			if (a->has_u)
				printf(" u[%" PRIu64 ", %" PRIu64 "]", a->min_u,
				       a->max_u);
			if (a->has_s)
				printf(" s[%" PRId64 ", %" PRId64 "]", a->min_s,
				       a->max_s);
			if (a->has_len)
				printf(" len[%u, %u]", a->min_len, a->max_len);
			if (a->nested)
				printf(" -> policy %d (maxtype %u)",
				       a->nested - 1, a->maxtype);
			printf("\n");
		}
	}
}

/*
 * One line per attribute of every command's do and dump policy, nests
 * expanded as dotted paths: "cmd C do|dump PATH TYPE [u MIN MAX]
 * [s MIN MAX] [len MIN MAX] [maxtype N]". tests/vm/ynl_policy.sh compares
 * it with the same table made from the spec (scripts/lib/ynl-policy.py).
 */
static void table_policy(int cmd, const char *mode, int idx, const char *prefix,
			 int depth)
{
	char path[128];
	int t;

	if (idx < 0 || idx >= MAXPOL || !pol[idx].present || depth > 4)
		return;
	for (t = 0; t < MAXATTR; t++) {
		struct pattr *a = &pol[idx].a[t];

		if (!a->present)
			continue;
		snprintf(path, sizeof(path), "%s%d", prefix, t);
		printf("cmd %d %s %s %s", cmd, mode, path, tname(a->type));
		if (a->has_u)
			printf(" u %" PRIu64 " %" PRIu64, a->min_u, a->max_u);
		if (a->has_s)
			printf(" s %" PRId64 " %" PRId64, a->min_s, a->max_s);
		if (a->has_len)
			printf(" len %u %u", a->min_len, a->max_len);
		if (a->nested)
			printf(" maxtype %u", a->maxtype);
		printf("\n");
		if (a->nested) {
			char sub[130];

			snprintf(sub, sizeof(sub), "%s.", path);
			table_policy(cmd, mode, a->nested - 1, sub, depth + 1);
		}
	}
}

void print_table(void)
{
	int i;

	for (i = 0; i < 64; i++) {
		if (!ops[i].present)
			continue;
		if (ops[i].do_idx)
			table_policy(i, "do", ops[i].do_idx - 1, "", 0);
		if (ops[i].dump_idx)
			table_policy(i, "dump", ops[i].dump_idx - 1, "", 0);
	}
}

int is_int(uint32_t t)
{
	return t >= NL_ATTR_TYPE_U8 && t <= NL_ATTR_TYPE_S64;
}

int int_width(uint32_t t)
{
	switch (t) {
	case NL_ATTR_TYPE_U8:
	case NL_ATTR_TYPE_S8:
		return 1;
	case NL_ATTR_TYPE_U16:
	case NL_ATTR_TYPE_S16:
		return 2;
	case NL_ATTR_TYPE_U32:
	case NL_ATTR_TYPE_S32:
		return 4;
	default:
		return 8;
	}
}

/* Put integer @v at @w bytes. */
void put_int(struct buf *b, uint16_t t, int w, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (w) {
	case 1:
		put_attr(b, t, &u8, 1);
		break;
	case 2:
		put_attr(b, t, &u16, 2);
		break;
	case 4:
		put_attr(b, t, &u32, 4);
		break;
	default:
		put_attr(b, t, &v, 8);
		break;
	}
}
