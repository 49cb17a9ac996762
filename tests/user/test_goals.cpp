// SPDX-License-Identifier: GPL-2.0
// DAMOS quota goals: the feedback loop's arithmetic against values worked
// out by hand from mm/damon/core.c (damon_feed_loop_next_input(),
// damos_quota_score(), damos_set_effective_quota()), the metrics as the
// engine reads them through a fake backend, the parser on both formats
// and every bad input with its message.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "scheme.hpp"
#include "scheme_file.hpp"
#include "scheme_engine.hpp"

using namespace damonctl;
using nlohmann::json;

namespace {

const uint64_t KiB = 1024;
const uint64_t MiB = 1024 * KiB;
const uint64_t B = 0x100000; // base of the fake mapping

std::string data(const std::string &name)
{
	return std::string(DAMONCTL_TEST_DATA) + "/schemes/" + name;
}

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

// One anonymous 64 MiB mapping of pid 100; nodes and PSI as a test sets
// them; every applied range recorded.
class GoalBackend : public SchemeBackend {
public:
	std::map<int, NodeMem> nodes;
	std::optional<uint64_t> psi_us;
	std::vector<std::pair<uint64_t, uint64_t>> applied;
	size_t node_reads = 0;

	std::vector<Mapping> mappings(uint32_t pid) override
	{
		if (pid != 100)
			return {};
		return {{B, B + 64 * MiB, true}};
	}

	ApplyResult apply(uint32_t, SchemeAction, int, uint64_t start,
			  uint64_t end) override
	{
		ApplyResult r;

		applied.emplace_back(start, end);
		r.sz_applied = end - start;
		return r;
	}

	uint32_t free_mem_permil() override { return 500; }
	uint64_t now_ns() override { return 0; }

	std::optional<NodeMem> node_mem(int nid) override
	{
		node_reads++;
		auto it = nodes.find(nid);
		if (it == nodes.end())
			return std::nullopt;
		return it->second;
	}

	std::optional<uint64_t> some_mem_psi_total_us() override
	{
		return psi_us;
	}

	uint64_t applied_bytes() const
	{
		uint64_t n = 0;

		for (const auto &[s, e] : applied)
			n += e - s;
		return n;
	}
};

// One aggregation: one idle region over the whole mapping, at @t_s
// seconds.
Aggregation aggr(uint64_t t_s)
{
	Aggregation a;
	Target t;
	Region r;

	t.id = 1;
	t.pid = 100;
	a.targets.push_back(t);
	a.ctx_id = 1;
	a.aggr_us = 100000;
	a.time_ns = t_s * 1000000000;
	r.target_id = 1;
	r.start = B;
	r.end = B + 64 * MiB;
	r.nr_accesses = 0;
	r.age = 10;
	a.regions.push_back(r);
	a.nr_regions = 1;
	return a;
}

} // namespace

// damon_feed_loop_next_input(), value by value:
// next = max(last * ((goal - score) / goal + 1), 10000), goal 10000.
TEST(QuotaGoalTuner, FeedLoopNextInput)
{
	// on target: unchanged
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(10000, 10000), 10000u);
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(777777, 10000), 777777u);
	// nothing achieved: doubled
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(10000, 0), 20000u);
	// half: +50 %
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(20000, 5000), 30000u);
	// 12345 * 3000 / 10000 = 3703 (3703.5 truncated)
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(12345, 7000), 16048u);
	// 150 %: -50 %
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(30000, 15000), 15000u);
	// over-achieving by 99.99 %: 100, raised to the minimum
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(1000000, 19999), 10000u);
	// twice the goal or more: the minimum at once
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(1000000, 20000), 10000u);
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(1000000, UINT64_MAX),
		  10000u);
	// 200000 - 200000 * 714 / 10000 = 200000 - 14280
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(200000, 10714), 185720u);
	// no overflow: the compensation computed the other way round, the
	// sum saturated
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(UINT64_MAX - 5, 0),
		  UINT64_MAX);
	EXPECT_EQ(SchemeEngine::feed_loop_next_input(UINT64_MAX / 2, 5000),
		  UINT64_MAX / 2 + UINT64_MAX / 2 / 10000 * 5000);
}

