// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of two versions of the SPE parser (kmod/spe_parse.c):
 * random streams (records of every packet kind, PAD runs, alignment
 * packets, bad bytes, reserved classes, records past the 2 KiB limit with
 * and without PADs inside, truncation) are parsed whole and in random
 * chunks (the unconsumed tail kept and the resync state carried, as
 * kmod/spe.c does), with a callback that refuses at random; every return
 * value, every statistic after every call, every record (all fields) and
 * damon_perf_spe_get_packet() on every stream prefix must agree.
 * Not built by CMake; the previous parser is taken from git, its
 * functions renamed:
 *
 *   git show REV:kmod/spe_parse.c |
 *	sed 's/damon_perf_spe_\(get_packet\|parse\|pkt_name\)\b/prev_spe_\1/g' \
 *	>/tmp/spe_prev.c
 *   cc -O2 -Ikmod tests/user/bench/spe_diff.c kmod/spe_parse.c \
 *	/tmp/spe_prev.c -o /tmp/spe_diff && /tmp/spe_diff 300000
 *
 * Both versions share spe_parse.h (its structs and constants). Prints the
 * totals; exits 1 at the first difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe_parse.h"

int prev_spe_get_packet(const u8 *buf, size_t len, u64 offset,
			struct damon_perf_spe_pkt *pkt);
size_t prev_spe_parse(const u8 *buf, size_t len, u64 offset,
		      struct damon_perf_spe_stats *stats,
		      bool (*fn)(const struct damon_perf_spe_record *rec,
				 void *arg),
		      void *arg);

typedef size_t (*parse_fn)(
	const u8 *, size_t, u64, struct damon_perf_spe_stats *,
	bool (*)(const struct damon_perf_spe_record *, void *), void *);

static u64 rng_state;

static u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

#define STREAM_MAX (64 * 1024)
#define RECS_MAX (STREAM_MAX)

struct out {
	struct damon_perf_spe_record recs[RECS_MAX];
	size_t nr;
	u64 refuse_seed;
	u64 calls;
	/* per parse call: return value and the stats after it */
	size_t rets[STREAM_MAX + 1];
	struct damon_perf_spe_stats st[STREAM_MAX + 1];
	size_t nr_calls;
};

static struct out out_a, out_b;

static bool take(const struct damon_perf_spe_record *r, void *arg)
{
	struct out *o = arg;
	u64 h = (o->refuse_seed + o->calls++) * 0x9e3779b97f4a7c15ULL;

	/* refuse about one record in 16 when refusals are on */
	if (o->refuse_seed && (h >> 60) == 0)
		return false;
	if (o->nr < RECS_MAX)
		o->recs[o->nr++] = *r;
	return true;
}

static u8 stream[STREAM_MAX];

static size_t put(size_t n, const u8 *p, size_t k)
{
	if (n + k > STREAM_MAX)
		return n;
	memcpy(stream + n, p, k);
	return n + k;
}

static size_t put_le(size_t n, u8 hdr, u64 v, unsigned int bytes)
{
	u8 b[9];
	unsigned int i;

	b[0] = hdr;
	for (i = 0; i < bytes; i++)
		b[1 + i] = (u8)(v >> (8 * i));
	return put(n, b, 1 + bytes);
}

static u64 rnd_addr(void)
{
	u64 v = rnd();

	switch (below(4)) {
	case 0:
		return v;
	case 1:
		return v & ((1ULL << 48) - 1);
	case 2:
		return (v | (1ULL << 63)) & ~(3ULL << 61);
	default:
		return v | (1ULL << 55);
	}
}

