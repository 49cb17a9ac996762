// SPDX-License-Identifier: GPL-2.0
// damo's record format as damonctl writes it: the layout, and the zlib
// stream around it (the real damo reads it in the damo_interop test).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "damo_format.hpp"
#include "errors.hpp"

using namespace damonctl;

namespace {

Aggregation agg(uint64_t seq, uint32_t nr)
{
	Aggregation a;
	a.ctx_id = 7;
	a.ctx_name = "db";
	a.seq = seq;
	a.time_ns = 5000000000ULL + seq * 200000000ULL;
	a.aggr_us = 200000;
	a.sample_us = 10000;
	Target t1, t2;
	t1.id = 1;
	t2.id = 3;
	a.targets = {t1, t2};
	Region r;
	r.target_id = 1;
	r.start = 0x1000;
	r.end = 0x5000;
	r.nr_accesses = nr;
	r.age = 4;
	r.probe_hits = {nr, 2};
	a.regions.push_back(r);
	r.target_id = 3;
	r.start = 0x10000;
	r.end = 0x11000;
	r.nr_accesses = 0;
	a.regions.push_back(r);
	return a;
}

} // namespace

TEST(DamoFormat, OneRecordPerTargetOneSnapshotPerAggregation)
{
	auto j = to_damo_json({agg(1, 5), agg(2, 9)});

	ASSERT_EQ(j.size(), 2u);
	EXPECT_EQ(j[0]["target_id"], 1);
	EXPECT_EQ(j[1]["target_id"], 3);
	EXPECT_EQ(j[0]["context_idx"], 0);
	EXPECT_EQ(j[0]["intervals"]["sample_us"], 10000);
	EXPECT_EQ(j[0]["intervals"]["aggr_us"], 200000);
	EXPECT_EQ(j[0]["intervals"]["ops_update_us"], DAMO_DEFAULT_UPDATE_US);
	ASSERT_EQ(j[0]["snapshots"].size(), 2u);
	const auto &s = j[0]["snapshots"][1];
	EXPECT_EQ(s["end_time"], 5400000000ULL);
	EXPECT_EQ(s["start_time"], 5200000000ULL); // end - aggr
	EXPECT_EQ(s["total_bytes"], 0x4000);
	ASSERT_EQ(s["regions"].size(), 1u);
	EXPECT_EQ(s["regions"][0]["nr_accesses"]["samples"], 9);
	EXPECT_EQ(s["regions"][0]["age"]["aggr_intervals"], 4);
	EXPECT_EQ(s["regions"][0]["probe_hits"], (std::vector<int>{9, 2}));
	EXPECT_EQ(j[1]["snapshots"][0]["total_bytes"], 0x1000);
}

TEST(DamoFormat, UnknownIntervalsAreTheModuleDefaults)
{
	Aggregation a = agg(1, 1);
	a.sample_us.reset();
	auto j = to_damo_json({a});

	EXPECT_EQ(j[0]["intervals"]["sample_us"], DAMO_DEFAULT_SAMPLE_US);
}

TEST(DamoFormat, ContextsAreNumberedInOrder)
{
	Aggregation b = agg(1, 1);
	b.ctx_id = 2;
	auto j = to_damo_json({agg(1, 1), b});

	ASSERT_EQ(j.size(), 4u);
	EXPECT_EQ(j[2]["context_idx"], 1);
}

TEST(DamoFormat, ZlibRoundTrip)
{
	std::string big(100000, 'x');
	for (size_t i = 0; i < big.size(); i += 7)
		big[i] = char('a' + i % 26);

	std::string z = zlib_compress(big);
	EXPECT_LT(z.size(), big.size());
	EXPECT_EQ(uint8_t(z[0]), 0x78); // a zlib header: file(1) knows it
	EXPECT_EQ(zlib_decompress(z), big);
	EXPECT_THROW(zlib_decompress("not zlib"), UsageError);
	EXPECT_THROW(zlib_decompress(z.substr(0, z.size() / 2)), UsageError);
}

TEST(DamoFormat, WritesTheFileWholeAndRefusesABadPath)
{
	std::string path = testing::TempDir() + "/damo_format_test.data";
	write_damo_file(path, {agg(1, 3)});
	std::ifstream in(path, std::ios::binary);
	std::stringstream ss;
	ss << in.rdbuf();
	auto j = nlohmann::json::parse(zlib_decompress(ss.str()));
	EXPECT_EQ(j, to_damo_json({agg(1, 3)}));
	std::remove(path.c_str());

	EXPECT_THROW(write_damo_file("/nonexistent/dir/x", {}), UsageError);
}
