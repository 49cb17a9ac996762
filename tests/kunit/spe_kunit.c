// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the SPE packet/record parser, byte-exact, from the case table
 * shared with GoogleTest (tests/spe_cases.h). Inputs are copied into
 * buffers of exactly their length so KASAN reports any over-read.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "spe_parse.h"
#include "../spe_cases.h"

static void expect_record(struct kunit *test,
			  const struct damon_perf_spe_record *got,
			  const struct damon_perf_spe_record *want)
{
	KUNIT_EXPECT_EQ(test, got->vaddr, want->vaddr);
	KUNIT_EXPECT_EQ(test, got->paddr, want->paddr);
	KUNIT_EXPECT_EQ(test, got->pc, want->pc);
	KUNIT_EXPECT_EQ(test, got->branch_target, want->branch_target);
	KUNIT_EXPECT_EQ(test, got->timestamp, want->timestamp);
	KUNIT_EXPECT_EQ(test, got->context_id, want->context_id);
	KUNIT_EXPECT_EQ(test, got->events, want->events);
	KUNIT_EXPECT_EQ(test, got->latency, want->latency);
	KUNIT_EXPECT_EQ(test, got->issue_latency, want->issue_latency);
	KUNIT_EXPECT_EQ(test, got->xlat_latency, want->xlat_latency);
	KUNIT_EXPECT_EQ(test, got->flags, want->flags);
	KUNIT_EXPECT_EQ(test, got->data_source, want->data_source);
	KUNIT_EXPECT_EQ(test, got->el, want->el);
	KUNIT_EXPECT_EQ(test, got->op, want->op);
}

/* An exact-length copy; kmalloc(0) gives ZERO_SIZE_PTR, never read. */
static u8 *dup_exact(struct kunit *test, const u8 *bytes, size_t len)
{
	u8 *buf = kunit_kmalloc(test, len, GFP_KERNEL);

	if (len) {
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		memcpy(buf, bytes, len);
	}
	return buf;
}

static void case_desc(const struct spe_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(spe_cases, spe_cases, case_desc);

static void spe_parse_should_decode_records_byte_exact(struct kunit *test)
{
	const struct spe_case *c = test->param_value;
	struct damon_perf_spe_stats st = { 0 };
	struct spe_collect col = { 0 };
	unsigned int i;
	size_t used;
	u8 *buf;

	buf = dup_exact(test, c->bytes, c->len);
	used = damon_perf_spe_parse(buf, c->len, c->offset, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, c->consumed);
	KUNIT_ASSERT_EQ(test, col.nr, c->nr_recs);
	KUNIT_EXPECT_EQ(test, st.records, (u64)c->nr_recs);
	KUNIT_EXPECT_EQ(test, st.errors, c->errors);
	KUNIT_EXPECT_EQ(test, st.dropped, c->dropped);
	KUNIT_EXPECT_EQ(test, st.refused, 0ULL);
	for (i = 0; i < c->nr_recs && i < SPE_CASE_MAX_RECS; i++)
		expect_record(test, &col.recs[i], &c->recs[i]);
}

static void pkt_desc(const struct spe_pkt_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(spe_pkt_cases, spe_pkt_cases, pkt_desc);

static void spe_get_packet_should_decode_header_and_payload(struct kunit *test)
{
	const struct spe_pkt_case *c = test->param_value;
	struct damon_perf_spe_pkt pkt;
	u8 *buf;
	int ret;

	buf = dup_exact(test, c->bytes, c->len);
	ret = damon_perf_spe_get_packet(buf, c->len, c->offset, &pkt);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	if (ret <= 0)
		return;
	KUNIT_EXPECT_EQ(test, pkt.type, c->type);
	KUNIT_EXPECT_EQ(test, pkt.index, c->index);
	KUNIT_EXPECT_EQ(test, pkt.payload, c->payload);
	KUNIT_EXPECT_EQ(test, (int)pkt.len, ret);
}

static void spe_cases_should_have_the_documented_layout(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, sizeof(spe_rec_load), (size_t)SPE_REC_LOAD_LEN);
}

static void spe_parse_should_keep_every_truncated_packet(struct kunit *test)
{
	const size_t n = sizeof(spe_every_packet);
	struct damon_perf_spe_stats st;
	struct spe_collect col;
	size_t cut, used;
	u8 *buf;

	for (cut = 0; cut < n; cut++) {
		memset(&st, 0, sizeof(st));
		memset(&col, 0, sizeof(col));
		buf = dup_exact(test, spe_every_packet, cut);
		used = damon_perf_spe_parse(buf, cut, 0, &st, spe_collect_fn,
					    &col);
		/* only the leading PAD is consumed */
		KUNIT_EXPECT_EQ_MSG(test, used, (size_t)(cut ? 1 : 0),
				    "cut at %zu", cut);
		KUNIT_EXPECT_EQ_MSG(test, col.nr, 0U, "cut at %zu", cut);
		KUNIT_EXPECT_EQ_MSG(test, st.errors, 0ULL, "cut at %zu", cut);
		kunit_kfree(test, buf);
	}
	memset(&st, 0, sizeof(st));
	memset(&col, 0, sizeof(col));
	used = damon_perf_spe_parse(spe_every_packet, n, 0, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, n);
	KUNIT_ASSERT_EQ(test, col.nr, 1U);
	KUNIT_EXPECT_EQ(test, col.recs[0].vaddr, 0x0000ffff00003000ULL);
	KUNIT_EXPECT_EQ(test, col.recs[0].latency, 4U);
	KUNIT_EXPECT_EQ(test, col.recs[0].timestamp, 99ULL);
}

static void spe_parse_should_not_consume_a_refused_record(struct kunit *test)
{
	struct damon_perf_spe_stats st = { 0 };
	struct spe_collect col = { .limit = 1 };
	size_t used;

	used = damon_perf_spe_parse(spe_load_store, sizeof(spe_load_store), 0,
				    &st, spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, sizeof(spe_rec_load));
	KUNIT_EXPECT_EQ(test, col.nr, 1U);
	KUNIT_EXPECT_EQ(test, st.records, 1ULL);
	KUNIT_EXPECT_EQ(test, st.refused, 1ULL);

	col.limit = 0;
	used = damon_perf_spe_parse(spe_load_store + used,
				    sizeof(spe_load_store) - used, used, &st,
				    spe_collect_fn, &col);
	KUNIT_EXPECT_EQ(test, used, sizeof(spe_rec_store));
	KUNIT_EXPECT_EQ(test, st.records, 2ULL);
	KUNIT_ASSERT_EQ(test, col.nr, 2U);
	expect_record(test, &col.recs[1],
		      &(const struct damon_perf_spe_record)REC_STORE_EXPECT);
}

static struct kunit_case spe_parse_cases[] = {
	KUNIT_CASE(spe_cases_should_have_the_documented_layout),
	KUNIT_CASE_PARAM(spe_parse_should_decode_records_byte_exact,
			 spe_cases_gen_params),
	KUNIT_CASE_PARAM(spe_get_packet_should_decode_header_and_payload,
			 spe_pkt_cases_gen_params),
	KUNIT_CASE(spe_parse_should_keep_every_truncated_packet),
	KUNIT_CASE(spe_parse_should_not_consume_a_refused_record),
	{}
};

static struct kunit_suite spe_parse_suite = {
	.name = "damon_perf_spe_parse",
	.test_cases = spe_parse_cases,
};

kunit_test_suites(&spe_parse_suite);
