// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the SPE parser (kmod/spe_parse.c).
 *
 * Input: byte 0 gives the stream offset (alignment packets depend on it),
 * byte 1 a split point; the rest is the SPE stream. Checked properties:
 * no over-read (ASan: the stream is copied to an exact-size heap buffer),
 * consumed <= length, and feeding the stream in two chunks, keeping the
 * unconsumed tail as a real consumer does, yields the same records and
 * errors as parsing it whole. A refusing callback never makes the parser
 * consume more.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spe_parse.h"

struct sum {
	u64 n;
	u64 hash;
	u64 limit;
};

static bool take(const struct damon_perf_spe_record *r, void *arg)
{
	struct sum *s = arg;

	if (s->limit && s->n >= s->limit)
		return false;
	s->n++;
	s->hash = s->hash * 31 + (r->vaddr ^ r->paddr ^ r->pc ^ r->flags ^
				  r->timestamp ^ r->latency ^ r->events);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damon_perf_spe_stats whole = { 0 }, parts = { 0 }, lim = { 0 };
	struct sum sw = { 0 }, sp = { 0 }, sl = { 0 };
	size_t len, split, used, used2, rest;
	u64 offset;
	u8 *buf, *tail;

	if (size < 2)
		return 0;
	offset = data[0];
	len = size - 2;
	split = len ? data[1] % (len + 1) : 0;
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, len);

	used = damon_perf_spe_parse(buf, len, offset, &whole, take, &sw);
	if (used > len)
		abort();

	/* first chunk, then what it left plus the rest, in a fresh buffer */
	used2 = damon_perf_spe_parse(buf, split, offset, &parts, take, &sp);
	if (used2 > split)
		abort();
	rest = len - used2;
	tail = malloc(rest ? rest : 1);
	if (!tail)
		abort();
	memcpy(tail, buf + used2, rest);
	used2 += damon_perf_spe_parse(tail, rest, offset + used2, &parts, take,
				      &sp);
	free(tail);
	if (used2 != used || sp.n != sw.n || sp.hash != sw.hash ||
	    parts.errors != whole.errors || parts.dropped != whole.dropped)
		abort();

	/* refusing after one record never consumes more */
	sl.limit = 1;
	if (damon_perf_spe_parse(buf, len, offset, &lim, take, &sl) > used)
		abort();
	if (sw.n > 1 && lim.refused != 1)
		abort();

	free(buf);
	return 0;
}
