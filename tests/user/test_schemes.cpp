// SPDX-License-Identifier: GPL-2.0
// DAMOS-style schemes: the parser (damonctl's format and damo 3.3's JSON,
// bounds, one clear error for bad input) and the engine over a fake
// backend (matching, mappings and filters, priority under a quota, time
// quota, watermarks, apply interval, stats and failures by errno).
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/damon_perf.h>

#include "errors.hpp"
#include "fake_transport.hpp"
#include "scheme.hpp"
#include "scheme_file.hpp"
#include "scheme_engine.hpp"
#include "scheme_paddr.hpp"
#include "scheme_procs.hpp"
#include "scheme_units.hpp"

using namespace damonctl;
using nlohmann::json;

namespace {

const uint64_t KiB = 1024;
const uint64_t MiB = 1024 * KiB;

std::string data(const std::string &name)
{
	return std::string(DAMONCTL_TEST_DATA) + "/schemes/" + name;
}

// The message parse_schemes throws for @doc ("" if it parses).
std::string error_of(const std::string &doc)
{
	try {
		parse_schemes(json::parse(doc));
	} catch (const UsageError &e) {
		return e.what();
	}
	return "";
}

Scheme one(const std::string &scheme)
{
	auto v = parse_schemes(json::parse("{\"schemes\": [" + scheme + "]}"));
	EXPECT_EQ(v.size(), 1u);
	return v.at(0);
}

struct Call {
	uint32_t pid;
	SchemeAction action;
	int node;
	uint64_t start;
	uint64_t end;
	bool operator==(const Call &o) const
	{
		return std::tie(pid, action, node, start, end) ==
		       std::tie(o.pid, o.action, o.node, o.start, o.end);
	}
};

std::ostream &operator<<(std::ostream &os, const Call &c)
{
	return os << c.pid << " " << to_string(c.action) << " " << c.node << " "
		  << std::hex << c.start << "-" << c.end << std::dec;
}

// Mappings and outcomes as a test sets them; every call recorded; each
// apply takes @ns_per_apply of the fake clock.
class FakeBackend : public SchemeBackend {
public:
	std::map<uint32_t, std::vector<Mapping>> maps;
	std::map<uint32_t, int> maps_err;
	// pages of every apply that fail with this errno (0: none)
	std::map<uint32_t, std::pair<int, uint64_t>> fail_pages;
	std::vector<Call> calls;
	uint32_t free_permil = 900;
	uint64_t clock = 0;
	uint64_t ns_per_apply = 0;
	size_t map_reads = 0;
	size_t wmark_reads = 0;

	std::vector<Mapping> mappings(uint32_t pid) override
	{
		map_reads++;
		if (maps_err.count(pid))
			throw std::system_error(maps_err[pid],
						std::generic_category());
		return maps[pid];
	}

	ApplyResult apply(uint32_t pid, SchemeAction action, int node,
			  uint64_t start, uint64_t end) override
	{
		ApplyResult r;

		calls.push_back({pid, action, node, start, end});
		clock += ns_per_apply;
		uint64_t pages = (end - start) / 4096;
		auto it = fail_pages.find(pid);
		uint64_t bad = 0;
		if (it != fail_pages.end()) {
			bad = std::min(pages, it->second.second);
			r.failed[it->second.first] = bad;
		}
		r.sz_applied = (pages - bad) * 4096;
		return r;
	}

	// apply_paddr: each call's (ctx_id, start, end); @paddr_applied_permil
	// of every range applied
	std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> paddr_calls;
	uint64_t paddr_applied_permil = 1000;
	ApplyResult apply_paddr(uint32_t ctx_id, SchemeAction action,
				uint64_t start, uint64_t end) override
	{
		if (action != SchemeAction::lru_prio)
			return SchemeBackend::apply_paddr(ctx_id, action, start,
							  end);
		paddr_calls.emplace_back(ctx_id, start, end);
		clock += ns_per_apply;
		ApplyResult r;
		r.sz_applied = (end - start) / 4096 * paddr_applied_permil /
			       1000 * 4096;
		return r;
	}

	uint32_t free_mem_permil() override
	{
		wmark_reads++;
		return free_permil;
	}

	uint64_t now_ns() override { return clock; }
};

Region region(uint64_t start, uint64_t end, uint32_t nr, uint32_t age,
	      uint32_t target = 1)
{
	Region r;

	r.target_id = target;
	r.start = start;
	r.end = end;
	r.nr_accesses = nr;
	r.age = age;
	return r;
}

// One aggregation of one target (pid 100, id 1) at @t_s seconds.
Aggregation aggr(std::vector<Region> regions, uint64_t t_s = 0)
{
	Aggregation a;
	Target t;

	t.id = 1;
	t.pid = 100;
	a.targets.push_back(t);
	a.ctx_id = 1;
	a.aggr_us = 100000;
	a.time_ns = t_s * 1000000000;
	a.regions = std::move(regions);
	a.nr_regions = uint32_t(a.regions.size());
	return a;
}

// One anonymous mapping of pid 100 over [0x100000, 0x100000 + 64 MiB).
FakeBackend backend_with_mapping()
{
	FakeBackend b;

	b.maps[100] = {{0x100000, 0x100000 + 64 * MiB, true}};
	return b;
}

const uint64_t B = 0x100000; // base of the mapping

} // namespace