TEST(QuotaGoalTuner, Score)
{
	EXPECT_EQ(SchemeEngine::goal_score(7000, 7000), 10000u);
	// 8000 * 10000 / 7000 = 11428.57
	EXPECT_EQ(SchemeEngine::goal_score(8000, 7000), 11428u);
	EXPECT_EQ(SchemeEngine::goal_score(1000, 3000), 3333u);
	EXPECT_EQ(SchemeEngine::goal_score(0, 3000), 0u);
	EXPECT_EQ(SchemeEngine::goal_score(UINT64_MAX, 1), UINT64_MAX);
}

// Under a quota, each window starts where the last one's quota ran out
// (DAMOS's charge_addr_from), so an action that leaves a region matching
// (the module's age is not reset) does not spend every window on the
// same first bytes; after the last region it wraps around.
TEST(SchemeQuota, NextWindowStartsWhereTheLastStopped)
{
	GoalBackend b;
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"bytes": "1536K", "reset_interval_ms": 1000}})")},
		       b);
	Aggregation a = aggr(0);
	a.regions.clear();
	for (uint64_t i = 0; i < 4; i++) {
		Region r;
		r.target_id = 1;
		r.start = B + i * MiB;
		r.end = B + (i + 1) * MiB;
		r.age = 10;
		a.regions.push_back(r);
	}

	a.time_ns = 0;
	e.apply(a);
	e.apply(a); // the same window: nothing, the point kept
	a.time_ns = 1000000000;
	e.apply(a);
	a.time_ns = 2000000000;
	e.apply(a);
	const std::vector<std::pair<uint64_t, uint64_t>> want = {
		{B, B + MiB},
		{B + MiB, B + MiB + 512 * KiB},
		{B + MiB + 512 * KiB, B + 2 * MiB},
		{B + 2 * MiB, B + 3 * MiB},
		{B + 3 * MiB, B + 4 * MiB},
		// wrapped around: the first region again
		{B, B + 512 * KiB},
	};
	EXPECT_EQ(b.applied, want);
	EXPECT_EQ(e.stats(0).qt_exceeds, 2u);
}

// Only the highest scores that cover the quota are candidates (DAMOS's
// min_score), applied in address order.
TEST(SchemeQuota, HighestScoresCoverTheQuotaInAddressOrder)
{
	GoalBackend b;
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"bytes": "2M", "reset_interval_ms": 1000,
		"weights": {"age": 1}}})")},
		       b);
	Aggregation a = aggr(0);
	a.regions.clear();
	const uint32_t ages[] = {40, 400, 10, 100}; // in 100 ms aggregations
	for (uint64_t i = 0; i < 4; i++) {
		Region r;
		r.target_id = 1;
		r.start = B + i * MiB;
		r.end = B + (i + 1) * MiB;
		r.age = ages[i];
		a.regions.push_back(r);
	}
	e.apply(a);
	const std::vector<std::pair<uint64_t, uint64_t>> want = {
		{B + MiB, B + 2 * MiB},
		{B + 3 * MiB, B + 4 * MiB},
	};
	EXPECT_EQ(b.applied, want);
}

// node_mem_free_bp of node 0: 100 of 1000 MiB free is 1000 bp, 3333 of
// a 3000 bp target; each reset interval feeds the tuner once:
// 10000 -> 16667 -> 27778 -> 46297 -> 77163 (bp of a byte).
TEST(QuotaGoalEngine, NodeFreeGoalTunesEachResetInterval)
{
	GoalBackend b;
	b.nodes[0] = {1000 * MiB, 100 * MiB};
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"reset_interval_ms": 1000, "goals": [
		{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": "30 %"}]}})")},
		       b);
	const uint64_t want[] = {16667, 27778, 46297, 77163};

	for (uint64_t w = 0; w < 4; w++) {
		e.apply(aggr(w));
		EXPECT_EQ(e.esz_bp(0), want[w]) << "window " << w;
		EXPECT_EQ(e.effective_quota(0), want[w] / 10000);
		EXPECT_EQ(e.goal_current(0, 0), 1000u);
		// within the window: not tuned again
		e.apply(aggr(w));
		EXPECT_EQ(e.esz_bp(0), want[w]);
	}
	// a quota below a page applies nothing
	EXPECT_EQ(b.applied_bytes(), 0u);
	EXPECT_EQ(e.stats(0).sz_tried, 0u);
}

