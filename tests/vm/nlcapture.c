// SPDX-License-Identifier: GPL-2.0
/*
 * nlcapture PID: capture the replies the damon_perf family really sends,
 * byte for byte, for damonctl's codec tests (tests/user/test_codec.cpp,
 * tests/user/data/netlink/). It drives one vaddr context on PID with a
 * page-fault probe, on sockets set up as damonctl's (NETLINK_EXT_ACK and
 * NETLINK_CAP_ACK), and prints every exchange it keeps as
 *
 *   NLCAP NAME HEX           32 bytes a line, each datagram received, up to
 *                            and with the ack or NLMSG_DONE
 *   NLCAP NAME end BYTES MSGS
 *
 * for tests/user/data/netlink/capture.sh to cut out of the console log:
 *
 *   ctx_new            CTX_NEW reply (a context, configured) and its ack
 *   probe_add          PROBE_ADD reply (the probe's index) and its ack
 *   aggregation        the first AGGREGATION notification (10-100 regions)
 *   ctx_get_dump       CTX_GET dump of the running context
 *   aggregation_trunc  an AGGREGATION with 300-400 regions: truncated
 *   snapshot_dump      SNAPSHOT_GET dump of such an aggregation, regions
 *                      over several messages (read 16 KiB at a time, as
 *                      libnl's first read does, on a socket of its own:
 *                      the kernel sizes a dump's messages by the reads)
 *   stats_dump         STATS_GET dump: one row per possible CPU, the total
 *   error_ack          CTX_GET of a missing context: ENOENT, extack
 *
 * Exits non-zero, saying why, when a step fails or a capture lacks what it
 * is kept for (a snapshot in one message, an aggregation not truncated).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/damon_perf.h>

#define BUFSZ 65536

static int family;
static uint32_t seq;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "nlcapture: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

struct req {
	union {
		struct nlmsghdr nlh;
		char buf[4096];
	};
	struct nlattr *nest[4];
	int depth;
};

static void req_init(struct req *r, int type, int cmd, int flags)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = ++seq;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = DAMON_PERF_GENL_VERSION;
}

static struct nlattr *put(struct req *r, int type, const void *data, int len)
{
	struct nlattr *a =
		(struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len =
		NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static void put_u32(struct req *r, int type, uint32_t v)
{
	put(r, type, &v, 4);
}
static void put_u64(struct req *r, int type, uint64_t v)
{
	put(r, type, &v, 8);
}
static void put_str(struct req *r, int type, const char *s)
{
	put(r, type, s, strlen(s) + 1);
}

static void nest_start(struct req *r, int type)
{
	r->nest[r->depth++] = put(r, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct req *r)
{
	struct nlattr *a = r->nest[--r->depth];

	a->nla_len = r->buf + r->nlh.nlmsg_len - (char *)a;
}

static int sock_new(void)
{
	struct timeval tv = { .tv_sec = 30 };
	int one = 1;
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* A capture: the datagrams of one exchange, back to back. */
struct cap {
	char buf[1 << 20];
	size_t len;
	int msgs;
	int err; /* the ack's or NLMSG_DONE's error */
	int last_cmd;
};

/*
 * xchg: send @r on @fd and receive until its ack (a do with NLM_F_ACK) or
 * NLMSG_DONE (a dump), every datagram appended to @c.
 */
static void xchg_n(int fd, struct req *r, struct cap *c, size_t bufsz)
{
	static char buf[BUFSZ];
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	int done = 0;

	c->len = 0;
	c->msgs = 0;
	c->err = 0;
	if (sendto(fd, r->buf, r->nlh.nlmsg_len, 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0)
		die("send: %s", strerror(errno));
	while (!done) {
		ssize_t n = recv(fd, buf, bufsz, 0);
		struct nlmsghdr *h;
		int left = (int)n;

		if (n < 0)
			die("recv: %s", strerror(errno));
		if (c->len + n > sizeof(c->buf))
			die("capture larger than %zu bytes", sizeof(c->buf));
		memcpy(c->buf + c->len, buf, n);
		c->len += n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != r->nlh.nlmsg_seq)
				die("reply of sequence %u, not %u",
				    h->nlmsg_seq, r->nlh.nlmsg_seq);
			c->msgs++;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE) {
				c->err = *(int *)NLMSG_DATA(h);
				done = 1;
			}
		}
	}
}

