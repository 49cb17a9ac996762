// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: attack the damon_perf generic netlink family with requests
 * generated from its own policies, which it reads from the kernel at run
 * time (CTRL_CMD_GETPOLICY of nlctrl: every command's do and dump policy,
 * every attribute's type, range, length and nested policy).
 *
 *   nlattack policy               print the policies as read
 *   nlattack table                the same, one line per command and attribute
 *   nlattack sweep                boundary sweep (below)
 *   nlattack fuzz COUNT [SEED]    structure-aware fuzzer (below)
 *   nlattack inject PID           fault injection (below)
 *   nlattack replyfail PID        a PROBE_ADD whose reply cannot be sent
 *
 * Both fork two "faulter" children that keep taking user page faults
 * (mmap, touch, madvise(MADV_DONTNEED), again), the targets of the
 * contexts they build, so samples flow while they run.
 *
 * sweep: every numeric attribute of every command (top level and nested)
 * at 0, 1, its policy minimum and maximum, maximum + 1, 2^32 - 1, 2^63 - 1,
 * 2^63 and 2^64 - 1 (values wider than the attribute go out at 8 bytes),
 * inside an otherwise valid request against a context with a page-fault
 * probe on a faulter. Each reply must be success or an error with an
 * extack message. After a success that changed a context, the context must
 * work: it starts (or a refused start says why) and publishes an
 * aggregation while samples flow; intervals swept beyond a few seconds are
 * tuned back while it runs first, which a live kdamond must take.
 *
 * fuzz: COUNT requests, each a valid message for a random command (values
 * from the policy ranges, pointed at the contexts, targets and probes that
 * exist) that is then mutated with some probability: attributes dropped,
 * duplicated, given wrong lengths or types, out-of-range or boundary
 * values, unknown types, wrong NLA_F_NESTED flags, nests nested too deep,
 * lengths past their parent, truncated messages, the dump flag on doit
 * commands, unknown commands, a non-zero reserved header. Every reply must
 * be success or an error with an extack message (genetlink itself answers
 * an unknown command with a bare EOPNOTSUPP and a message shorter than its
 * header with a bare EINVAL: those are counted apart). Every successful
 * request is applied to a model; at the end CTX_GET must read back exactly
 * the model: contexts, names, ops, states, attributes, targets, probes and
 * filters. The socket is closed and reopened now and then (subscriptions
 * and attachments go with it).
 *
 * inject: builds context "inj" on process PID step by step (creation,
 * target, probe, filters, attributes with a new ring size, start) and fails
 * the 1st, 2nd, ... fault site (slab or page allocation) the kernel passes
 * while handling each step's request, until the request passes fewer sites
 * (/proc/thread-self/fail-nth: task-local, failslab and fail_page_alloc
 * alike). A failed request must leave nothing built and a retry must
 * succeed; a request that absorbed the failure must have built its part.
 *
 * Prints "nlattack: ..." lines; exit 0 when every check held, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/damon_perf.h>

#define MAXPOL 32
#define MAXATTR 64
#define BUFSZ 16384

/* ---- policies, as nlctrl reports them ---- */

struct pattr {
	int present;
	uint32_t type; /* NL_ATTR_TYPE_* */
	int has_u, has_s;
	uint64_t min_u, max_u;
	int64_t min_s, max_s;
	int has_len;
	uint32_t min_len, max_len;
	int nested; /* policy index + 1, 0 if none */
	uint32_t maxtype;
};

struct policy {
	int present;
	struct pattr a[MAXATTR];
};

static struct policy pol[MAXPOL];
static struct {
	int present;
	int do_idx, dump_idx; /* policy index + 1, 0 if none */
} ops[64];

/* ---- netlink plumbing ---- */

struct nl {
	int fd;
	uint32_t seq;
};

struct buf {
	uint8_t d[BUFSZ];
	size_t len;
};

struct reply {
	int err;
	int acked;
	int has_msg;
	char msg[256];
};

typedef void (*msg_cb)(const struct nlmsghdr *h, void *arg);

/*
 * Fault injection (mode inject): the inject_n-th fault site the kernel
 * passes while handling the next request fails (/proc/thread-self/fail-nth,
 * failslab, fail_page_alloc and the module's sites alike); inject_fired
 * says whether it did.
 */
static int inject_n, inject_fired, fail_nth_fd = -1;

static void inject_arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (pwrite(fail_nth_fd, s, (size_t)len, 0) != len) {
		perror("nlattack: fail-nth");
		exit(2);
	}
}