TEST(SchemeParse, DamoMigrateCold)
{
	auto v = load_schemes_file(data("damo-migrate-cold.json"));

	ASSERT_EQ(v.size(), 1u);
	const Scheme &s = v[0];
	EXPECT_EQ(s.name, "scheme0");
	EXPECT_EQ(s.action, SchemeAction::migrate_cold);
	EXPECT_EQ(s.node, 1);
	EXPECT_EQ(s.pattern.sz.min, 4096u);
	EXPECT_EQ(s.pattern.sz.max, UINT64_MAX);
	EXPECT_EQ(s.pattern.nr_accesses_unit, AccessUnit::percent);
	EXPECT_EQ(s.pattern.nr_accesses.min, 0u);
	EXPECT_EQ(s.pattern.nr_accesses.max, 0u);
	EXPECT_EQ(s.pattern.age_unit, AgeUnit::usec);
	EXPECT_EQ(s.pattern.age.min, 5000000u);
	EXPECT_EQ(s.pattern.age.max, UINT64_MAX);
	EXPECT_EQ(s.apply_interval_us, 2000000u);
	EXPECT_EQ(s.quota.ms, 100u);
	EXPECT_EQ(s.quota.sz, 64 * MiB);
	EXPECT_EQ(s.quota.reset_interval_ms, 1000u);
	EXPECT_EQ(s.quota.weight_sz, 0u);
	EXPECT_EQ(s.quota.weight_nr_accesses, 1u);
	EXPECT_EQ(s.quota.weight_age, 1u);
	EXPECT_EQ(s.wmarks.metric, WmarkMetric::free_mem_rate);
	EXPECT_EQ(s.wmarks.interval_us, 5000000u);
	EXPECT_EQ(s.wmarks.high, 500u);
	EXPECT_EQ(s.wmarks.mid, 400u);
	EXPECT_EQ(s.wmarks.low, 200u);
	ASSERT_EQ(s.filters.size(), 2u);
	EXPECT_EQ(s.filters[0].type, SchemeFilterType::anon);
	EXPECT_FALSE(s.filters[0].allow);
	EXPECT_TRUE(s.filters[0].matching);
	EXPECT_EQ(s.filters[1].type, SchemeFilterType::addr);
	EXPECT_TRUE(s.filters[1].allow);
	EXPECT_EQ(s.filters[1].start, 4096u);
	EXPECT_EQ(s.filters[1].end, 8192u);
}

TEST(SchemeParse, DamoThreeSchemes)
{
	auto v = load_schemes_file(data("damo-tiering.json"));

	ASSERT_EQ(v.size(), 3u);
	EXPECT_EQ(v[0].action, SchemeAction::migrate_hot);
	EXPECT_EQ(v[0].node, 0);
	// "18,446,744,073,709,551,615 %" is damo's max: 100 %
	EXPECT_EQ(v[0].pattern.nr_accesses.min, 5u);
	EXPECT_EQ(v[0].pattern.nr_accesses.max, 100u);
	EXPECT_EQ(v[0].pattern.age.min, 10000000u);
	EXPECT_EQ(v[0].quota.sz, 1024 * MiB);
	EXPECT_EQ(v[0].quota.weight_nr_accesses, 3u);
	EXPECT_EQ(v[0].quota.weight_age, 1u);
	EXPECT_EQ(v[1].action, SchemeAction::pageout);
	EXPECT_FALSE(v[1].node);
	EXPECT_EQ(v[1].pattern.nr_accesses.max, 0u);
	EXPECT_FALSE(v[1].quota.limited());
	EXPECT_EQ(v[2].action, SchemeAction::stat);
	EXPECT_EQ(v[2].name, "scheme2");
}

TEST(SchemeParse, OwnFormat)
{
	auto v = load_schemes_file(data("tiering.json"));

	ASSERT_EQ(v.size(), 2u);
	EXPECT_EQ(v[0].name, "promote");
	EXPECT_EQ(v[0].pattern.nr_accesses_unit, AccessUnit::percent);
	EXPECT_EQ(v[0].pattern.nr_accesses.min, 10u);
	EXPECT_EQ(v[0].pattern.nr_accesses.max, 100u);
	EXPECT_EQ(v[0].quota.sz, 256 * MiB);
	EXPECT_EQ(v[0].quota.ms, 20u);
	EXPECT_EQ(v[0].quota.reset_interval_ms, 1000u);
	EXPECT_EQ(v[0].quota.weight_nr_accesses, 3u);
	EXPECT_EQ(v[1].pattern.nr_accesses_unit, AccessUnit::count);
	EXPECT_EQ(v[1].pattern.age_unit, AgeUnit::aggrs);
	EXPECT_EQ(v[1].pattern.age.min, 5u);
	EXPECT_EQ(v[1].apply_interval_us, 2000000u);
	EXPECT_EQ(v[1].wmarks.low, 50u);
	ASSERT_EQ(v[1].filters.size(), 2u);
	EXPECT_EQ(v[1].filters[0].start, 0x10000u);
	EXPECT_EQ(v[1].filters[1].type, SchemeFilterType::anon);
	EXPECT_TRUE(v[1].filters[1].allow);
}

TEST(SchemeParse, DamoSchemeArray)
{
	auto v = parse_schemes(json::parse(
		R"([{"action": "willneed", "access_pattern": {"nr_accesses":
		    {"min": "3 samples", "max": "9 samples"}, "age":
		    {"min": "2 aggr_intervals", "max": "4 aggr_intervals"}}}])"));

	ASSERT_EQ(v.size(), 1u);
	EXPECT_EQ(v[0].pattern.nr_accesses_unit, AccessUnit::count);
	EXPECT_EQ(v[0].pattern.nr_accesses.min, 3u);
	EXPECT_EQ(v[0].pattern.nr_accesses.max, 9u);
	EXPECT_EQ(v[0].pattern.age_unit, AgeUnit::aggrs);
	EXPECT_EQ(v[0].pattern.age.max, 4u);
}

// damo's target filter names a target by its index in the context, from
// 0; damon-perf's target ids count from 1.
TEST(SchemeParse, DamoTargetFilterIndexIsZeroBased)
{
	auto v = parse_schemes(json::parse(
		R"([{"action": "stat", "filters": [{"filter_type": "target",
		    "matching": true, "allow": true, "damon_target_idx": 0},
		    {"filter_type": "target", "matching": true,
		     "allow": true, "damon_target_idx": 2}]}])"));

	ASSERT_EQ(v.at(0).filters.size(), 2u);
	EXPECT_EQ(v[0].filters[0].target_id, 1u);
	EXPECT_EQ(v[0].filters[1].target_id, 3u);
	// the engine: index 0 is the context's first target (id 1)
	FakeBackend b = backend_with_mapping();
	b.maps[200] = {{0x100000, 0x100000 + 64 * MiB, true}};
	auto d = parse_schemes(json::parse(
		R"([{"action": "pageout", "filters": [{"filter_type":
		    "target", "matching": true, "allow": true,
		    "damon_target_idx": 0}]}])"));
	SchemeEngine e(d, b);
	Aggregation a = aggr(
		{region(B, B + MiB, 0, 1, 1), region(B, B + MiB, 0, 1, 2)});
	Target t2;
	t2.id = 2;
	t2.pid = 200;
	a.targets.push_back(t2);
	e.apply(a);
	std::vector<Call> want = {{100, SchemeAction::pageout, -1, B, B + MiB}};
	EXPECT_EQ(b.calls, want);
}