static void xchg(int fd, struct req *r, struct cap *c)
{
	xchg_n(fd, r, c, BUFSZ);
}

/* recv_one: one datagram from @fd into @c (a notification). */
static void recv_one(int fd, struct cap *c)
{
	ssize_t n = recv(fd, c->buf, sizeof(c->buf), 0);
	struct genlmsghdr *g;

	if (n < 0)
		die("no notification: %s", strerror(errno));
	c->len = n;
	c->msgs = 1;
	g = NLMSG_DATA((struct nlmsghdr *)c->buf);
	c->last_cmd = g->cmd;
}

static void emit(const char *name, const struct cap *c)
{
	size_t i;

	for (i = 0; i < c->len; i++) {
		if (i % 32 == 0)
			printf("%sNLCAP %s ", i ? "\n" : "", name);
		printf("%02x", (unsigned char)c->buf[i]);
	}
	printf("\nNLCAP %s end %zu %d\n", name, c->len, c->msgs);
	fflush(stdout);
}

static struct cap cap;

/* do_ok: a do that must succeed; @name: captured when not NULL. */
static void do_ok(int fd, struct req *r, const char *name)
{
	xchg(fd, r, &cap);
	if (cap.err)
		die("%s: %s", name ? name : "request", strerror(-cap.err));
	if (name)
		emit(name, &cap);
}

static int resolve(int fd)
{
	struct req r;
	struct nlmsghdr *h = (struct nlmsghdr *)cap.buf;
	struct nlattr *a;
	int left;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	put_str(&r, CTRL_ATTR_FAMILY_NAME, DAMON_PERF_GENL_NAME);
	((struct genlmsghdr *)NLMSG_DATA(&r.nlh))->version = 1;
	xchg(fd, &r, &cap);
	if (cap.err || h->nlmsg_type != GENL_ID_CTRL)
		die("family %s not found (module not loaded?)",
		    DAMON_PERF_GENL_NAME);
	left = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	     left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len),
	    a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
	die("no family id in the reply");
	return 0;
}

static uint32_t ctx_id_of(const struct cap *c)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)c->buf;
	const struct nlattr *a =
		(const void *)((const char *)NLMSG_DATA(h) + GENL_HDRLEN);

	if (h->nlmsg_type != family || a->nla_type != DAMON_PERF_A_CTX_ID)
		die("ctx-new: no context id first in the reply");
	return *(const uint32_t *)((const char *)a + NLA_HDRLEN);
}

static void ctx_req(struct req *r, int cmd, uint32_t id)
{
	req_init(r, family, cmd, NLM_F_ACK);
	put_u32(r, DAMON_PERF_A_CTX_ID, id);
}

static void set_regions(int fd, uint32_t id, uint32_t min, uint32_t max)
{
	struct req r;

	ctx_req(&r, DAMON_PERF_CMD_SET_ATTRS, id);
	nest_start(&r, DAMON_PERF_A_ATTRS);
	put_u64(&r, DAMON_PERF_ATTRS_A_SAMPLE_US, 5000);
	put_u64(&r, DAMON_PERF_ATTRS_A_AGGR_US, 100000);
	put_u64(&r, DAMON_PERF_ATTRS_A_UPDATE_US, 1000000);
	put_u32(&r, DAMON_PERF_ATTRS_A_MIN_NR_REGIONS, min);
	put_u32(&r, DAMON_PERF_ATTRS_A_MAX_NR_REGIONS, max);
	nest_end(&r);
	do_ok(fd, &r, NULL);
}

/* next_aggregation: the next AGGREGATION notification on @fd, into cap. */
static void next_aggregation(int fd)
{
	do
		recv_one(fd, &cap);
	while (cap.last_cmd != DAMON_PERF_CMD_AGGREGATION);
}

