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
 * Also: every pair of header bytes with every length and stream offset
 * (packets and parses of each prefix), the benchmark's three realistic
 * streams (spe_stream.h) whole, chunked and cut at every offset of their
 * first records, and windows of them mutated at random (bytes flipped,
 * set, inserted, deleted; PAD runs and records past 2 KiB inserted).
 *
 * Built by tests/user/bench/CMakeLists.txt as spe_diff against the parser
 * of commit SPE_DIFF_REV (a CMake cache variable), taken from git with its
 * functions renamed:
 *
 *   cmake -S tests/user/bench -B build/bench -DCMAKE_BUILD_TYPE=Release
 *   cmake --build build/bench -j2 --target spe_diff
 *   build/bench/spe_diff 1000000        # ITERS [SEED]
 *
 * By hand:
 *
 *   git show REV:kmod/spe_parse.c |
 *	sed 's/damon_perf_spe_\(get_packet\|parse\|pkt_name\)\b/prev_spe_\1/g' \
 *	>/tmp/spe_prev.c
 *   c++ -O2 -std=c++20 -Ikmod -Itests -c tests/user/bench/spe_diff_streams.cpp
 *   cc -O2 -Ikmod tests/user/bench/spe_diff.c kmod/spe_parse.c \
 *	/tmp/spe_prev.c spe_diff_streams.o -lstdc++ -o /tmp/spe_diff
 *
 * ITERS random streams and ITERS mutated windows are compared.
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

size_t spe_diff_bench_stream(int kind, u8 *out, size_t max);

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

/* Parses compared (each a whole stream, in one call or in chunks). */
static u64 nr_inputs;

/*
 * @split: when not 0 (and @chunk_seed is), the first call gets the first
 * @split - 1 bytes, the next ones everything.
 */
