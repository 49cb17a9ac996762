// SPDX-License-Identifier: GPL-2.0
/*
 * nlattack (main.c has its modes): what its files share.
 */
#ifndef NLATTACK_COMMON_H
#define NLATTACK_COMMON_H

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

/* A command's policies. */
struct op {
	int present;
	int do_idx, dump_idx; /* policy index + 1, 0 if none */
};

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

#define for_each_nla(a, p, n)                                                 \
	for (a = (const struct nlattr *)(p);                                  \
	     (const uint8_t *)a + sizeof(*a) <= (const uint8_t *)(p) + (n) && \
	     a->nla_len >= sizeof(*a) &&                                      \
	     (const uint8_t *)a + a->nla_len <= (const uint8_t *)(p) + (n);   \
	     a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len)))

struct ctxinfo {
	uint32_t id;
	char name[32];
	uint32_t state;
};

struct ctxlist {
	int n;
	struct ctxinfo c[64];
};

struct snapinfo {
	uint64_t seq;
	uint64_t hits;
	uint32_t regions;
};

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

/* ---- netlink.c: netlink plumbing and attribute parsing ---- */

extern int inject_n, inject_fired, fail_nth_fd;
extern uint16_t fam;
extern int failures;
extern unsigned long overruns, timeouts;

void fail(const char *fmt, ...);
void nl_open(struct nl *nl);
size_t attr_start(struct buf *b, uint16_t type);
void attr_end(struct buf *b, size_t off, size_t payload_end);
void put_attr(struct buf *b, uint16_t type, const void *p, size_t n);
void put_u32(struct buf *b, uint16_t t, uint32_t v);
void put_u64(struct buf *b, uint16_t t, uint64_t v);
void put_str(struct buf *b, uint16_t t, const char *s);
void put_flag(struct buf *b, uint16_t t);
size_t nest_start(struct buf *b, uint16_t t);
void nest_end(struct buf *b, size_t off);
void msg_begin(struct buf *b, uint16_t family, uint8_t cmd, uint16_t flags);
void msg_end(struct buf *b);
void xfer(struct nl *nl, struct buf *b, msg_cb cb, void *arg, struct reply *r);
const void *nla_data(const struct nlattr *a);
int nla_plen(const struct nlattr *a);
int nla_t(const struct nlattr *a);
void parse(const struct nlattr **tb, int max, const void *p, size_t n);
void parse_nest(const struct nlattr **tb, int max, const struct nlattr *nest);
uint64_t get_uint(const struct nlattr *a);
const uint8_t *genl_attrs(const struct nlmsghdr *h, size_t *n);

/* ---- policy.c: the family and its policies, as nlctrl reports them ---- */

extern struct policy pol[MAXPOL];
extern struct op ops[64];

void load_policies(struct nl *nl);
void print_policies(void);
void print_table(void);
int is_int(uint32_t t);
int int_width(uint32_t t);
void put_int(struct buf *b, uint16_t t, int w, uint64_t v);

/* ---- ctx.c: faulters and context helpers (used by every mode) ---- */

extern pid_t faulters[2];
extern unsigned int fault_pause_us;

void start_faulters(void);
void stop_faulters(void);
void ctx_msg(struct buf *b, uint8_t cmd, uint32_t id);
void put_pid_target(struct buf *b, pid_t pid);
void put_fault_probe(struct buf *b);
void put_fast_attrs(struct buf *b);
int ack(struct nl *nl, struct buf *b, const char *what);
void simple(struct nl *nl, uint8_t cmd, uint32_t id, struct reply *r);
void list_ctxs(struct nl *nl, struct ctxlist *l, msg_cb cb, void *arg);
void delete_all(struct nl *nl);
void reply_id_cb(const struct nlmsghdr *h, void *arg);
double now(void);
int wait_aggregation(struct nl *nl, uint32_t id, double secs,
		     struct snapinfo *s);

/* ---- sweep.c: boundary sweep ---- */

int do_sweep(struct nl *nl);

/* ---- fuzz_model.c: the fuzzer's model of the contexts ---- */

extern struct mctx model[MNAMES + 8];
extern int subscribed;
extern uint64_t rnd_state;

struct finalchk {
	int seen[sizeof(model) / sizeof(model[0])];
	int n, bad;
};

uint64_t rnd(void);
uint64_t rr(uint64_t n);
int chance(int pct);
struct mctx *mrandom(void);
int get_ctx(struct nl *nl, uint32_t id, struct mctx *out);
void model_apply(struct nl *nl, const struct buf *b, uint32_t reply_id,
		 uint32_t reply_probe);
void final_cb(const struct nlmsghdr *h, void *arg);

/* ---- fuzz.c: the fuzzer's generation and its run ---- */

extern int mutate_pct;

int do_fuzz(struct nl *nl, unsigned long count, uint64_t seed);

/* ---- inject.c: fault injection and a reply that cannot be sent ---- */

int do_inject(struct nl *nl, pid_t pid);
int do_replyfail(struct nl *nl, pid_t pid);

#endif /* NLATTACK_COMMON_H */
