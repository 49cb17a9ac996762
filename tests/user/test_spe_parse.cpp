// SPDX-License-Identifier: GPL-2.0
/*
 * GoogleTest for the SPE parser (kmod/spe_parse.c built in userspace),
 * running the same byte-exact cases as tests/kunit/spe_kunit.c.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "spe_parse.h"
#include "spe_cases.h"

namespace {

void expect_record(const damon_perf_spe_record &got,
		   const damon_perf_spe_record &want)
{
	EXPECT_EQ(got.vaddr, want.vaddr);
	EXPECT_EQ(got.paddr, want.paddr);
	EXPECT_EQ(got.pc, want.pc);
	EXPECT_EQ(got.branch_target, want.branch_target);
	EXPECT_EQ(got.timestamp, want.timestamp);
	EXPECT_EQ(got.context_id, want.context_id);
	EXPECT_EQ(got.events, want.events);
	EXPECT_EQ(got.latency, want.latency);
	EXPECT_EQ(got.issue_latency, want.issue_latency);
	EXPECT_EQ(got.xlat_latency, want.xlat_latency);
	EXPECT_EQ(got.flags, want.flags);
	EXPECT_EQ(got.data_source, want.data_source);
	EXPECT_EQ(got.el, want.el);
	EXPECT_EQ(got.op, want.op);
}

std::string case_name(const char *desc)
{
	std::string s;

	for (const char *p = desc; *p; p++)
		s += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
	return s;
}

class SpeParseCase : public ::testing::TestWithParam<spe_case> {};

TEST_P(SpeParseCase, ParsesByteExact)
{
	const spe_case &c = GetParam();
	damon_perf_spe_stats st{};
	spe_collect col{};
	/* a copy of exactly len bytes, so ASan catches any over-read */
	std::vector<u8> in(c.bytes, c.bytes + c.len);

	size_t used = damon_perf_spe_parse(in.data(), in.size(), c.offset, &st,
					   spe_collect_fn, &col);
	EXPECT_EQ(used, c.consumed);
	ASSERT_EQ(col.nr, c.nr_recs);
	EXPECT_EQ(st.records, c.nr_recs);
	EXPECT_EQ(st.errors, c.errors);
	EXPECT_EQ(st.dropped, c.dropped);
	EXPECT_EQ(st.refused, 0u);
	for (unsigned int i = 0; i < c.nr_recs && i < SPE_CASE_MAX_RECS; i++) {
		SCOPED_TRACE("record " + std::to_string(i));
		expect_record(col.recs[i], c.recs[i]);
	}
}

INSTANTIATE_TEST_SUITE_P(Spe, SpeParseCase, ::testing::ValuesIn(spe_cases),
			 [](const ::testing::TestParamInfo<spe_case> &i) {
				 return std::to_string(i.index) + "_" +
					case_name(i.param.desc);
			 });

class SpePacketCase : public ::testing::TestWithParam<spe_pkt_case> {};

TEST_P(SpePacketCase, DecodesHeaderAndPayload)
{
	const spe_pkt_case &c = GetParam();
	damon_perf_spe_pkt pkt;
	std::vector<u8> in(c.bytes, c.bytes + c.len);

	int ret =
		damon_perf_spe_get_packet(in.data(), in.size(), c.offset, &pkt);
	ASSERT_EQ(ret, c.ret);
	if (ret <= 0)
		return;
	EXPECT_EQ(pkt.type, c.type);
	EXPECT_EQ(pkt.index, c.index);
	EXPECT_EQ(pkt.payload, c.payload);
	EXPECT_EQ(pkt.len, ret);
}

INSTANTIATE_TEST_SUITE_P(Spe, SpePacketCase, ::testing::ValuesIn(spe_pkt_cases),
			 [](const ::testing::TestParamInfo<spe_pkt_case> &i) {
				 return std::to_string(i.index) + "_" +
					case_name(i.param.desc);
			 });

TEST(SpeParse, CaseTableMatchesItsLayout)
{
	ASSERT_EQ(sizeof(spe_rec_load), size_t{SPE_REC_LOAD_LEN});
}