TEST(SchemeParse, SizesAndTimes)
{
	EXPECT_EQ(parse_scheme_bytes("4096", "x"), 4096u);
	EXPECT_EQ(parse_scheme_bytes("4 KiB", "x"), 4096u);
	EXPECT_EQ(parse_scheme_bytes("4.000 KiB", "x"), 4096u);
	EXPECT_EQ(parse_scheme_bytes("1,024", "x"), 1024u);
	EXPECT_EQ(parse_scheme_bytes("1.5M", "x"), 3 * MiB / 2);
	EXPECT_EQ(parse_scheme_bytes("2 GiB", "x"), 2048 * MiB);
	EXPECT_EQ(parse_scheme_bytes("max", "x"), UINT64_MAX);
	EXPECT_EQ(parse_scheme_time_us("5 s", 1, "x"), 5000000u);
	EXPECT_EQ(parse_scheme_time_us("5s", 1, "x"), 5000000u);
	EXPECT_EQ(parse_scheme_time_us("100 ms", 1, "x"), 100000u);
	EXPECT_EQ(parse_scheme_time_us("1 m 3 s", 1, "x"), 63000000u);
	EXPECT_EQ(parse_scheme_time_us("250", 1000, "x"), 250000u);
	EXPECT_EQ(parse_scheme_time_us("0 ns", 1, "x"), 0u);
	EXPECT_THROW(parse_scheme_bytes("4 KQ", "x"), UsageError);
	EXPECT_THROW(parse_scheme_time_us("5 parsecs", 1, "x"), UsageError);
}

TEST(SchemeParse, BoundsAndBadInputOneClearError)
{
	const std::pair<const char *, const char *> cases[] = {
		{R"({"schemes": [{"action": "migrate_fast", "node": 1}]})",
		 "schemes: schemes[0].action: unknown action 'migrate_fast' "
		 "(expected one of: migrate_hot, migrate_cold, pageout, cold, "
		 "willneed, collapse, stat, lru_prio)"},
		{R"({"schemes": [{"action": "migrate_cold"}]})",
		 "schemes: schemes[0]: migrate_cold needs a node"},
		{R"({"schemes": [{"action": "migrate_hot", "node": 1024}]})",
		 "schemes: schemes[0].node: 1024 is above 1023"},
		{R"({"schemes": [{"action": "migrate_hot", "node": -1}]})",
		 "schemes: schemes[0].node: must not be negative"},
		{R"({"schemes": [{"action": "pageout", "node": 1}]})",
		 "schemes: schemes[0].node: is for migrate_hot and "
		 "migrate_cold"},
		{R"({"schemes": [{"action": "cold", "pattern":
		      {"size": {"min": "8K", "max": "4K"}}}]})",
		 "schemes: schemes[0].pattern.size: min is above max"},
		{R"({"schemes": [{"action": "cold", "pattern":
		      {"nr_accesses": {"min": "101%"}}}]})",
		 "schemes: schemes[0].pattern.nr_accesses.min: 101% is above "
		 "100 %"},
		{R"({"schemes": [{"action": "cold", "pattern":
		      {"nr_accesses": {"min": 1, "max": "50%"}}}]})",
		 "schemes: schemes[0].pattern.nr_accesses: min and max must "
		 "both be counts or both percentages"},
		{R"({"schemes": [{"action": "cold", "pattern":
		      {"age": {"min": 9, "max": 3}}}]})",
		 "schemes: schemes[0].pattern.age: min is above max"},
		{R"({"schemes": [{"action": "cold", "patern": {}}]})",
		 "schemes: schemes[0]: unknown key 'patern' (expected one of: "
		 "name, action, node, pattern, apply_interval_us, quota, "
		 "watermarks, filters)"},
		{R"({"schemes": [{"action": "cold", "quota": {"bytes": "1M"}}]})",
		 "schemes: schemes[0].quota: a byte or time quota needs a "
		 "reset interval"},
		{R"({"schemes": [{"action": "cold", "watermarks": {"metric":
		      "free_mem_rate", "high": 300, "mid": 400, "low": 100}}]})",
		 "schemes: schemes[0].watermarks: must be low <= mid <= high"},
		{R"({"schemes": [{"action": "cold", "watermarks":
		      {"metric": "psi"}}]})",
		 "schemes: schemes[0].watermarks.metric: unknown metric 'psi' "
		 "(expected none or free_mem_rate)"},
		{R"({"schemes": [{"action": "cold", "filters":
		      [{"type": "addr", "start": 8192, "end": 4096}]}]})",
		 "schemes: schemes[0].filters[0]: start must be below end"},
		{R"({"schemes": [{"action": "cold", "filters":
		      [{"type": "memcg"}]}]})",
		 "schemes: schemes[0].filters[0].type: unknown filter type "
		 "'memcg' (expected addr, anon or target)"},
		{R"({"schemes": [{"action": "cold", "name": "a"},
		      {"action": "stat", "name": "a"}]})",
		 "schemes: schemes[1].name: 'a' is the name of schemes[0] "
		 "too"},
		{R"({"schemes": []})", "schemes: schemes: no scheme given"},
		{R"({"rules": []})",
		 "schemes: file: expected {\"schemes\": [...]}, damo's "
		 "{\"kdamonds\": ...} or an array of damo schemes"},
		{R"([{"action": "migrate_hot", "access_pattern": {}}])",
		 "schemes: [0]: migrate_hot needs target_nid"},
		{R"([{"action": "stat", "quotas": {"goals": [{"metric":
		      "node_memcg_used_bp"}]}}])",
		 "schemes: [0].quotas.goals[0].metric: unknown metric "
		 "'node_memcg_used_bp' (expected one of: user_input, "
		 "some_mem_psi_us, node_mem_used_bp, node_mem_free_bp)"},
		{R"([{"action": "stat", "filters": [{"filter_type":
		      "memcg", "matching": true, "allow": false}]}])",
		 "schemes: [0].filters[0].filter_type: filter type 'memcg' is "
		 "not supported (addr, anon and target are)"},
	};

	for (const auto &[doc, msg] : cases)
		EXPECT_EQ(error_of(doc), msg) << doc;
}