static int inject_left(void)
{
	char s[16] = { 0 };

	if (pread(fail_nth_fd, s, sizeof(s) - 1, 0) < 0)
		return -1;
	return atoi(s);
}

static uint16_t fam;
static int failures;
static unsigned long overruns, timeouts;

static void fail(const char *fmt, ...)
{
	va_list ap;

	failures++;
	if (failures > 40)
		return;
	printf("nlattack: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int one = 1, sz = 8 << 20;

	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0 || bind(nl->fd, (void *)&sa, sizeof(sa))) {
		perror("nlattack: netlink socket");
		exit(2);
	}
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void *put(struct buf *b, const void *p, size_t n)
{
	void *at = b->d + b->len;

	if (b->len + NLA_ALIGN(n) > BUFSZ)
		return NULL;
	if (p)
		memcpy(at, p, n);
	else
		memset(at, 0, n);
	memset(b->d + b->len + n, 0, NLA_ALIGN(n) - n);
	b->len += NLA_ALIGN(n);
	return at;
}

/* An attribute header; attr_end sets its length (padding excluded). */
static size_t attr_start(struct buf *b, uint16_t type)
{
	struct nlattr a = { .nla_type = type };
	size_t off = b->len;

	if (!put(b, &a, sizeof(a)))
		return (size_t)-1;
	return off;
}

static void attr_end(struct buf *b, size_t off, size_t payload_end)
{
	struct nlattr *a;

	if (off == (size_t)-1)
		return;
	a = (void *)(b->d + off);
	a->nla_len = (uint16_t)(payload_end - off);
}

static void put_attr(struct buf *b, uint16_t type, const void *p, size_t n)
{
	size_t off = attr_start(b, type), end;

	if (off == (size_t)-1)
		return;
	end = b->len + n;
	if (!put(b, p, n)) {
		b->len = off;
		return;
	}
	attr_end(b, off, end);
}

static void put_u32(struct buf *b, uint16_t t, uint32_t v)
{
	put_attr(b, t, &v, 4);
}
static void put_u64(struct buf *b, uint16_t t, uint64_t v)
{
	put_attr(b, t, &v, 8);
}
static void put_str(struct buf *b, uint16_t t, const char *s)
{
	put_attr(b, t, s, strlen(s) + 1);
}
static void put_flag(struct buf *b, uint16_t t)
{
	put_attr(b, t, NULL, 0);
}

static size_t nest_start(struct buf *b, uint16_t t)
{
	return attr_start(b, t | NLA_F_NESTED);
}
static void nest_end(struct buf *b, size_t off)
{
	attr_end(b, off, b->len);
}

static void msg_begin(struct buf *b, uint16_t family, uint8_t cmd,
		      uint16_t flags)
{
	struct nlmsghdr h = { .nlmsg_type = family,
			      .nlmsg_flags = NLM_F_REQUEST | flags };
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	b->len = 0;
	put(b, &h, sizeof(h));
	put(b, &g, sizeof(g));
}

static void msg_end(struct buf *b)
{
	((struct nlmsghdr *)b->d)->nlmsg_len = (uint32_t)b->len;
}

static void parse_ext(const struct nlmsghdr *h, size_t off, struct reply *r)
{
	const uint8_t *p = (const uint8_t *)h + off;
	const uint8_t *end = (const uint8_t *)h + h->nlmsg_len;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	while (p + sizeof(struct nlattr) <= end) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < sizeof(*a) || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG) {
			size_t n = a->nla_len - sizeof(*a);

			if (n >= sizeof(r->msg))
				n = sizeof(r->msg) - 1;
			memcpy(r->msg, p + sizeof(*a), n);
			r->msg[n] = 0;
			r->has_msg = r->msg[0] != 0;
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Send @b (its nlmsg_len as set) and read until its ack, error or dump end.
 * Messages of other sequence numbers (notifications) are skipped.
 */
static void xfer(struct nl *nl, struct buf *b, msg_cb cb, void *arg,
		 struct reply *r)
{
	static uint8_t rbuf[1 << 16];
	struct nlmsghdr *h = (void *)b->d;
	uint32_t seq = ++nl->seq;
	ssize_t n_sent;

	memset(r, 0, sizeof(*r));
	h->nlmsg_seq = seq;
	if (inject_n)
		inject_arm(inject_n);
	n_sent = send(nl->fd, b->d, b->len, 0);
	if (inject_n) {
		inject_fired = inject_left() == 0;
		inject_arm(0);
	}
	if (n_sent < 0) {
		r->err = -errno;
		r->acked = 1;
		snprintf(r->msg, sizeof(r->msg), "send: %s", strerror(errno));
		return;
	}
	for (;;) {
		ssize_t n = recv(nl->fd, rbuf, sizeof(rbuf), 0);
		struct nlmsghdr *m;

		if (n < 0) {
			if (errno == ENOBUFS) {
				overruns++;
				continue;
			}
			if (errno == EINTR)
				continue;
			r->err = -ETIMEDOUT;
			timeouts++;
			return;
		}
		for (m = (void *)rbuf; NLMSG_OK(m, (size_t)n);
		     m = NLMSG_NEXT(m, n)) {
			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(m);
				size_t off = NLMSG_HDRLEN + sizeof(*e);

				if (!(m->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len -
					       sizeof(e->msg);
				r->err = e->error;
				r->acked = 1;
				parse_ext(m, off, r);
				return;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				r->err = *(int *)NLMSG_DATA(m);
				r->acked = 1;
				parse_ext(m, NLMSG_HDRLEN + sizeof(int), r);
				return;
			}
			if (cb)
				cb(m, arg);
		}
	}
}

/* ---- attribute parsing (last one of a type wins, as nla_parse) ---- */

#define for_each_nla(a, p, n)                                                 \
	for (a = (const struct nlattr *)(p);                                  \
	     (const uint8_t *)a + sizeof(*a) <= (const uint8_t *)(p) + (n) && \
	     a->nla_len >= sizeof(*a) &&                                      \
	     (const uint8_t *)a + a->nla_len <= (const uint8_t *)(p) + (n);   \
	     a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len)))

static const void *nla_data(const struct nlattr *a)
{
	return (const uint8_t *)a + NLA_HDRLEN;
}
static int nla_plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}
static int nla_t(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static void parse(const struct nlattr **tb, int max, const void *p, size_t n)
{
	const struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for_each_nla(a, p, n)
		if (nla_t(a) <= max)
			tb[nla_t(a)] = a;
}

static void parse_nest(const struct nlattr **tb, int max,
		       const struct nlattr *nest)
{
	parse(tb, max, nla_data(nest), nla_plen(nest));
}

static uint64_t get_uint(const struct nlattr *a)
{
	uint64_t v = 0;

	if (!a)
		return 0;
	switch (nla_plen(a)) {
	case 1:
		v = *(const uint8_t *)nla_data(a);
		break;
	case 2:
		v = *(const uint16_t *)nla_data(a);
		break;
	case 4:
		v = *(const uint32_t *)nla_data(a);
		break;
	case 8:
		memcpy(&v, nla_data(a), 8);
		break;
	}
	return v;
}

static const uint8_t *genl_attrs(const struct nlmsghdr *h, size_t *n)
{
	*n = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN;
}

/* ---- family and policies ---- */

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

static void load_policies(struct nl *nl)
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

static void print_policies(void)
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

static void print_table(void)
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

static int is_int(uint32_t t)
{
	return t >= NL_ATTR_TYPE_U8 && t <= NL_ATTR_TYPE_S64;
}

static int int_width(uint32_t t)
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
static void put_int(struct buf *b, uint16_t t, int w, uint64_t v)
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

/* ---- faulters: page faults on demand ---- */

static pid_t faulters[2];

static unsigned int fault_pause_us = 200;

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

static void start_faulters(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		faulters[i] = fork();
		if (!faulters[i]) {
			fault_loop();
		}
	}
}