/* truncated: the next AGGREGATION, whether it is a truncated one. */
static int truncated(int fd)
{
	struct nlmsghdr *h = (struct nlmsghdr *)cap.buf;
	struct nlattr *a;
	int left;

	next_aggregation(fd);
	left = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	     left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
	     left -= NLA_ALIGN(a->nla_len),
	    a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == DAMON_PERF_A_TRUNCATED)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct req r;
	uint32_t id;
	int fd, mon, dump;

	if (argc != 2)
		die("usage: nlcapture PID");
	fd = sock_new();
	mon = sock_new();
	family = resolve(fd);

	req_init(&r, family, DAMON_PERF_CMD_CTX_NEW, NLM_F_ACK);
	put_str(&r, DAMON_PERF_A_CTX_NAME, "capture");
	put_u32(&r, DAMON_PERF_A_CTX_OPS, DAMON_PERF_OPS_VADDR);
	do_ok(fd, &r, "ctx_new");
	id = ctx_id_of(&cap);

	set_regions(fd, id, 10, 100);
	ctx_req(&r, DAMON_PERF_CMD_TARGET_ADD, id);
	nest_start(&r, DAMON_PERF_A_TARGET);
	put_u32(&r, DAMON_PERF_TARGET_A_PID, (uint32_t)atoi(argv[1]));
	nest_end(&r);
	do_ok(fd, &r, NULL);

	ctx_req(&r, DAMON_PERF_CMD_PROBE_ADD, id);
	nest_start(&r, DAMON_PERF_A_PROBE);
	put_u32(&r, DAMON_PERF_PROBE_A_TYPE, 1); /* PERF_TYPE_SOFTWARE */
	put_u64(&r, DAMON_PERF_PROBE_A_CONFIG,
		2); /* PERF_COUNT_SW_PAGE_FAULTS */
	put_u64(&r, DAMON_PERF_PROBE_A_SAMPLE_PERIOD, 1);
	put(&r, DAMON_PERF_PROBE_A_EXCLUDE_KERNEL, NULL, 0);
	nest_end(&r);
	do_ok(fd, &r, "probe_add");

	req_init(&r, family, DAMON_PERF_CMD_MONITOR_SUBSCRIBE, NLM_F_ACK);
	do_ok(mon, &r, NULL);
	ctx_req(&r, DAMON_PERF_CMD_START, id);
	do_ok(fd, &r, NULL);
	next_aggregation(mon);
	emit("aggregation", &cap);

	req_init(&r, family, DAMON_PERF_CMD_CTX_GET, NLM_F_DUMP);
	do_ok(fd, &r, "ctx_get_dump");

	/* more regions than one notification holds, for the last two */
	ctx_req(&r, DAMON_PERF_CMD_STOP, id);
	do_ok(fd, &r, NULL);
	set_regions(fd, id, 300, 400);
	ctx_req(&r, DAMON_PERF_CMD_START, id);
	do_ok(fd, &r, NULL);
	/* the first after the restart (older ones may still be queued) */
	while (!truncated(mon))
		;
	emit("aggregation_trunc", &cap);

	req_init(&r, family, DAMON_PERF_CMD_SNAPSHOT_GET, NLM_F_DUMP);
	put_u32(&r, DAMON_PERF_A_CTX_ID, id);
	dump = sock_new();
	xchg_n(dump, &r, &cap, 16384);
	close(dump);
	if (cap.err)
		die("snapshot_dump: %s", strerror(-cap.err));
	emit("snapshot_dump", &cap);
	if (cap.msgs < 3)
		die("snapshot_dump: %d messages, not several and NLMSG_DONE",
		    cap.msgs);

	req_init(&r, family, DAMON_PERF_CMD_STATS_GET, NLM_F_DUMP);
	do_ok(fd, &r, "stats_dump");

	req_init(&r, family, DAMON_PERF_CMD_CTX_GET, NLM_F_ACK);
	put_str(&r, DAMON_PERF_A_CTX_NAME, "nosuch");
	xchg(fd, &r, &cap);
	if (cap.err != -ENOENT)
		die("error_ack: %d, not ENOENT", cap.err);
	emit("error_ack", &cap);

	ctx_req(&r, DAMON_PERF_CMD_STOP, id);
	do_ok(fd, &r, NULL);
	ctx_req(&r, DAMON_PERF_CMD_CTX_DEL, id);
	do_ok(fd, &r, NULL);
	/* closing the socket ends its subscription */
	close(mon);
	close(fd);
	printf("NLCAP done\n");
	return 0;
}