static void run(parse_fn parse, struct out *o, const u8 *buf, size_t len,
		u64 offset, u64 refuse_seed, u64 chunk_seed, size_t split)
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
			} else if (split && !o->nr_calls) {
				avail = split - 1 < len ? split - 1 : len;
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

/* Parse @buf with both parsers the same way; 1 at a difference. */
static int diff_one(const u8 *buf, size_t len, u64 offset, u64 refuse,
		    u64 chunk, size_t split, const char *what, unsigned long it)
{
	run(damon_perf_spe_parse, &out_a, buf, len, offset, refuse, chunk,
	    split);
	run(prev_spe_parse, &out_b, buf, len, offset, refuse, chunk, split);
	nr_inputs++;
	if (compare(what, it))
		return 1;
	/* no stats, no callback */
	if (damon_perf_spe_parse(buf, len, offset, NULL, NULL, NULL) !=
	    prev_spe_parse(buf, len, offset, NULL, NULL, NULL)) {
		fprintf(stderr, "%lu %s: NULL stats differ\n", it, what);
		return 1;
	}
	return 0;
}

static u64 nr_packets;

static int diff_packets(const u8 *buf, size_t len, u64 offset, size_t max,
			unsigned long it)
{
	size_t p;

	for (p = 0; p < len && p < max; p++) {
		struct damon_perf_spe_pkt a, b;
		int ra, rb;

		/* what a cut packet leaves in @pkt is compared too */
		memset(&a, 0x5a, sizeof(a));
		memset(&b, 0xa5, sizeof(b));
		ra = damon_perf_spe_get_packet(buf + p, len - p, offset + p,
					       &a);
		rb = prev_spe_get_packet(buf + p, len - p, offset + p, &b);
		if (ra != rb || memcmp(&a, &b, sizeof(a))) {
			fprintf(stderr, "%lu: packet at %zu differs\n", it, p);
			return 1;
		}
		nr_packets++;
	}
	return 0;
}

/*
 * Every first and second header byte, followed by payload bytes, at
 * every length up to a whole packet and a record end, at offsets 0..31:
 * the packet and a parse of the prefix (whole, and cut at every byte).
 */
static int diff_headers(void)
{
	u8 b[16];
	unsigned int h0, h1, l, off, i;

	for (h0 = 0; h0 < 256; h0++) {
		for (h1 = 0; h1 < 256; h1++) {
			b[0] = (u8)h0;
			b[1] = (u8)h1;
			for (i = 2; i < sizeof(b); i++)
				b[i] = (u8)rnd();
			/* end the packet with an END when it is short */
			if (rnd() & 1)
				b[2 + below(9)] = 0x01;
			for (off = 0; off < 32; off++) {
				if (diff_packets(b, sizeof(b), off, 1,
						 h0 << 8 | h1))
					return 1;
				for (l = 0; l <= 12; l++) {
					if (diff_one(b, l, off, 0, 0, 0,
						     "header", h0 << 8 | h1))
						return 1;
					if (off == 0 &&
					    diff_one(b, sizeof(b), off, 0, 0,
						     l + 1, "header split",
						     h0 << 8 | h1))
						return 1;
				}
			}
		}
	}
	return 0;
}

#define BENCH_MAX (1U << 21)
static u8 bench[3][BENCH_MAX];
static size_t bench_len[3];

/* The benchmark's streams whole, chunked, refused and cut at each byte. */
static int diff_bench(void)
{
	static const char *const names[] = {"clean", "noisy", "mixed"};
	size_t k, cut;
	int i;

	for (i = 0; i < 3; i++) {
		bench_len[i] = spe_diff_bench_stream(i, bench[i], BENCH_MAX);
		if (bench_len[i] > BENCH_MAX) {
			fprintf(stderr, "bench stream too long\n");
			exit(1);
		}
		/* whole: at most RECS_MAX records compared */
		if (diff_one(bench[i], bench_len[i], 0, 0, 0, 0, names[i], 0) ||
		    diff_packets(bench[i], bench_len[i], 0, bench_len[i], 0))
			return 1;
		for (k = 1; k <= 64; k++) {
			if (diff_one(bench[i], bench_len[i] / 4, k, 0, k, 0,
				     names[i], k) ||
			    diff_one(bench[i], bench_len[i] / 4, 0, k, k * 7, 0,
				     names[i], k))
				return 1;
		}
		for (cut = 1; cut <= 1024; cut++)
			if (diff_one(bench[i], 4096, 0, 0, 0, cut, names[i],
				     cut))
				return 1;
	}
	return 0;
}

/* A window of a bench stream with a few random mutations, into stream[]. */
static size_t make_mutated(void)
{
	const u8 *src;
	size_t n, i, at, k;
	unsigned int m, nr_mut;
	int kind = (int)below(3);

	n = 1 + below(below(4) ? 1024 : 16384);
	src = bench[kind] + below((unsigned int)(bench_len[kind] - n));
	memcpy(stream, src, n);
	nr_mut = below(6);
	for (m = 0; m < nr_mut; m++) {
		at = below((unsigned int)n);
		switch (below(7)) {
		case 0:
			stream[at] ^= (u8)(1U << below(8));
			break;
		case 1:
			stream[at] = (u8)rnd();
			break;
		case 2:
			/* insert random bytes */
			k = 1 + below(12);
			if (n + k > STREAM_MAX)
				break;
			memmove(stream + at + k, stream + at, n - at);
			for (i = 0; i < k; i++)
				stream[at + i] = (u8)rnd();
			n += k;
			break;
		case 3:
			/* delete bytes */
			k = 1 + below(12);
			if (at + k > n)
				k = n - at;
			memmove(stream + at, stream + at + k, n - at - k);
			n -= k;
			if (!n)
				n = 1;
			break;
		case 4:
			/* a PAD run, sometimes past the record limit */
			k = below(4) ? 1 + below(64) : 2000 + below(200);
			if (n + k > STREAM_MAX)
				break;
			memmove(stream + at + k, stream + at, n - at);
			memset(stream + at, 0, k);
			n += k;
			break;
		case 5:
			/* packets without a record end, past 2 KiB */
			k = 2040 + below(40);
			if (n + k > STREAM_MAX)
				break;
			memmove(stream + at + k, stream + at, n - at);
			for (i = 0; i + 3 <= k; i += 3) {
				stream[at + i] = 0x98;
				stream[at + i + 1] = (u8)rnd();
				stream[at + i + 2] = (u8)rnd();
			}
			for (; i < k; i++)
				stream[at + i] = 0;
			n += k;
			break;
		default:
			/* an alignment packet */
			if (n + 2 > STREAM_MAX)
				break;
			memmove(stream + at + 2, stream + at, n - at);
			stream[at] = (u8)(0x20 | below(4));
			stream[at + 1] = 0;
			n += 2;
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	u64 bytes = 0, recs = 0, overlong = 0, errors = 0, refused = 0;
	u64 resync_calls = 0, mut_inputs;
	unsigned long it;
	size_t p;

	rng_state = seed * 0x2545f4914f6cdd1dULL + 1;
	if (diff_headers())
		return 1;
	printf("headers: %llu parses, %llu packets: identical\n",
	       (unsigned long long)nr_inputs, (unsigned long long)nr_packets);
	if (diff_bench())
		return 1;
	printf("bench streams: %llu parses in all: identical\n",
	       (unsigned long long)nr_inputs);
	mut_inputs = nr_inputs;
	for (it = 0; it < iters; it++) {
		size_t len = make_mutated();
		u64 offset = below(64);
		u64 refuse = below(3) ? 0 : rnd() | 1;
		u64 chunk = below(2) ? 0 : rnd() | 1;
		size_t split = chunk ? 0 : below((unsigned int)len + 2);

		if (diff_one(stream, len, offset, refuse, chunk, split,
			     "mutated", it) ||
		    diff_packets(stream, len, offset, 256, it))
			return 1;
	}
	printf("mutated bench windows: %llu parses: identical\n",
	       (unsigned long long)(nr_inputs - mut_inputs));
	for (it = 0; it < iters; it++) {
		size_t len = make_stream();
		u64 offset = below(64);
		u64 refuse = below(3) ? 0 : rnd() | 1;
		u64 chunk = below(2) ? 0 : rnd() | 1;
		size_t split = chunk ? 0 : below((unsigned int)len + 2);

		if (diff_one(stream, len, offset, refuse, chunk, split, "parse",
			     it) ||
		    diff_packets(stream, len, offset, 4096, it))
			return 1;
		bytes += len;
		recs += out_a.nr;
		overlong += out_a.st[out_a.nr_calls - 1].overlong;
		errors += out_a.st[out_a.nr_calls - 1].errors;
		refused += out_a.st[out_a.nr_calls - 1].refused;
		for (p = 0; p < out_a.nr_calls; p++)
			resync_calls += out_a.st[p].resync;
	}
	printf("%lu random streams, %llu bytes, %llu records, %llu overlong, "
	       "%llu errors, %llu refused, %llu calls ending in resync: "
	       "identical\n",
	       iters, (unsigned long long)bytes, (unsigned long long)recs,
	       (unsigned long long)overlong, (unsigned long long)errors,
	       (unsigned long long)refused, (unsigned long long)resync_calls);
	printf("in all: %llu parses (inputs) and %llu packets compared: "
	       "identical\n",
	       (unsigned long long)nr_inputs, (unsigned long long)nr_packets);
	return 0;
}