static void stop_faulters(void)
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

struct ctxinfo {
	uint32_t id;
	char name[32];
	uint32_t state;
};

struct ctxlist {
	int n;
	struct ctxinfo c[64];
};

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
static void ctx_msg(struct buf *b, uint8_t cmd, uint32_t id)
{
	msg_begin(b, fam, cmd, NLM_F_ACK);
	put_u32(b, DAMON_PERF_A_CTX_ID, id);
}

/* A vaddr target: process @pid. */
static void put_pid_target(struct buf *b, pid_t pid)
{
	size_t n = nest_start(b, DAMON_PERF_A_TARGET);

	put_u32(b, DAMON_PERF_TARGET_A_PID, (uint32_t)pid);
	nest_end(b, n);
}

/* The page-fault probe: every software page fault, user space only. */
static void put_fault_probe(struct buf *b)
{
	size_t n = nest_start(b, DAMON_PERF_A_PROBE);

	put_u32(b, DAMON_PERF_PROBE_A_TYPE, 1); /* PERF_TYPE_SOFTWARE */
	put_u64(b, DAMON_PERF_PROBE_A_CONFIG, 2); /* page faults */
	put_u64(b, DAMON_PERF_PROBE_A_SAMPLE_PERIOD, 1);
	put_flag(b, DAMON_PERF_PROBE_A_EXCLUDE_KERNEL);
	nest_end(b, n);
}