TEST(SchemeParse, CheckCommandAndBadFile)
{
	test::FakeTransport t;

	auto ok = test::run_damonctl(
		{"schemes", "--check", "-c", data("tiering.json")}, t);
	EXPECT_EQ(ok.exit_code, EXIT_OK) << ok.err;
	EXPECT_EQ(ok.out, "promote: migrate_hot 0\ndemote: migrate_cold 1\n");
	EXPECT_TRUE(t.calls.empty());
	auto bad = test::run_damonctl(
		{"schemes", "-c", data("no-such-file.json")}, t);
	EXPECT_EQ(bad.exit_code, EXIT_USAGE);
	EXPECT_EQ(bad.err, "damonctl: cannot read schemes file '" +
				   data("no-such-file.json") + "'\n");
}

TEST(SchemeEngine, MatchesCountsPercentsAndAges)
{
	Scheme s = one(R"({"action": "stat", "pattern": {"nr_accesses":
			  {"min": "50%", "max": "100%"}, "age": {"min": 2}}})");

	// max nr_accesses of the aggregation 20: 50 % is 10
	EXPECT_TRUE(
		SchemeEngine::matches(s, region(0, 4096, 10, 2), 20, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(s, region(0, 4096, 9, 2), 20, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(s, region(0, 4096, 10, 1), 20, 100000));
	Scheme u = one(R"({"action": "stat", "pattern":
			  {"age": {"min": "1 s", "max": "2 s"}}})");
	// 100 ms aggregations: 1 s .. 2 s is 10 .. 20 aggregations
	EXPECT_FALSE(
		SchemeEngine::matches(u, region(0, 4096, 0, 9), 1, 100000));
	EXPECT_TRUE(
		SchemeEngine::matches(u, region(0, 4096, 0, 10), 1, 100000));
	EXPECT_TRUE(
		SchemeEngine::matches(u, region(0, 4096, 0, 20), 1, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(u, region(0, 4096, 0, 21), 1, 100000));
	Scheme c = one(R"({"action": "stat", "pattern": {"size":
			  {"min": "8K"}, "nr_accesses": {"min": 0, "max": 0}}})");
	EXPECT_TRUE(SchemeEngine::matches(c, region(0, 8192, 0, 0), 5, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(c, region(0, 4096, 0, 0), 5, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(c, region(0, 8192, 1, 0), 5, 100000));
}

TEST(SchemeEngine, AppliesToMappedPiecesOnly)
{
	FakeBackend b;
	b.maps[100] = {{0x1000, 0x3000, true}, {0x5000, 0x8000, false}};
	SchemeEngine e({one(R"({"action": "pageout"})")}, b);

	// one region over both mappings and the gap between them
	e.apply(aggr({region(0x0, 0x9000, 0, 0)}));
	std::vector<Call> want = {
		{100, SchemeAction::pageout, -1, 0x1000, 0x3000},
		{100, SchemeAction::pageout, -1, 0x5000, 0x8000},
	};
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).nr_tried, 2u);
	EXPECT_EQ(e.stats(0).sz_tried, 0x5000u);
	EXPECT_EQ(e.stats(0).nr_applied, 2u);
	EXPECT_EQ(e.stats(0).sz_applied, 0x5000u);
}

TEST(SchemeEngine, FiltersFirstMatchDecides)
{
	FakeBackend b;
	b.maps[100] = {{0x1000, 0x5000, true}, {0x5000, 0x9000, false}};
	// reject the address range, then allow anonymous memory: file-backed
	// memory matches no filter and is skipped (the last filter allows)
	SchemeEngine e({one(R"({"action": "cold", "filters": [
		{"type": "addr", "start": "0x2000", "end": "0x3000"},
		{"type": "anon", "allow": true}]})")},
		       b);

	e.apply(aggr({region(0x0, 0xa000, 0, 0)}));
	std::vector<Call> want = {
		{100, SchemeAction::cold, -1, 0x1000, 0x2000},
		{100, SchemeAction::cold, -1, 0x3000, 0x5000},
	};
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).sz_applied, 0x3000u);

	// only reject filters (DAMOS 6.12): what matches none is applied
	FakeBackend b2 = b;
	b2.calls.clear();
	SchemeEngine e2({one(R"({"action": "cold", "filters": [
		{"type": "anon", "matching": false}]})")},
			b2);
	e2.apply(aggr({region(0x0, 0xa000, 0, 0)}));
	std::vector<Call> want2 = {
		{100, SchemeAction::cold, -1, 0x1000, 0x5000},
	};
	EXPECT_EQ(b2.calls, want2);
}

TEST(SchemeEngine, QuotaTakesTheColdestFirstAndCountsExceeds)
{
	FakeBackend b = backend_with_mapping();
	// 2 MiB a second; four idle 1 MiB regions, the oldest coldest
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"pattern": {"nr_accesses": {"max": 0}},
		"quota": {"bytes": "2M", "reset_interval_ms": 1000,
		"weights": {"nr_accesses": 1, "age": 1}}})")},
		       b);
	std::vector<Region> rs = {
		region(B, B + MiB, 0, 20),                // 2 s old
		region(B + MiB, B + 2 * MiB, 0, 400),     // 40 s
		region(B + 2 * MiB, B + 3 * MiB, 0, 10),  // 1 s
		region(B + 3 * MiB, B + 4 * MiB, 0, 100), // 10 s
		region(B + 4 * MiB, B + 5 * MiB, 7, 100), // accessed
	};

	e.apply(aggr(rs, 0));
	std::vector<Call> want = {
		{100, SchemeAction::migrate_cold, 1, B + MiB, B + 2 * MiB},
		{100, SchemeAction::migrate_cold, 1, B + 3 * MiB, B + 4 * MiB},
	};
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).sz_tried, 2 * MiB);
	EXPECT_EQ(e.stats(0).sz_applied, 2 * MiB);
	EXPECT_EQ(e.quota_left(0), 0u);
	EXPECT_GT(SchemeEngine::score(e.scheme(0), rs[1], 7, 100000),
		  SchemeEngine::score(e.scheme(0), rs[3], 7, 100000));

	// the same window: nothing more
	b.calls.clear();
	e.apply(aggr(rs, 0));
	EXPECT_TRUE(b.calls.empty());
	EXPECT_EQ(e.stats(0).qt_exceeds, 0u);
	// a new window: the full quota before counted as one exceed
	e.apply(aggr(rs, 1));
	EXPECT_EQ(e.stats(0).qt_exceeds, 1u);
	EXPECT_EQ(b.calls.size(), 2u);
	EXPECT_EQ(e.stats(0).sz_applied, 4 * MiB);
	EXPECT_EQ(e.stats(0).nr_aggregations, 3u);
}