// node_mem_used_bp: 7500 bp used against 7000 is 10714, over-achieving:
// the input shrinks, never below 10000.
TEST(QuotaGoalEngine, NodeUsedGoalOverAchievingShrinks)
{
	GoalBackend b;
	b.nodes[1] = {1000 * MiB, 250 * MiB};
	SchemeEngine e({one(R"({"action": "migrate_hot", "node": 1,
		"quota": {"reset_interval_ms": 1000, "goals": [
		{"metric": "node_mem_used_bp", "nid": 1,
		 "target_value": 7000}]}})")},
		       b);

	e.apply(aggr(0));
	EXPECT_EQ(e.goal_current(0, 0), 7500u);
	// max(0, 10000) = 10000 - 10000 * 714 / 10000 -> 10000
	EXPECT_EQ(e.esz_bp(0), 10000u);
	EXPECT_EQ(e.effective_quota(0), 1u);
}

// Nothing achieved (user_input 0 of 100): the input doubles per window;
// window 12 (esz 4096) applies one page, window 13 two.
TEST(QuotaGoalEngine, QuotaGrowsToPagesAndIsCharged)
{
	GoalBackend b;
	SchemeEngine e({one(R"({"action": "pageout", "quota":
		{"reset_interval_ms": 1000, "goals": [
		{"metric": "user_input", "target_value": 100,
		 "current_value": 0}]}})")},
		       b);

	for (uint64_t w = 0; w < 11; w++)
		e.apply(aggr(w));
	EXPECT_EQ(e.effective_quota(0), 2048u);
	EXPECT_EQ(b.applied_bytes(), 0u);
	e.apply(aggr(11));
	EXPECT_EQ(e.effective_quota(0), 4096u);
	EXPECT_EQ(b.applied_bytes(), 4096u);
	e.apply(aggr(11)); // the same window: its quota is used
	EXPECT_EQ(b.applied_bytes(), 4096u);
	e.apply(aggr(12));
	EXPECT_EQ(e.effective_quota(0), 8192u);
	EXPECT_EQ(b.applied_bytes(), 4096u + 8192u);
	EXPECT_EQ(e.stats(0).sz_applied, 4096u + 8192u);
	// the one-page window used its quota; those below a page charged
	// nothing (DAMOS charges no region cut to 0 bytes)
	EXPECT_EQ(e.stats(0).qt_exceeds, 1u);
}

// The smallest of the goal-tuned, the byte and the time quota applies.
TEST(QuotaGoalEngine, MinOfGoalAndPlainQuotas)
{
	GoalBackend b;
	SchemeEngine e({one(R"({"action": "pageout", "quota":
		{"bytes": "1M", "reset_interval_ms": 1000, "goals": [
		{"metric": "user_input", "target_value": 100}]}})")},
		       b);

	// 2^20 bytes after 20 doublings; from then on the byte quota
	for (uint64_t w = 0; w < 19; w++) {
		e.apply(aggr(w));
		EXPECT_EQ(e.effective_quota(0), uint64_t(1) << (w + 1));
	}
	for (uint64_t w = 19; w < 25; w++) {
		e.apply(aggr(w));
		EXPECT_EQ(e.effective_quota(0), 1 * MiB);
	}
	EXPECT_GT(e.esz_bp(0) / 10000, 1 * MiB);

	// the time quota: 4 MiB/ms before any charge, times 1 ms, against a
	// goal that already reached 16 MiB
	GoalBackend b2;
	SchemeEngine e2({one(R"({"action": "pageout", "quota":
		{"ms": 1, "reset_interval_ms": 1000, "goals": [
		{"metric": "user_input", "target_value": 100}]}})")},
			b2);
	for (uint64_t w = 0; w < 24; w++)
		e2.apply(aggr(w));
	EXPECT_EQ(e2.esz_bp(0) / 10000, 16 * MiB);
	EXPECT_EQ(e2.effective_quota(0), 4 * MiB);
}