/* One packet of any kind, valid or not. */
static size_t put_packet(size_t n)
{
	static const unsigned int sz[] = {1, 2, 4, 8};
	u8 b[2];

	switch (below(16)) {
	case 0:
		return put_le(n, (u8)(0xb0 | below(4)), rnd_addr(), 8);
	case 1:
		return put_le(n, (u8)(0x98 | below(3)), rnd() & 0xffff, 2);
	case 2:
		return put_le(n, 0x49, below(256), 1);
	case 3:
		return put_le(n, (u8)(0x48 | below(4)), below(256), 1);
	case 4: {
		unsigned int s = below(4);

		return put_le(n, (u8)(0x42 | s << 4), rnd(), sz[s]);
	}
	case 5: {
		unsigned int s = below(4);

		return put_le(n, (u8)(0x43 | s << 4), rnd(), sz[s]);
	}
	case 6:
		return put_le(n, (u8)(0x64 | below(4)), rnd(), 4);
	case 7: {
		/* extended header: address or counter with a high index */
		unsigned int i = below(32);

		b[0] = (u8)(0x20 | (i >> 3));
		b[1] = (u8)((below(2) ? 0xb0 : 0x98) | (i & 7));
		n = put(n, b, 2);
		return put_le(n, (u8)rnd(), rnd(),
			      (b[1] & 0xf0) == 0xb0 ? 7 : 1);
	}
	case 8:
		/* alignment packet */
		b[0] = (u8)(0x20 | below(4));
		b[1] = 0x00;
		return put(n, b, 2);
	case 9: {
		/* a PAD run */
		unsigned int k = 1 + below(below(8) ? 8 : 300);

		while (k-- && n < STREAM_MAX)
			stream[n++] = 0;
		return n;
	}
	case 10:
		b[0] = (u8)rnd();
		return put(n, b, 1);
	default:
		return put_le(n, (u8)(0xb0 | below(4)), rnd_addr(), 8);
	}
}

/* A record: a few packets, then END or TIMESTAMP (or none). */
static size_t put_record(size_t n, unsigned int nr_pkts)
{
	unsigned int i;
	u8 end = 0x01;

	for (i = 0; i < nr_pkts; i++)
		n = put_packet(n);
	switch (below(8)) {
	case 0:
		return n; /* unterminated */
	case 1:
	case 2:
	case 3:
		return put_le(n, 0x71, rnd(), 8);
	default:
		return put(n, &end, 1);
	}
}

static size_t make_stream(void)
{
	size_t n = 0, want = 1 + below(below(4) ? 512 : STREAM_MAX);

	while (n < want) {
		switch (below(12)) {
		case 0:
			/* overlong: past 2 KiB before its end */
			n = put_record(n, 200 + below(300));
			break;
		case 1:
			/* around the limit: 2 KiB of PAD inside a record */
			n = put_packet(n);
			{
				unsigned int k = 2000 + below(100);

				while (k-- && n < STREAM_MAX)
					stream[n++] = 0;
			}
			n = put_record(n, below(4));
			break;
		case 2:
			n = put_packet(n);
			break;
		default:
			n = put_record(n, 1 + below(12));
			break;
		}
	}
	return n;
}

static void run(parse_fn parse, struct out *o, const u8 *buf, size_t len,
		u64 offset, u64 refuse_seed, u64 chunk_seed)
{
	struct damon_perf_spe_stats st = {0};
	size_t done = 0, avail = 0;
	u64 cs = chunk_seed;

	o->nr = 0;
	o->nr_calls = 0;
	o->calls = 0;
	o->refuse_seed = refuse_seed;
	/*
	 * The stream arrives in chunks; each call gets everything from the
	 * first unconsumed byte to what has arrived. Whole when chunk_seed
	 * is 0. A refusal is retried at the next call.
	 */
	while (avail < len || done < avail) {
		size_t used;

		if (avail < len) {
			if (chunk_seed) {
				cs = cs * 6364136223846793005ULL + 1;
				avail += 1 + (cs >> 33) % 700;
				if (avail > len)
					avail = len;
			} else {
				avail = len;
			}
		}
		used = parse(buf + done, avail - done, offset + done, &st, take,
			     o);
		o->rets[o->nr_calls] = used;
		o->st[o->nr_calls] = st;
		o->nr_calls++;
		if (used > avail - done) {
			fprintf(stderr, "consumed past the end\n");
			exit(1);
		}
		done += used;
		if (avail == len && !used)
			break;
		if (o->nr_calls > STREAM_MAX)
			break;
	}
}