TEST(SchemeEngine, QuotaCutsTheLastRegion)
{
	FakeBackend b = backend_with_mapping();
	SchemeEngine e({one(R"({"action": "pageout", "quota":
		{"bytes": "1536K", "reset_interval_ms": 1000}})")},
		       b);

	e.apply(aggr({region(B, B + MiB, 0, 5),
		      region(B + MiB, B + 2 * MiB, 0, 5)}));
	std::vector<Call> want = {
		{100, SchemeAction::pageout, -1, B, B + MiB},
		{100, SchemeAction::pageout, -1, B + MiB, B + MiB + 512 * KiB},
	};
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).sz_tried, 1536 * KiB);
}

TEST(SchemeEngine, TimeQuotaFromMeasuredThroughput)
{
	FakeBackend b = backend_with_mapping();
	// each apply takes 1 ms of the fake clock
	b.ns_per_apply = 1000000;
	SchemeEngine e({one(R"({"action": "cold", "quota":
		{"ms": 2, "reset_interval_ms": 1000}})")},
		       b);
	std::vector<Region> rs;
	for (uint64_t i = 0; i < 16; i++)
		rs.push_back(region(B + i * MiB, B + (i + 1) * MiB, 0, 1));

	// first window: DAMOS's initial 4 MiB per ms, 8 MiB
	e.apply(aggr(rs, 0));
	EXPECT_EQ(e.stats(0).sz_tried, 8 * MiB);
	// measured 1 MiB per ms: 2 MiB a window from now on
	e.apply(aggr(rs, 1));
	EXPECT_EQ(e.stats(0).sz_tried, 10 * MiB);
	EXPECT_EQ(e.stats(0).qt_exceeds, 1u);
}

TEST(SchemeEngine, WatermarksSwitchTheSchemeOffAndOn)
{
	FakeBackend b = backend_with_mapping();
	SchemeEngine e({one(R"({"action": "pageout", "watermarks":
		{"metric": "free_mem_rate", "interval_us": "1 s",
		 "high": 500, "mid": 400, "low": 100}})")},
		       b);
	std::vector<Region> rs = {region(B, B + MiB, 0, 1)};

	b.free_permil = 900; // above high: off
	e.apply(aggr(rs, 0));
	EXPECT_FALSE(e.active(0));
	b.free_permil = 450; // between mid and high: stays off
	e.apply(aggr(rs, 1));
	EXPECT_FALSE(e.active(0));
	EXPECT_TRUE(b.calls.empty());
	EXPECT_EQ(b.map_reads, 0u); // an inactive scheme costs nothing
	b.free_permil = 300;        // below mid: on
	e.apply(aggr(rs, 2));
	EXPECT_TRUE(e.active(0));
	b.free_permil = 450; // back between mid and high: stays on
	e.apply(aggr(rs, 3));
	EXPECT_TRUE(e.active(0));
	b.free_permil = 50; // below low: off
	e.apply(aggr(rs, 4));
	EXPECT_FALSE(e.active(0));
	EXPECT_EQ(b.calls.size(), 2u);
	EXPECT_EQ(e.stats(0).nr_inactive, 3u);
	EXPECT_EQ(e.stats(0).nr_aggregations, 2u);
	// checked at most once an interval
	size_t reads = b.wmark_reads;
	e.apply(aggr(rs, 4));
	EXPECT_EQ(b.wmark_reads, reads);
}

TEST(SchemeEngine, ApplyInterval)
{
	FakeBackend b = backend_with_mapping();
	SchemeEngine e({one(R"({"action": "willneed",
		"apply_interval_us": "2 s"})")},
		       b);

	for (uint64_t t = 0; t < 6; t++)
		e.apply(aggr({region(B, B + MiB, 3, 1)}, t));
	EXPECT_EQ(b.calls.size(), 3u); // at 0, 2 and 4 s
	EXPECT_EQ(e.stats(0).nr_aggregations, 3u);
}

TEST(SchemeEngine, ActsOnlyOnAggregationsThatMetTheSampleFloor)
{
	FakeBackend b = backend_with_mapping();
	// demote what looks cold: a carried or low aggregation whose regions
	// say "nothing is hot" must not demote the hot range
	SchemeEngine e({one(R"({"action": "pageout",
		"pattern": {"nr_accesses": {"max": 0}}})")},
		       b);
	auto with = [](Aggregation a, std::optional<Confidence> c) {
		a.nr_samples = c == Confidence::met ? 500 : 3;
		a.floor = 40;
		a.confidence = c;
		a.carried = c == Confidence::carried ? 1 : 0;
		return a;
	};
	std::vector<Region> idle = {region(B, B + MiB, 0, 5)};

	e.apply(with(aggr(idle, 0), Confidence::carried));
	e.apply(with(aggr(idle, 1), Confidence::low));
	EXPECT_TRUE(b.calls.empty());
	EXPECT_EQ(e.stats(0).nr_below_floor, 2u);
	EXPECT_EQ(e.stats(0).nr_aggregations, 0u);
	EXPECT_EQ(to_json(e.scheme(0), e.stats(0))["nr_below_floor"], 2);

	// met, and a module that sends no verdict: acted on
	e.apply(with(aggr(idle, 2), Confidence::met));
	e.apply(aggr(idle, 3));
	EXPECT_EQ(b.calls.size(), 2u);
	EXPECT_EQ(e.stats(0).nr_aggregations, 2u);
	EXPECT_EQ(e.stats(0).nr_below_floor, 2u);
}