// temporal: the whole byte quota (or no limit) while the goal is missed,
// nothing once it is reached.
TEST(QuotaGoalEngine, TemporalTunerIsOnOrOff)
{
	GoalBackend b;
	b.nodes[0] = {1000 * MiB, 100 * MiB};
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"bytes": "4M", "reset_interval_ms": 1000,
		"goal_tuner": "temporal", "goals": [
		{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": 2000}]}})")},
		       b);

	e.apply(aggr(0)); // 1000 of 2000 bp free
	EXPECT_EQ(e.effective_quota(0), 4 * MiB);
	EXPECT_EQ(b.applied_bytes(), 4 * MiB);
	b.nodes[0].free = 200 * MiB; // reached
	e.apply(aggr(1));
	EXPECT_EQ(e.effective_quota(0), 1u);
	EXPECT_EQ(b.applied_bytes(), 4 * MiB);
	b.nodes[0].free = 199 * MiB; // missed again
	e.apply(aggr(2));
	EXPECT_EQ(e.effective_quota(0), 4 * MiB);
	EXPECT_EQ(b.applied_bytes(), 8 * MiB);

	// without a byte quota: no limit but the goal's
	GoalBackend b2;
	b2.nodes[0] = {1000 * MiB, 100 * MiB};
	SchemeEngine e2({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"reset_interval_ms": 1000, "goal_tuner": "temporal",
		"goals": [{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": 2000}]}})")},
			b2);
	e2.apply(aggr(0));
	EXPECT_EQ(b2.applied_bytes(), 64 * MiB);
}

// damo's default reset interval, "max": one window, never wrapped around.
TEST(QuotaGoalEngine, MaxResetIntervalTunesOnce)
{
	GoalBackend b;
	SchemeEngine e({one(R"({"action": "pageout", "quota":
		{"reset_interval_ms": "max", "goals": [
		{"metric": "user_input", "target_value": 100}]}})")},
		       b);

	e.apply(aggr(0));
	EXPECT_EQ(e.esz_bp(0), 20000u);
	e.apply(aggr(1000000));
	e.apply(aggr(18000000000));
	EXPECT_EQ(e.esz_bp(0), 20000u);
}

// The highest score of several goals decides (the least aggressive).
TEST(QuotaGoalEngine, HighestScoreWins)
{
	GoalBackend b;
	b.nodes[0] = {1000 * MiB, 500 * MiB};
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"reset_interval_ms": 1000, "goals": [
		{"metric": "user_input", "target_value": 100,
		 "current_value": 0},
		{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": 10000}]}})")},
		       b);

	// scores 0 and 5000: 10000 + 10000 * 5000 / 10000
	e.apply(aggr(0));
	EXPECT_EQ(e.esz_bp(0), 15000u);
	EXPECT_EQ(e.goal_current(0, 0), 0u);
	EXPECT_EQ(e.goal_current(0, 1), 5000u);
}

// some_mem_psi_us: the stall time of each window, counted from the
// engine's start, not from boot.
TEST(QuotaGoalEngine, PsiPerWindow)
{
	GoalBackend b;
	b.psi_us = 123456789;
	SchemeEngine e({one(R"({"action": "pageout", "quota":
		{"reset_interval_ms": 1000, "goals": [
		{"metric": "some_mem_psi_us", "target_value": "1 ms"}]}})")},
		       b);

	b.psi_us = 123456789 + 500;
	e.apply(aggr(0));
	EXPECT_EQ(e.goal_current(0, 0), 500u);
	EXPECT_EQ(e.esz_bp(0), 15000u); // score 5000
	b.psi_us = 123456789 + 500 + 2000;
	e.apply(aggr(1));
	EXPECT_EQ(e.goal_current(0, 0), 2000u);
	EXPECT_EQ(e.esz_bp(0), 10000u); // score 20000: the minimum
}