static bool same_rec(const struct damon_perf_spe_record *a,
		     const struct damon_perf_spe_record *b)
{
	return a->vaddr == b->vaddr && a->paddr == b->paddr && a->pc == b->pc &&
	       a->branch_target == b->branch_target &&
	       a->timestamp == b->timestamp && a->context_id == b->context_id &&
	       a->events == b->events && a->latency == b->latency &&
	       a->issue_latency == b->issue_latency &&
	       a->xlat_latency == b->xlat_latency && a->flags == b->flags &&
	       a->data_source == b->data_source && a->el == b->el &&
	       a->op == b->op;
}

static bool same_stats(const struct damon_perf_spe_stats *a,
		       const struct damon_perf_spe_stats *b)
{
	return a->records == b->records && a->errors == b->errors &&
	       a->dropped == b->dropped && a->refused == b->refused &&
	       a->overlong == b->overlong && a->resync == b->resync;
}

static int compare(const char *what, unsigned long iter)
{
	size_t i;

	if (out_a.nr_calls != out_b.nr_calls) {
		fprintf(stderr, "%lu %s: %zu calls against %zu\n", iter, what,
			out_a.nr_calls, out_b.nr_calls);
		return 1;
	}
	for (i = 0; i < out_a.nr_calls; i++) {
		if (out_a.rets[i] != out_b.rets[i] ||
		    !same_stats(&out_a.st[i], &out_b.st[i])) {
			fprintf(stderr, "%lu %s: call %zu differs\n", iter,
				what, i);
			return 1;
		}
	}
	if (out_a.nr != out_b.nr) {
		fprintf(stderr, "%lu %s: %zu records against %zu\n", iter, what,
			out_a.nr, out_b.nr);
		return 1;
	}
	for (i = 0; i < out_a.nr; i++) {
		if (!same_rec(&out_a.recs[i], &out_b.recs[i])) {
			fprintf(stderr, "%lu %s: record %zu differs\n", iter,
				what, i);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	u64 bytes = 0, recs = 0, overlong = 0, errors = 0, refused = 0;
	u64 resync_calls = 0, packets = 0;
	unsigned long it;

	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	for (it = 0; it < iters; it++) {
		size_t len = make_stream(), p;
		u64 offset = below(64);
		u64 refuse = below(3) ? 0 : rnd() | 1;
		u64 chunk = below(2) ? 0 : rnd() | 1;

		run(damon_perf_spe_parse, &out_a, stream, len, offset, refuse,
		    chunk);
		run(prev_spe_parse, &out_b, stream, len, offset, refuse, chunk);
		if (compare("parse", it))
			return 1;
		/* no stats, no callback */
		if (damon_perf_spe_parse(stream, len, offset, NULL, NULL,
					 NULL) !=
		    prev_spe_parse(stream, len, offset, NULL, NULL, NULL)) {
			fprintf(stderr, "%lu: NULL stats differ\n", it);
			return 1;
		}
		for (p = 0; p < len && p < 4096; p++) {
			struct damon_perf_spe_pkt a, b;
			int ra, rb;

			ra = damon_perf_spe_get_packet(stream + p, len - p,
						       offset + p, &a);
			rb = prev_spe_get_packet(stream + p, len - p,
						 offset + p, &b);
			if (ra != rb || memcmp(&a, &b, sizeof(a))) {
				fprintf(stderr, "%lu: packet at %zu differs\n",
					it, p);
				return 1;
			}
			packets++;
		}
		bytes += len;
		recs += out_a.nr;
		overlong += out_a.st[out_a.nr_calls - 1].overlong;
		errors += out_a.st[out_a.nr_calls - 1].errors;
		refused += out_a.st[out_a.nr_calls - 1].refused;
		for (p = 0; p < out_a.nr_calls; p++)
			resync_calls += out_a.st[p].resync;
	}
	printf("%lu streams, %llu bytes, %llu records, %llu overlong, %llu "
	       "errors, %llu refused, %llu calls ending in resync, %llu "
	       "packets: identical\n",
	       iters, (unsigned long long)bytes, (unsigned long long)recs,
	       (unsigned long long)overlong, (unsigned long long)errors,
	       (unsigned long long)refused, (unsigned long long)resync_calls,
	       (unsigned long long)packets);
	return 0;
}