TEST(SchemeEngine, StatAppliesNothingAndFailuresAreCountedByErrno)
{
	FakeBackend b = backend_with_mapping();
	b.maps[200] = {{0x100000, 0x200000, true}};
	b.maps_err[300] = ESRCH; // exited
	b.fail_pages[200] = {EPERM, 1000};
	SchemeEngine e({one(R"({"action": "stat"})"),
			one(R"({"action": "migrate_hot", "node": 0,
			     "name": "up"})")},
		       b);
	Aggregation a = aggr({region(B, B + MiB, 5, 1, 1),
			      region(0x100000, 0x200000, 5, 1, 2),
			      region(0x100000, 0x200000, 5, 1, 3)});
	Target t2, t3;
	t2.id = 2;
	t2.pid = 200;
	t3.id = 3;
	t3.pid = 300;
	a.targets.push_back(t2);
	a.targets.push_back(t3);

	e.apply(a);
	// stat: tried everything it could map, applied nothing
	EXPECT_EQ(e.stats(0).nr_tried, 3u);
	EXPECT_EQ(e.stats(0).sz_tried, 3 * MiB);
	EXPECT_EQ(e.stats(0).nr_applied, 0u);
	EXPECT_EQ(e.stats(0).sz_applied, 0u);
	// the migration: pid 100 fine, pid 200 EPERM on every page, pid 300
	// gone; the other targets unaffected
	const SchemeStats &st = e.stats(1);
	EXPECT_EQ(st.nr_tried, 3u);
	EXPECT_EQ(st.sz_tried, 3 * MiB);
	EXPECT_EQ(st.nr_applied, 1u);
	EXPECT_EQ(st.sz_applied, MiB);
	std::map<int, uint64_t> failed = {{EPERM, 256}, {ESRCH, 256}};
	EXPECT_EQ(st.failed, failed);
	// tried = applied + failed
	uint64_t failed_sz = 0;
	for (const auto &[err, pages] : st.failed)
		failed_sz += pages * 4096;
	EXPECT_EQ(st.sz_tried, st.sz_applied + failed_sz);
	// the mappings of each pid read once for both schemes
	EXPECT_EQ(b.map_reads, 3u);
	auto j = to_json(e.scheme(1), st);
	EXPECT_EQ(j["failed_pages"]["EPERM"], 256);
	EXPECT_EQ(j["node"], 0);
}

TEST(SchemeEngine, PhysicalRegionsOnlyStat)
{
	FakeBackend b;
	SchemeEngine e({one(R"({"action": "pageout"})")}, b);
	Aggregation a = aggr({region(0x100000, 0x200000, 0, 1)});
	a.targets[0].pid.reset();

	e.apply(a);
	EXPECT_TRUE(b.calls.empty());
	EXPECT_EQ(e.stats(0).failed.at(EOPNOTSUPP), 256u);
}

// The real backend on this process: an untouched page of a mapping (no
// page table entry: move_pages says -EFAULT) is absent, not a failure,
// and a page already on the node is not moved.
TEST(SchemeBackend, UntouchedPagesAreAbsentNotFailed)
{
	auto b = make_system_backend();
	const size_t len = size_t{4} * 4096;
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	static_cast<volatile char *>(p)[0] = 1; // one page present
	auto a = uint64_t(reinterpret_cast<uintptr_t>(p));
	auto pid = uint32_t(getpid());
	bool mapped = false;
	for (const auto &m : b->mappings(pid))
		mapped = mapped || (m.start <= a && a + len <= m.end && m.anon);
	EXPECT_TRUE(mapped);
	int node = -1;
	if (syscall(SYS_getcpu, nullptr, &node, nullptr) || node < 0)
		node = 0;

	auto r = b->apply(pid, SchemeAction::migrate_hot, node, a, a + len);
	munmap(p, len);
	if (r.failed.count(ENOSYS))
		GTEST_SKIP() << "no move_pages(2) here";
	EXPECT_EQ(r.sz_applied, 0u);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{}));
}

TEST(SchemeParse, LruPrioInBothFormats)
{
	EXPECT_EQ(one(R"({"action": "lru_prio"})").action,
		  SchemeAction::lru_prio);
	EXPECT_EQ(to_string(SchemeAction::lru_prio), "lru_prio");
	// damo's JSON names it as DAMOS does: damo's own file, its action
	// changed
	std::ifstream in(data("damo-migrate-cold.json"));
	json j = json::parse(in);
	json &ds = j["kdamonds"][0]["contexts"][0]["schemes"][0];
	ds["action"] = "lru_prio";
	ds.erase("target_nid");
	auto v = parse_schemes(j);
	ASSERT_EQ(v.size(), 1u);
	EXPECT_EQ(v[0].action, SchemeAction::lru_prio);
	// it ranks hot regions first under a quota, as DAMOS's
	// damon_hot_score() for DAMOS_LRU_PRIO
	EXPECT_TRUE(action_prefers_hot(SchemeAction::lru_prio));
	EXPECT_NE(error_of(R"({"schemes": [{"action": "lru_deprio"}]})")
			  .find("lru_prio"),
		  std::string::npos);
}

// A paddr context's hot regions go to the module, by context id; the
// stats count the bytes it found in LRU folios.
TEST(SchemeEngine, LruPrioOfPhysicalRegions)
{
	FakeBackend b;
	b.paddr_applied_permil = 500;
	SchemeEngine e({one(R"({"action": "lru_prio",
			    "pattern": {"nr_accesses": {"min": 1}}})")},
		       b);
	Aggregation a = aggr({region(0x100000, 0x200000, 0, 1),
			      region(0x200000, 0x400000, 7, 1),
			      region(0x400000, 0x500000, 3, 1)});
	a.targets[0].pid.reset();
	a.ctx_id = 7;

	e.apply(a);
	EXPECT_TRUE(b.calls.empty());
	ASSERT_EQ(b.paddr_calls.size(), 2u);
	EXPECT_EQ(b.paddr_calls[0],
		  std::make_tuple(7u, 0x200000ull, 0x400000ull));
	EXPECT_EQ(b.paddr_calls[1],
		  std::make_tuple(7u, 0x400000ull, 0x500000ull));
	const SchemeStats &st = e.stats(0);
	EXPECT_EQ(st.nr_tried, 2u);
	EXPECT_EQ(st.sz_tried, 3 * MiB);
	EXPECT_EQ(st.nr_applied, 2u);
	EXPECT_EQ(st.sz_applied, 3 * MiB / 2);
	EXPECT_TRUE(st.failed.empty());
}

// A process's memory: DAMOS has no vaddr lru_prio, nothing is called.
TEST(SchemeEngine, LruPrioOfAProcessFailsWithEopnotsupp)
{
	FakeBackend b = backend_with_mapping();
	SchemeEngine e({one(R"({"action": "lru_prio"})")}, b);

	e.apply(aggr({region(B, B + MiB, 5, 1)}));
	EXPECT_TRUE(b.calls.empty());
	EXPECT_TRUE(b.paddr_calls.empty());
	EXPECT_EQ(e.stats(0).failed.at(EOPNOTSUPP), 256u);
	EXPECT_EQ(e.stats(0).sz_applied, 0u);
}