// A node gone since the start reads as DAMOS reads an invalid node.
TEST(QuotaGoalEngine, NodeGoneReadsAsDamosInvalidNode)
{
	GoalBackend b;
	b.nodes[0] = {1000 * MiB, 100 * MiB};
	SchemeEngine e({one(R"({"action": "migrate_cold", "node": 1,
		"quota": {"reset_interval_ms": 1000, "goals": [
		{"metric": "node_mem_used_bp", "nid": 0,
		 "target_value": 5000},
		{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": 5000}]}})")},
		       b);

	b.nodes.clear();
	e.apply(aggr(0));
	EXPECT_EQ(e.goal_current(0, 0), 0u);
	EXPECT_EQ(e.goal_current(0, 1), 10000u);
}

TEST(QuotaGoalEngine, MissingNodeOrPsiIsAClearError)
{
	GoalBackend b;
	b.nodes[0] = {1000 * MiB, 100 * MiB};
	auto msg = [&b](const std::string &scheme) {
		try {
			SchemeEngine e({one(scheme)}, b);
		} catch (const UsageError &err) {
			return std::string(err.what());
		}
		return std::string();
	};

	EXPECT_EQ(msg(R"({"name": "demote", "action": "migrate_cold",
		"node": 1, "quota": {"reset_interval_ms": 1000, "goals": [
		{"metric": "node_mem_free_bp", "nid": 0, "target_value": 1},
		{"metric": "node_mem_used_bp", "nid": 3,
		 "target_value": 1}]}})"),
		  "schemes: demote: quota goal 1 (node_mem_used_bp): node 3 "
		  "has no memory (no /sys/devices/system/node/node3/meminfo)");
	EXPECT_EQ(msg(R"({"name": "p", "action": "pageout", "quota":
		{"reset_interval_ms": 1000, "goals": [
		{"metric": "some_mem_psi_us", "target_value": 1000}]}})"),
		  "schemes: p: quota goal 0 (some_mem_psi_us): no "
		  "/proc/pressure/memory (a kernel without CONFIG_PSI, or "
		  "booted with psi=0)");
	EXPECT_EQ(msg(R"({"name": "p", "action": "pageout", "quota":
		{"reset_interval_ms": 1000, "goals": [
		{"metric": "node_mem_free_bp", "nid": 0,
		 "target_value": 1}]}})"),
		  "");
}

TEST(QuotaGoalParse, OwnFormat)
{
	Scheme s = one(R"({"action": "migrate_cold", "node": 1, "quota":
		{"bytes": "4M", "reset_interval_ms": "200 ms", "goals": [
		{"metric": "node_mem_used_bp", "nid": 0, "target_value": "70 %"},
		{"metric": "node_mem_free_bp", "nid": 1, "target_value": "2.5%"},
		{"metric": "node_mem_free_bp", "nid": 1, "target_value": "7,000"},
		{"metric": "some_mem_psi_us", "target_value": "1 ms"},
		{"metric": "some_mem_psi_us", "target_value": 250},
		{"metric": "user_input", "target_value": 9,
		 "current_value": 3}]}})");

	ASSERT_EQ(s.quota.goals.size(), 6u);
	EXPECT_TRUE(s.quota.limited());
	EXPECT_EQ(s.quota.reset_interval_ms, 200u);
	EXPECT_EQ(s.quota.goals[0].metric, GoalMetric::node_mem_used_bp);
	EXPECT_EQ(s.quota.goals[0].nid, 0);
	EXPECT_EQ(s.quota.goals[0].target_value, 7000u);
	EXPECT_EQ(s.quota.goals[1].metric, GoalMetric::node_mem_free_bp);
	EXPECT_EQ(s.quota.goals[1].nid, 1);
	EXPECT_EQ(s.quota.goals[1].target_value, 250u);
	EXPECT_EQ(s.quota.goals[2].target_value, 7000u);
	EXPECT_EQ(s.quota.goals[3].metric, GoalMetric::some_mem_psi_us);
	EXPECT_FALSE(s.quota.goals[3].nid);
	EXPECT_EQ(s.quota.goals[3].target_value, 1000u);
	EXPECT_EQ(s.quota.goals[4].target_value, 250u);
	EXPECT_EQ(s.quota.goals[5].metric, GoalMetric::user_input);
	EXPECT_EQ(s.quota.goals[5].target_value, 9u);
	EXPECT_EQ(s.quota.goals[5].current_value, 3u);

	// goals alone make a quota
	Scheme g = one(R"({"action": "stat", "quota": {"reset_interval_ms":
		1000, "goals": [{"metric": "user_input",
		"target_value": 1}]}})");
	EXPECT_TRUE(g.quota.limited());
	EXPECT_EQ(g.quota.sz, 0u);
	EXPECT_EQ(g.quota.ms, 0u);
}