/* Intervals short enough that a case waits little for an aggregation. */
static void put_fast_attrs(struct buf *b)
{
	size_t n = nest_start(b, DAMON_PERF_A_ATTRS);

	put_u64(b, DAMON_PERF_ATTRS_A_SAMPLE_US, 1000);
	put_u64(b, DAMON_PERF_ATTRS_A_AGGR_US, 20000);
	put_u64(b, DAMON_PERF_ATTRS_A_UPDATE_US, 40000);
	nest_end(b, n);
}

/* Send request @b and read its ack; a refusal fails as @what. */
static int ack(struct nl *nl, struct buf *b, const char *what)
{
	struct reply r;

	msg_end(b);
	xfer(nl, b, NULL, NULL, &r);
	if (r.err)
		fail("%s: %d %s", what, r.err, r.msg);
	return r.err;
}

static void simple(struct nl *nl, uint8_t cmd, uint32_t id, struct reply *r)
{
	struct buf b;

	ctx_msg(&b, cmd, id);
	msg_end(&b);
	xfer(nl, &b, NULL, NULL, r);
}

static void list_ctxs(struct nl *nl, struct ctxlist *l, msg_cb cb, void *arg)
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

static void delete_all(struct nl *nl)
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

static void reply_id_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[DAMON_PERF_A_MAX + 1];
	const uint8_t *p;
	size_t n;

	p = genl_attrs(h, &n);
	parse(tb, DAMON_PERF_A_MAX, p, n);
	if (tb[DAMON_PERF_A_CTX_ID])
		*(uint32_t *)arg = (uint32_t)get_uint(tb[DAMON_PERF_A_CTX_ID]);
}