// Over the transport: a range longer than one request's bound is split
// into requests of at most DAMON_PERF_LRU_PAGES_MAX pages (an unaligned
// start counts its first page), applied bytes are capped at the range.
TEST(SchemeBackend, LruPrioSplitsIntoBoundedRequests)
{
	damonctl::test::FakeTransport t;
	const uint64_t page = 4096;
	const uint64_t max = uint64_t(DAMON_PERF_LRU_PAGES_MAX) * page;
	const uint64_t start = 0x100000000ull + 100;
	const uint64_t end = start + 2 * max + 5 * page;

	t.lru_applied_permil = 1000;
	auto r = lru_prio_paddr(t, 3, start, end, page);
	ASSERT_EQ(t.lru.size(), 3u);
	EXPECT_EQ(t.calls[0], "lru_prio #3");
	uint64_t a = start;
	for (const auto &[s, e] : t.lru) {
		EXPECT_EQ(s, a);
		EXPECT_GT(e, s);
		EXPECT_LE((e + page - 1) / page - s / page,
			  uint64_t(DAMON_PERF_LRU_PAGES_MAX));
		a = e;
	}
	EXPECT_EQ(a, end);
	EXPECT_EQ(r.sz_applied, end - start);
	EXPECT_TRUE(r.failed.empty());

	// half the pages in LRU folios
	damonctl::test::FakeTransport half;
	half.lru_applied_permil = 500;
	r = lru_prio_paddr(half, 3, 0x100000000ull, 0x100000000ull + max, page);
	EXPECT_EQ(r.sz_applied, max / 2);
	EXPECT_TRUE(r.failed.empty());
}

// A refused request (no CAP_SYS_ADMIN, the context gone, the module
// gone) counts the pages left under its errno and sends no more.
TEST(SchemeBackend, LruPrioRefusalsCountedByErrno)
{
	const uint64_t page = 4096;
	const uint64_t max = uint64_t(DAMON_PERF_LRU_PAGES_MAX) * page;

	damonctl::test::FakeTransport t;
	t.fail("lru_prio", EPERM, "lru_prio needs CAP_SYS_ADMIN", 2);
	auto r = lru_prio_paddr(t, 1, 0, 3 * max, page);
	EXPECT_EQ(t.lru.size(), 1u);
	EXPECT_EQ(r.sz_applied, max);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EPERM, 2 * max / 4096}}));

	damonctl::test::FakeTransport gone;
	gone.module_loaded = false;
	r = lru_prio_paddr(gone, 1, 0, 16 * page, page);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{ENOENT, 16}}));

	// the system backend without a transport: EOPNOTSUPP, as before
	TargetProcs procs;
	auto sys = make_system_backend(procs);
	r = sys->apply_paddr(1, SchemeAction::lru_prio, 0, 16 * page);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EOPNOTSUPP, 16}}));
	// and with one, over it
	damonctl::test::FakeTransport over;
	auto sys2 = make_system_backend(procs, &over);
	r = sys2->apply_paddr(1, SchemeAction::lru_prio, 0, 16 * page);
	EXPECT_EQ(over.count("lru_prio"), 1u);
	EXPECT_TRUE(r.failed.empty());
	// other actions on physical memory: EOPNOTSUPP
	r = sys2->apply_paddr(1, SchemeAction::pageout, 0, 16 * page);
	EXPECT_EQ(r.failed, (std::map<int, uint64_t>{{EOPNOTSUPP, 16}}));
	EXPECT_EQ(over.count("lru_prio"), 1u);
}

TEST(SchemeBackend, CollapseRangeIsTheWholeBlocksInside)
{
	const uint64_t m = uint64_t{2} << 20;
	using R = std::optional<std::pair<uint64_t, uint64_t>>;

	EXPECT_EQ(collapse_range(0, 4 * m, m), R(std::make_pair(0, 4 * m)));
	EXPECT_EQ(collapse_range(m - 4096, 3 * m + 4096, m),
		  R(std::make_pair(m, 3 * m)));
	// inside one block, touching its end, or straddling a boundary
	// without a whole block: nothing
	EXPECT_EQ(collapse_range(m + 65536, m + 704512, m), std::nullopt);
	EXPECT_EQ(collapse_range(m + 4096, 2 * m, m), std::nullopt);
	EXPECT_EQ(collapse_range(m + 4096, 2 * m + 4096, m), std::nullopt);
	EXPECT_EQ(collapse_range(5 * m, 5 * m, m), std::nullopt);
	// at the top of the address space the round-up would wrap
	EXPECT_EQ(collapse_range(~uint64_t{0} - 4095, ~uint64_t{0}, m),
		  std::nullopt);
}

// The real backend on this process: a piece smaller than a huge page,
// which MADV_COLLAPSE itself refuses with EINVAL, is tried and skipped,
// not failed; a piece around an aligned block asks for that block only.
TEST(SchemeBackend, CollapseOfAPieceWithoutAHugePageIsNoFailure)
{
	auto b = make_system_backend();
	const uint64_t m = uint64_t{2} << 20;
	const size_t len = size_t(4 * m);
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	auto raw = uint64_t(reinterpret_cast<uintptr_t>(p));
	const uint64_t a = (raw + m - 1) & ~(m - 1); // an aligned block
	auto *bytes = static_cast<volatile char *>(p);
	for (uint64_t x = a - raw; x < a - raw + 2 * m; x += 4096)
		bytes[x] = 1;
	auto pid = uint32_t(getpid());

	auto small = b->apply(pid, SchemeAction::collapse, -1, a + 65536,
			      a + 704512);
	auto whole = b->apply(pid, SchemeAction::collapse, -1, a - 4096,
			      a + m + 4096);
	munmap(p, len);
	EXPECT_EQ(small.sz_applied, 0u);
	EXPECT_EQ(small.failed, (std::map<int, uint64_t>{}));
	if (whole.failed.count(ENOSYS) || whole.failed.count(EINVAL))
		GTEST_SKIP() << "no MADV_COLLAPSE here";
	// the block alone: collapsed, or failed as a whole (EAGAIN, ENOMEM)
	uint64_t failed = 0;
	for (const auto &[err, pages] : whole.failed)
		failed += pages * 4096;
	EXPECT_EQ(whole.sz_applied + failed, m);
}