// What damo 3.3 writes for
//   damo args damon --damos_action migrate_cold 1 --damos_access_rate 0% 0%
//     --damos_quotas 0 64M 1s 0 1 1
//     --damos_quota_goal node_mem_used_bp 70% 0
//     --damos_quota_goal some_mem_psi_us 1ms
//     --damos_quota_goal user_input 1000 500
TEST(QuotaGoalParse, DamoFile)
{
	auto v = load_schemes_file(data("damo-goals.json"));

	ASSERT_EQ(v.size(), 1u);
	const Quota &q = v[0].quota;
	EXPECT_EQ(q.sz, 64 * MiB);
	EXPECT_EQ(q.reset_interval_ms, 1000u);
	ASSERT_EQ(q.goals.size(), 3u);
	EXPECT_EQ(q.goals[0].metric, GoalMetric::node_mem_used_bp);
	EXPECT_EQ(q.goals[0].nid, 0);
	EXPECT_EQ(q.goals[0].target_value, 7000u);
	EXPECT_EQ(q.goals[1].metric, GoalMetric::some_mem_psi_us);
	EXPECT_FALSE(q.goals[1].nid);
	EXPECT_EQ(q.goals[1].target_value, 1000u);
	EXPECT_EQ(q.goals[2].metric, GoalMetric::user_input);
	EXPECT_EQ(q.goals[2].target_value, 1000u);
	EXPECT_EQ(q.goals[2].current_value, 500u);
	EXPECT_EQ(q.goal_tuner, GoalTuner::consist);
	EXPECT_EQ(one(R"({"action": "cold", "quota": {"reset_interval_ms": 1,
		"goal_tuner": "temporal"}})")
			  .quota.goal_tuner,
		  GoalTuner::temporal);
}

