// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack: netlink plumbing: the socket, messages and attributes built,
 * a request sent and its replies read, attributes parsed.
 */
#include "common.h"

/*
 * Fault injection (mode inject): the inject_n-th fault site the kernel
 * passes while handling the next request fails (/proc/thread-self/fail-nth,
 * failslab, fail_page_alloc and the module's sites alike); inject_fired
 * says whether it did.
 */
int inject_n, inject_fired, fail_nth_fd = -1;

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

uint16_t fam;
int failures;
unsigned long overruns, timeouts;

void fail(const char *fmt, ...)
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

void nl_open(struct nl *nl)
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
size_t attr_start(struct buf *b, uint16_t type)
{
	struct nlattr a = { .nla_type = type };
	size_t off = b->len;

	if (!put(b, &a, sizeof(a)))
		return (size_t)-1;
	return off;
}

void attr_end(struct buf *b, size_t off, size_t payload_end)
{
	struct nlattr *a;

	if (off == (size_t)-1)
		return;
	a = (void *)(b->d + off);
	a->nla_len = (uint16_t)(payload_end - off);
}

void put_attr(struct buf *b, uint16_t type, const void *p, size_t n)
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

void put_u32(struct buf *b, uint16_t t, uint32_t v)
{
	put_attr(b, t, &v, 4);
}
void put_u64(struct buf *b, uint16_t t, uint64_t v)
{
	put_attr(b, t, &v, 8);
}
void put_str(struct buf *b, uint16_t t, const char *s)
{
	put_attr(b, t, s, strlen(s) + 1);
}
void put_flag(struct buf *b, uint16_t t)
{
	put_attr(b, t, NULL, 0);
}

size_t nest_start(struct buf *b, uint16_t t)
{
	return attr_start(b, t | NLA_F_NESTED);
}
void nest_end(struct buf *b, size_t off)
{
	attr_end(b, off, b->len);
}

void msg_begin(struct buf *b, uint16_t family, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr h = { .nlmsg_type = family,
			      .nlmsg_flags = NLM_F_REQUEST | flags };
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	b->len = 0;
	put(b, &h, sizeof(h));
	put(b, &g, sizeof(g));
}

void msg_end(struct buf *b)
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
void xfer(struct nl *nl, struct buf *b, msg_cb cb, void *arg, struct reply *r)
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

const void *nla_data(const struct nlattr *a)
{
	return (const uint8_t *)a + NLA_HDRLEN;
}
int nla_plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}
int nla_t(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

void parse(const struct nlattr **tb, int max, const void *p, size_t n)
{
	const struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for_each_nla(a, p, n)
		if (nla_t(a) <= max)
			tb[nla_t(a)] = a;
}

void parse_nest(const struct nlattr **tb, int max, const struct nlattr *nest)
{
	parse(tb, max, nla_data(nest), nla_plen(nest));
}

uint64_t get_uint(const struct nlattr *a)
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

const uint8_t *genl_attrs(const struct nlmsghdr *h, size_t *n)
{
	*n = h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN;
}