struct snapinfo {
	uint64_t seq;
	uint64_t hits;
	uint32_t regions;
};

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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait until context @id publishes an aggregation after the one seen now
 * (at most @secs seconds); fills @s with the new one. 0 on success.
 */
static int wait_aggregation(struct nl *nl, uint32_t id, double secs,
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

/* ---- boundary sweep ---- */

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

static int do_sweep(struct nl *nl)
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

/* ---- fuzzer: model ---- */

#define MNAMES 6
#define MTARGETS 8

struct mprobe {
	int used;
	uint64_t f[DAMON_PERF_PROBE_A_MAX + 1];
};

struct mfilter {
	uint32_t type, allow, nr_tids;
	uint64_t cpus;
	uint32_t tids[16];
};

struct mtarget {
	uint32_t id, pid;
	uint64_t start, end;
};

struct mctx {
	int used;
	uint32_t id, ops, state;
	char name[32];
	uint64_t attrs[DAMON_PERF_ATTRS_A_MAX + 1];
	int nt;
	struct mtarget t[MTARGETS];
	struct mprobe p[4];
	int nf;
	struct mfilter f[8];
};

static struct mctx model[MNAMES + 8];
static int subscribed;

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	uint64_t x = rnd_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rnd_state = x;
	return x;
}

static uint64_t rr(uint64_t n)
{
	return n ? rnd() % n : 0;
}
static int chance(int pct)
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

static struct mctx *mrandom(void)
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

static int get_ctx(struct nl *nl, uint32_t id, struct mctx *out)
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
static void model_apply(struct nl *nl, const struct buf *b, uint32_t reply_id,
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

struct finalchk {
	int seen[sizeof(model) / sizeof(model[0])];
	int n, bad;
};

static void final_cb(const struct nlmsghdr *h, void *arg)
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

/* ---- fuzzer: generation ---- */

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

static int mutate_pct = 50;

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

static int do_fuzz(struct nl *nl, unsigned long count, uint64_t seed)
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

/* ---- fault injection ---- */

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

static int do_inject(struct nl *nl, pid_t pid)
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
static int do_replyfail(struct nl *nl, pid_t pid)
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

int main(int argc, char **argv)
{
	struct nl nl;
	int ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr,
			"usage: nlattack policy | table | sweep | fuzz COUNT [SEED]\n");
		return 2;
	}
	nl_open(&nl);
	load_policies(&nl);
	if (!strcmp(argv[1], "policy")) {
		print_policies();
		return 0;
	}
	if (!strcmp(argv[1], "table")) {
		print_table();
		return 0;
	}
	if (!strcmp(argv[1], "inject") && argc >= 3)
		return do_inject(&nl, (pid_t)atoi(argv[2])) || failures ? 1 : 0;
	if (!strcmp(argv[1], "replyfail") && argc >= 3)
		return do_replyfail(&nl, (pid_t)atoi(argv[2])) || failures ? 1 :
									     0;
	if (!strcmp(argv[1], "sweep")) {
		start_faulters();
		ret = do_sweep(&nl);
	} else if (!strcmp(argv[1], "fuzz") && argc >= 3) {
		uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) :
					   (uint64_t)time(NULL);

		fault_pause_us =
			20000; /* targets more than sample sources here */
		start_faulters();
		if (getenv("NLATTACK_MUTATE"))
			mutate_pct = atoi(getenv("NLATTACK_MUTATE"));
		ret = do_fuzz(&nl, strtoul(argv[2], NULL, 0), seed);
	} else {
		fprintf(stderr,
			"usage: nlattack policy | table | sweep | fuzz COUNT [SEED]\n");
		ret = 2;
	}
	stop_faulters();
	if (failures)
		printf("nlattack: %d failures\n", failures);
	return ret ? ret : failures ? 1 : 0;
}