TEST(QuotaGoalParse, BadInput)
{
	// a scheme with these goals and a reset interval
	auto own = [](const std::string &goals) {
		return R"({"schemes": [{"action": "migrate_cold", "node": 1,
			"quota": {"reset_interval_ms": 1000, "goals": )" +
		       goals + "}}]}";
	};
	const std::string g = "schemes: schemes[0].quota.goals";
	const std::vector<std::pair<std::string, std::string>> cases = {
		{own(R"([{"metric": "psi", "target_value": 1}])"),
		 g + "[0].metric: unknown metric 'psi' (expected one of: "
		     "user_input, some_mem_psi_us, node_mem_used_bp, "
		     "node_mem_free_bp)"},
		{own(R"([{"metric": "node_memcg_used_bp", "nid": 0,
		     "target_value": 1}])"),
		 g + "[0].metric: unknown metric 'node_memcg_used_bp' "
		     "(expected one of: user_input, some_mem_psi_us, "
		     "node_mem_used_bp, node_mem_free_bp)"},
		{own(R"([{"target_value": 1}])"), g + "[0]: needs a metric"},
		{own(R"([{"metric": 3, "target_value": 1}])"),
		 g + "[0]: needs a metric"},
		{own(R"([{"metric": "node_mem_used_bp", "target_value": 1}])"),
		 g + "[0]: node_mem_used_bp needs a nid (the node)"},
		{own(R"([{"metric": "node_mem_free_bp", "nid": null,
		     "target_value": 1}])"),
		 g + "[0]: node_mem_free_bp needs a nid (the node)"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": -1,
		     "target_value": 1}])"),
		 g + "[0].nid: must not be negative"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 1024,
		     "target_value": 1}])"),
		 g + "[0].nid: 1024 is above 1023"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": "zero",
		     "target_value": 1}])"),
		 g + "[0].nid: 'zero' is not a whole number"},
		{own(R"([{"metric": "some_mem_psi_us", "nid": 0,
		     "target_value": 1}])"),
		 g + "[0].nid: is for node_mem_used_bp and node_mem_free_bp"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 0}])"),
		 g + "[0]: needs a target_value"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 0,
		     "target_value": 0}])"),
		 g + "[0].target_value: must be above 0 (the score divides "
		     "by it)"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 0,
		     "target_value": "0 %"}])"),
		 g + "[0].target_value: must be above 0 (the score divides "
		     "by it)"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 0,
		     "target_value": "120%"}])"),
		 g + "[0].target_value: 120% is above 10000 bp (100 %)"},
		{own(R"([{"metric": "node_mem_free_bp", "nid": 0,
		     "target_value": 10001}])"),
		 g + "[0].target_value: 10001 is above 10000 bp (100 %)"},
		{own(R"([{"metric": "node_mem_free_bp", "nid": 0,
		     "target_value": "most"}])"),
		 g + "[0].target_value: 'most' is not a ratio in bp (N) or "
		     "percent (N %)"},
		{own(R"([{"metric": "node_mem_free_bp", "nid": 0,
		     "target_value": -5}])"),
		 g + "[0].target_value: must not be negative"},
		{own(R"([{"metric": "some_mem_psi_us",
		     "target_value": "fast"}])"),
		 g + "[0].target_value: 'fast' is not a time (N us, N ms, "
		     "N s, N m, N h)"},
		{own(R"([{"metric": "some_mem_psi_us",
		     "target_value": "0 ms"}])"),
		 g + "[0].target_value: must be above 0 (the score divides "
		     "by it)"},
		{own(R"([{"metric": "user_input", "target_value": "1.5"}])"),
		 g + "[0].target_value: '1.5' is not a whole number"},
		{own(R"([{"metric": "user_input", "target_value": 1,
		     "current_value": "x"}])"),
		 g + "[0].current_value: 'x' is not a whole number"},
		{own(R"([{"metric": "node_mem_used_bp", "nid": 0,
		     "target_value": 1, "current_value": 5}])"),
		 g + "[0].current_value: is for user_input"},
		{own(R"([{"metric": "user_input", "target": 1}])"),
		 g + "[0]: unknown key 'target' (expected one of: metric, "
		     "target_value, current_value, nid)"},
		{own(R"({"metric": "user_input"})"), g + ": must be an array"},
		{own(R"([1,2,3,4,5,6,7,8,9])"), g + ": at most 8"},
		{own(R"([7])"), g + "[0]: must be an object"},
		{R"({"schemes": [{"action": "cold", "quota": {"goals":
		      [{"metric": "user_input", "target_value": 1}]}}]})",
		 "schemes: schemes[0].quota: quota goals need a reset "
		 "interval"},
		{R"([{"action": "stat", "quotas": {"reset_interval_ms": "1 s",
		      "goals": [{"metric": "node_mem_used_bp", "nid": "0",
		      "memcg_path": "/a", "target_value": "7,000",
		      "current_value": "0"}]}}])",
		 "schemes: [0].quotas.goals[0].memcg_path: memcg goals are "
		 "not supported"},
		{R"([{"action": "stat", "quotas": {"reset_interval_ms": "1 s",
		      "goals": [{"metric": "some_mem_psi_us", "nid": null,
		      "memcg_path": null, "target_value": "1,000",
		      "current_value": "0"}], "goal_tuner": "pid"}}])",
		 "schemes: [0].quotas.goal_tuner: unknown goal tuner 'pid' "
		 "(expected consist or temporal)"},
		{R"({"schemes": [{"action": "cold", "quota": {
		      "reset_interval_ms": 1000, "goal_tuner": 1}}]})",
		 "schemes: schemes[0].quota.goal_tuner: must be a string "
		 "(consist or temporal)"},
		{R"([{"action": "stat", "quotas": {"reset_interval_ms": "1 s",
		      "goals": [{"metric": "node_mem_free_bp", "nid": null,
		      "memcg_path": null, "target_value": "1,000",
		      "current_value": "0"}]}}])",
		 "schemes: [0].quotas.goals[0]: node_mem_free_bp needs a nid "
		 "(the node)"},
	};

	for (const auto &[doc, msg] : cases)
		EXPECT_EQ(error_of(doc), msg) << doc;
}