// A percentage is of the highest nr_accesses the context can reach
// (aggr_us / sample_us, as DAMOS takes it), not of the aggregation's
// observed highest: a slow workload keeps that at 1 to 4, where "20%"
// floored to 0 matched every region and the old cold ones won on age.
TEST(SchemeEngine, PercentIsOfTheContextsMaximum)
{
	FakeBackend b = backend_with_mapping();
	SchemeEngine e({one(R"({"action": "migrate_hot", "node": 0,
		"pattern": {"nr_accesses": {"min": "20%"},
			    "age": {"min": 2}}})")},
		       b);
	// 500 ms aggregations of 25 ms samples: at most 20, 20 % is 4
	Aggregation a = aggr({region(B, B + 48 * MiB, 0, 50),
			      region(B + 48 * MiB, B + 56 * MiB, 4, 3),
			      region(B + 56 * MiB, B + 64 * MiB, 3, 3)});
	a.aggr_us = 500000;
	a.sample_us = 25000;

	e.apply(a);
	std::vector<Call> want = {{100, SchemeAction::migrate_hot, 0,
				   B + 48 * MiB, B + 56 * MiB}};
	EXPECT_EQ(b.calls, want);
}

// A threshold never rounds down to 0 when its percentage is not 0: 20 %
// of a maximum of 1 to 4 is 1, not 0 (which would match idle regions).
TEST(SchemeEngine, PercentNeverRoundsDownToZero)
{
	Scheme s = one(R"({"action": "stat", "pattern": {"nr_accesses":
			  {"min": "20%"}}})");

	for (uint32_t max = 1; max <= 4; max++) {
		EXPECT_FALSE(SchemeEngine::matches(s, region(0, 4096, 0, 0),
						   max, 100000))
			<< "max " << max;
		EXPECT_TRUE(SchemeEngine::matches(s, region(0, 4096, 1, 0), max,
						  100000))
			<< "max " << max;
	}
	// 0 % stays 0, 100 % is the maximum
	Scheme z = one(R"({"action": "stat", "pattern": {"nr_accesses":
			  {"min": "0%", "max": "100%"}}})");
	EXPECT_TRUE(SchemeEngine::matches(z, region(0, 4096, 0, 0), 3, 100000));
	EXPECT_TRUE(SchemeEngine::matches(z, region(0, 4096, 3, 0), 3, 100000));
	EXPECT_FALSE(
		SchemeEngine::matches(z, region(0, 4096, 4, 0), 3, 100000));
}

// The maximum: aggr_us / sample_us (presence mode never goes above it);
// count mode can, and then its highest count is the maximum; without the
// sample interval, the aggregation's highest.
TEST(SchemeEngine, MaxNrAccessesOfTheContext)
{
	Aggregation a = aggr({region(B, B + MiB, 3, 1)});
	a.aggr_us = 100000;
	EXPECT_EQ(SchemeEngine::max_nr_accesses(a), 3u);
	a.sample_us = 5000;
	EXPECT_EQ(SchemeEngine::max_nr_accesses(a), 20u);
	a.regions.push_back(region(B + MiB, B + 2 * MiB, 70, 1));
	EXPECT_EQ(SchemeEngine::max_nr_accesses(a), 70u);
	// a sample interval above the aggregation's (from a file): 1
	a.regions.clear();
	a.sample_us = 200000;
	EXPECT_EQ(SchemeEngine::max_nr_accesses(a), 1u);
	a.sample_us = 0;
	EXPECT_EQ(SchemeEngine::max_nr_accesses(a), 1u);
}

// Each context has its own apply interval, quota window and resume
// point, as each DAMON context has its own schemes: a second context is
// not starved by the first's interval, nor charged with its quota, and
// its target 1 is not the first context's target 1.
TEST(SchemeEngine, StatePerSchemeAndContext)
{
	FakeBackend b = backend_with_mapping();
	b.maps[200] = {{0x100000, 0x100000 + 64 * MiB, true}};
	SchemeEngine e({one(R"({"action": "willneed",
		"apply_interval_us": "2 s",
		"quota": {"bytes": "1M", "reset_interval_ms": "2 s"}})")},
		       b);
	auto ctx2 = [](uint64_t t_s) {
		Aggregation a = aggr({region(B, B + 4 * MiB, 3, 1)}, t_s);
		a.ctx_id = 2;
		a.ctx_name = "two";
		a.targets[0].pid = 200;
		return a;
	};

	for (uint64_t t = 0; t < 4; t++) {
		Aggregation a1 = aggr({region(B, B + 4 * MiB, 3, 1)}, t);
		a1.ctx_name = "one";
		e.apply(a1);
		e.apply(ctx2(t));
	}
	// each context at 0 and 2 s, 1 MiB a window each, each resuming
	// where its own quota ran out
	std::vector<Call> want = {
		{100, SchemeAction::willneed, -1, B, B + MiB},
		{200, SchemeAction::willneed, -1, B, B + MiB},
		{100, SchemeAction::willneed, -1, B + MiB, B + 2 * MiB},
		{200, SchemeAction::willneed, -1, B + MiB, B + 2 * MiB},
	};
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).nr_aggregations, 4u);
	EXPECT_EQ(e.stats(0).sz_tried, 4 * MiB);
}

TEST(SchemeEngine, QuotaResumePointPerContext)
{
	FakeBackend b = backend_with_mapping();
	b.maps[200] = {{0x100000, 0x100000 + 64 * MiB, true}};
	SchemeEngine e({one(R"({"action": "willneed",
		"quota": {"bytes": "1M", "reset_interval_ms": "1 s"}})")},
		       b);

	for (uint64_t t = 0; t < 3; t++) {
		Aggregation a1 = aggr({region(B, B + 4 * MiB, 3, 1)}, t);
		a1.ctx_name = "one";
		Aggregation a2 = aggr({region(B, B + 4 * MiB, 3, 1)}, t);
		a2.ctx_id = 2;
		a2.ctx_name = "two";
		a2.targets[0].pid = 200;
		e.apply(a1);
		e.apply(a2);
	}
	// each context walks its own region: 0-1, 1-2, 2-3 MiB
	std::vector<Call> want;
	for (uint64_t w = 0; w < 3; w++)
		for (uint32_t pid : {100u, 200u})
			want.push_back({pid, SchemeAction::willneed, -1,
					B + w * MiB, B + (w + 1) * MiB});
	EXPECT_EQ(b.calls, want);
	EXPECT_EQ(e.stats(0).qt_exceeds, 4u);
}