TEST(SpeParse, EveryStrictPrefixConsumesOnlyLeadingPad)
{
	const size_t n = sizeof(spe_every_packet);

	for (size_t cut = 0; cut < n; cut++) {
		SCOPED_TRACE("cut " + std::to_string(cut));
		std::vector<u8> in(spe_every_packet, spe_every_packet + cut);
		damon_perf_spe_stats st{};
		spe_collect col{};

		size_t used = damon_perf_spe_parse(in.data(), in.size(), 0, &st,
						   spe_collect_fn, &col);
		EXPECT_EQ(used, cut ? 1u : 0u);
		EXPECT_EQ(col.nr, 0u);
		EXPECT_EQ(st.errors, 0u);
	}
	damon_perf_spe_stats st{};
	spe_collect col{};
	EXPECT_EQ(damon_perf_spe_parse(spe_every_packet, n, 0, &st,
				       spe_collect_fn, &col),
		  n);
	ASSERT_EQ(col.nr, 1u);
	EXPECT_EQ(col.recs[0].vaddr, 0x0000ffff00003000ULL);
	EXPECT_EQ(col.recs[0].latency, 4u);
	EXPECT_EQ(col.recs[0].timestamp, 99u);
	EXPECT_EQ(col.recs[0].flags & DAMON_PERF_SPE_REC_OP_OTHER,
		  DAMON_PERF_SPE_REC_OP_OTHER);
}

TEST(SpeParse, RefusedRecordIsNotConsumed)
{
	damon_perf_spe_stats st{};
	spe_collect col{};

	col.limit = 1;
	size_t used =
		damon_perf_spe_parse(spe_load_store, sizeof(spe_load_store), 0,
				     &st, spe_collect_fn, &col);
	EXPECT_EQ(used, sizeof(spe_rec_load));
	EXPECT_EQ(col.nr, 1u);
	EXPECT_EQ(st.records, 1u);
	EXPECT_EQ(st.refused, 1u);

	/* the caller resumes from what was not consumed */
	col.limit = 0;
	used = damon_perf_spe_parse(spe_load_store + used,
				    sizeof(spe_load_store) - used, used, &st,
				    spe_collect_fn, &col);
	EXPECT_EQ(used, sizeof(spe_rec_store));
	EXPECT_EQ(st.records, 2u);
}

/* Feeding a stream in arbitrary chunks, keeping the unconsumed tail,
 * yields the same records as parsing it whole. */
TEST(SpeParse, ChunkedFeedMatchesWholeParse)
{
	std::vector<u8> stream;

	for (int i = 0; i < 20; i++) {
		const u8 *r = (i % 3) ? spe_rec_load : spe_rec_store;
		size_t n =
			(i % 3) ? sizeof(spe_rec_load) : sizeof(spe_rec_store);
		stream.insert(stream.end(), r, r + n);
		if (i % 4 == 0)
			stream.push_back(P_PAD);
	}
	for (size_t chunk = 1; chunk <= 64; chunk++) {
		SCOPED_TRACE("chunk " + std::to_string(chunk));
		damon_perf_spe_stats st{};
		std::vector<u8> pending;
		size_t pos = 0, base = 0;

		while (pos < stream.size()) {
			size_t take = std::min(chunk, stream.size() - pos);
			pending.insert(pending.end(), stream.begin() + pos,
				       stream.begin() + pos + take);
			pos += take;
			size_t used = damon_perf_spe_parse(
				pending.data(), pending.size(), base, &st,
				nullptr, nullptr);
			pending.erase(pending.begin(), pending.begin() + used);
			base += used;
		}
		EXPECT_TRUE(pending.empty());
		EXPECT_EQ(st.records, 20u);
		EXPECT_EQ(st.errors, 0u);
	}
}

TEST(SpeParse, PacketNamesMatchPerf)
{
	EXPECT_STREQ(damon_perf_spe_pkt_name(DAMON_PERF_SPE_PKT_ADDRESS),
		     "ADDR");
	EXPECT_STREQ(damon_perf_spe_pkt_name(DAMON_PERF_SPE_PKT_COUNTER),
		     "LAT");
	EXPECT_STREQ(damon_perf_spe_pkt_name(1000), "BAD");
}

} // namespace
