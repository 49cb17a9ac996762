// SPDX-License-Identifier: GPL-2.0
// The subcommands that talk to the kernel, run as main() runs them but over
// a fake Transport (fake_transport.hpp): the requests each sends, what it
// prints, its exit code, and what start leaves behind when a step fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "fake_transport.hpp"
#include "recording.hpp"
#include "sysfs_trees.hpp"

using namespace damonctl;
using damonctl::test::FakeTransport;
using damonctl::test::Outcome;
using damonctl::test::run_damonctl;

namespace {

using Calls = std::vector<std::string>;

Aggregation aggregation(const CtxInfo &c, uint64_t seq, uint64_t hits)
{
	Aggregation a;
	Region r;

	a.ctx_id = c.id;
	a.ctx_name = c.name;
	a.seq = seq;
	a.aggr_us = 100000;
	r.start = 0x1000;
	r.end = 0x3000;
	r.nr_accesses = uint32_t(hits);
	a.regions.push_back(r);
	a.nr_regions = 1;
	return a;
}

// A start with every step after CTX_NEW, and the requests it sends.
std::vector<std::string> start_args()
{
	return {"start",  "--pid",       "42",         "--pid",
		"43",     "--sample-us", "5000",       "--aggr-us",
		"100000", "-f",          "cpumask:0-1"};
}

Calls start_calls()
{
	return {"ctx_new default", "set_attrs #1", "target_add #1",
		"target_add #1",   "probe_add #1", "set_filters #1",
		"start #1"};
}

} // namespace

TEST(Start, SendsEveryStepThenStarts)
{
	FakeTransport t;
	auto r = run_damonctl(start_args(), t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, start_calls());
	EXPECT_EQ(r.out,
		  "started context 1 \"default\" (2 targets, 1 probes)\n");
	ASSERT_EQ(t.ctxs.size(), 1u);
	EXPECT_EQ(t.ctxs[0].state, CtxState::running);
	EXPECT_EQ(t.ctxs[0].attrs.sample_us, 5000u);
}

// A step after CTX_NEW fails (the @nth call of @op): the context is deleted,
// nothing else is sent, and the step's error is the one reported.
struct RollbackCase {
	std::string op;
	int nth;
	size_t steps; // requests up to and including the failing one
};

class StartRollback : public testing::TestWithParam<RollbackCase> {};

TEST_P(StartRollback, DeletesTheContextAndReportsTheStepsError)
{
	const RollbackCase &c = GetParam();
	FakeTransport t;

	t.fail(c.op, EINVAL, "refused " + c.op, c.nth);
	auto r = run_damonctl(start_args(), t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: refused " + c.op + " (EINVAL)\n");
	EXPECT_EQ(r.out, "");
	Calls want = start_calls();
	want.resize(c.steps);
	want.emplace_back("ctx_del #1");
	EXPECT_EQ(t.calls, want);
	EXPECT_TRUE(t.ctxs.empty()) << "context left behind";
}

INSTANTIATE_TEST_SUITE_P(EachStep, StartRollback,
			 testing::Values(RollbackCase{"set_attrs", 1, 2},
					 RollbackCase{"target_add", 1, 3},
					 RollbackCase{"target_add", 2, 4},
					 RollbackCase{"probe_add", 1, 5},
					 RollbackCase{"set_filters", 1, 6},
					 RollbackCase{"start", 1, 7}),
			 [](const testing::TestParamInfo<RollbackCase> &info) {
				 return info.param.op +
					std::to_string(info.param.nth);
			 });

TEST(Start, RollbackFailureKeepsTheFirstError)
{
	FakeTransport t;

	t.fail("start", EBUSY, "the PMU is busy");
	t.fail("ctx_del", ENOENT, "no such context");
	auto r = run_damonctl(start_args(), t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: the PMU is busy (EBUSY)\n");
	ASSERT_FALSE(t.calls.empty());
	EXPECT_EQ(t.calls.back(), "ctx_del #1");
}

TEST(Start, CtxNewRefusedSendsNothingMore)
{
	FakeTransport t;

	t.fail("ctx_new", EEXIST, "a context of that name exists");
	auto r = run_damonctl({"start", "-n", "db", "-p", "1"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: a context of that name exists (EEXIST)\n");
	EXPECT_EQ(t.calls, Calls{"ctx_new db"});
}

TEST(Start, ReplaceStopsAndDeletesTheOldContextFirst)
{
	FakeTransport t;
	t.add_ctx("db");
	t.add_ctx("other");
	auto r = run_damonctl({"start", "-n", "db", "-p", "7", "--replace"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls,
		  (Calls{"ctx_list", "stop db", "ctx_del db", "ctx_new db",
			 "target_add #3", "probe_add #3", "start #3"}));
}

TEST(Start, UsageErrorsComeBeforeAnyRequest)
{
	FakeTransport t;
	t.module_loaded = false;

	auto r = run_damonctl({"start", "--ops", "paddr", "-p", "1"}, t);
	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_EQ(r.err, "damonctl: --pid needs --ops vaddr\n");
	r = run_damonctl({"start", "-p", "1", "--mode", "often"}, t);
	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	// integers out of range, said as integers (not a double's range)
	for (const char *bad : {"-5", "0", "281474976710657", "1x", "x"}) {
		r = run_damonctl({"start", "-p", "1", "--period", bad}, t);
		EXPECT_EQ(r.exit_code, EXIT_USAGE) << bad;
		EXPECT_NE(r.err.find(std::string("'") + bad +
				     "' is not an integer from 1 to "
				     "281474976710656"),
			  std::string::npos)
			<< r.err;
	}
	r = run_damonctl({"start", "-p", "1", "--freq", "0"}, t);
	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_TRUE(t.calls.empty());
	// the bounds themselves pass the tool (0x as CLI11 reads integers)
	for (const char *good : {"1", "281474976710656", "0x10"}) {
		r = run_damonctl({"start", "-p", "1", "--period", good}, t);
		EXPECT_EQ(r.exit_code, EXIT_NOMODULE) << good << r.err;
	}
	// and the missing module only once a request is sent
	r = run_damonctl({"start", "-p", "1"}, t);
	EXPECT_EQ(r.exit_code, EXIT_NOMODULE);
}

TEST(Stop, StopsRunningContextsAndDeletesEvery)
{
	FakeTransport t;
	t.add_ctx("a");
	t.add_ctx("b", CtxState::stopped);
	t.add_ctx("c");
	auto r = run_damonctl({"stop"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, (Calls{"ctx_list", "stop #1", "ctx_del #1",
				  "ctx_del #2", "stop #3", "ctx_del #3"}));
	EXPECT_EQ(r.out, "stopped and deleted context 1 \"a\"\n"
			 "stopped and deleted context 2 \"b\"\n"
			 "stopped and deleted context 3 \"c\"\n");
	EXPECT_TRUE(t.ctxs.empty());
}

TEST(Stop, KeepOnlyStopsTheNamedContext)
{
	FakeTransport t;
	t.add_ctx("a");
	t.add_ctx("b");
	auto r = run_damonctl({"stop", "b", "--keep"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, (Calls{"ctx_list", "stop #2"}));
	EXPECT_EQ(r.out, "stopped context 2 \"b\"\n");
	EXPECT_EQ(t.ctxs.size(), 2u);
}

TEST(Stop, UnknownNameChangesNothing)
{
	FakeTransport t;
	t.add_ctx("a");
	auto r = run_damonctl({"stop", "a", "nosuch"}, t);

	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_EQ(r.err, "damonctl: no context named 'nosuch'\n");
	EXPECT_EQ(t.calls, Calls{"ctx_list"});
}

TEST(Stop, NoContexts)
{
	FakeTransport t;
	auto r = run_damonctl({"stop"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK);
	EXPECT_EQ(r.out, "no contexts\n");
}

TEST(Stop, KernelRefusalStopsAtThatContext)
{
	FakeTransport t;
	t.add_ctx("a");
	t.add_ctx("b");
	t.fail("stop", EPERM, "", 2);
	auto r = run_damonctl({"stop"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	// no extack: strerror()
	EXPECT_EQ(r.err, "damonctl: Operation not permitted (EPERM)\n");
	EXPECT_EQ(r.out, "stopped and deleted context 1 \"a\"\n");
	EXPECT_EQ(t.ctxs.size(), 1u);
}

TEST(Tune, SetsTheAttributesAndPrintsWhatTheKernelHas)
{
	FakeTransport t;
	CtxInfo &c = t.add_ctx("db");
	c.attrs.aggr_us = 100000;
	c.attrs.update_us = 1000000;
	c.attrs.min_nr_regions = 10;
	c.attrs.max_nr_regions = 1000;
	auto r = run_damonctl({"tune", "db", "--sample-us", "5000"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, (Calls{"set_attrs db", "ctx_get db"}));
	EXPECT_EQ(r.out, "context 1 \"db\": sample 5000 us, aggr 100000 us, "
			 "update 1000000 us, regions 10..1000\n");
}

TEST(Tune, NothingToTuneSendsNothing)
{
	FakeTransport t;
	t.add_ctx("db");
	auto r = run_damonctl({"tune", "db"}, t);

	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_NE(r.err.find("damonctl: nothing to tune"), std::string::npos);
	r = run_damonctl({"tune", "db", "--split", "halves"}, t);
	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_EQ(r.err, "damonctl: --split must be samples or random\n");
	EXPECT_TRUE(t.calls.empty());
}

TEST(Tune, IntervalsGoalOptionsAndTheirBounds)
{
	FakeTransport t;
	CtxInfo &c = t.add_ctx("db");
	auto r = run_damonctl({"tune", "db", "--samples-goal", "200",
			       "--goal-aggrs", "2", "--min-aggr-us", "0",
			       "--max-aggr-us", "3600000000"},
			      t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(c.attrs.samples_goal, 200u);
	EXPECT_EQ(c.attrs.goal_aggrs, 2u);
	EXPECT_EQ(c.attrs.min_aggr_us, 0u);
	EXPECT_EQ(c.attrs.max_aggr_us, 3600000000u);
	// 0 turns the goal off: it is sent
	r = run_damonctl({"tune", "db", "--samples-goal", "0"}, t);
	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(c.attrs.samples_goal, 0u);

	t.calls.clear();
	for (auto bad : {std::vector<std::string>{"--samples-goal", "16777217"},
			 {"--samples-goal", "-1"},
			 {"--goal-aggrs", "0"},
			 {"--goal-aggrs", "101"},
			 {"--max-aggr-us", "3600000001"},
			 {"--min-aggr-us", "x"}}) {
		std::vector<std::string> args{"tune", "db"};
		args.insert(args.end(), bad.begin(), bad.end());
		r = run_damonctl(args, t);
		EXPECT_EQ(r.exit_code, EXIT_USAGE) << bad[0] << " " << bad[1];
		EXPECT_NE(r.err.find("is not an integer from"),
			  std::string::npos)
			<< r.err;
	}
	EXPECT_TRUE(t.calls.empty());
}

TEST(Tune, RefusalCarriesTheExtackMessage)
{
	FakeTransport t;
	t.add_ctx("db");
	t.fail("set_attrs", EBUSY, "running: only the intervals may change");
	auto r = run_damonctl({"tune", "db", "--max-nr-regions", "50"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: running: only the intervals may change "
			 "(EBUSY)\n");
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(t.calls, Calls{"set_attrs db"});
}

TEST(Tune, ContextThatVanishesBeforeTheReadBack)
{
	FakeTransport t;
	t.add_ctx("db");
	t.fail("ctx_get", ENOENT, "no context named db");
	auto r = run_damonctl({"tune", "db", "--aggr-us", "200000"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: no context named db (ENOENT)\n");
	EXPECT_EQ(r.out, "");
}

TEST(Tune, MissingContext)
{
	FakeTransport t;
	auto r = run_damonctl({"tune", "nosuch", "--aggr-us", "200000"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: no such context (ENOENT)\n");
}

TEST(Monitor, JsonLinesOfTheNamedContextOnly)
{
	FakeTransport t;
	const CtxInfo a = t.add_ctx("a");
	const CtxInfo b = t.add_ctx("b");
	t.notifications = {aggregation(a, 1, 3), aggregation(b, 1, 9),
			   aggregation(a, 2, 4), aggregation(a, 3, 5)};
	auto r = run_damonctl({"monitor", "a", "--json", "-n", "2"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, Calls{"subscribe"});
	ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
	auto first = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
	EXPECT_EQ(first["ctx_name"], "a");
	EXPECT_EQ(first["seq"], 1);
	EXPECT_EQ(t.notifications.size(), 1u) << "read past --count";
}

TEST(Monitor, ContextThatVanishesEndsShortOfTheCount)
{
	FakeTransport t;
	const CtxInfo a = t.add_ctx("a");
	t.notifications = {aggregation(a, 1, 3)};
	// then no more notifications: the duration ends the wait
	auto r = run_damonctl(
		{"monitor", "a", "--no-clear", "-n", "3", "-d", "0.05"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OTHER);
	EXPECT_EQ(r.err, "damonctl: got 1 of 3 aggregations\n");
	EXPECT_EQ(r.out.rfind("waiting for aggregations (Ctrl-C to stop)\n", 0),
		  0u)
		<< r.out;
}

TEST(Monitor, TruncatedNotificationPointsToReport)
{
	FakeTransport t;
	Aggregation agg = aggregation(t.add_ctx("a"), 1, 3);
	agg.truncated = true;
	t.notifications = {agg};
	auto r = run_damonctl({"monitor", "--no-clear", "-n", "1"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_NE(r.out.find("(regions did not fit in one notification; see "
			     "damonctl report)\n"),
		  std::string::npos)
		<< r.out;
}

TEST(Monitor, SubscribeRefusedPrintsNothingElse)
{
	FakeTransport t;
	t.fail("subscribe", EPERM, "needs CAP_PERFMON");
	auto r = run_damonctl({"monitor"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: needs CAP_PERFMON (EPERM)\n");
	EXPECT_EQ(r.out, "");
}

TEST(Monitor, ModuleNotLoaded)
{
	FakeTransport t;
	t.module_loaded = false;
	auto r = run_damonctl({"monitor"}, t);

	EXPECT_EQ(r.exit_code, EXIT_NOMODULE);
	EXPECT_EQ(r.err, "damonctl: damon_perf module is not loaded (family "
			 "damon_perf not found)\n");
}

// Notifications dropped for a full receive buffer: the receive met
// ENOBUFS before the fourth, and seq says which aggregations never came.
TEST(Monitor, SaysTheAggregationsMissedPerContext)
{
	FakeTransport t;
	const CtxInfo a = t.add_ctx("a");
	const CtxInfo b = t.add_ctx("b");
	t.notifications = {aggregation(a, 5, 1), aggregation(b, 2, 1),
			   aggregation(a, 6, 1), aggregation(a, 10, 1),
			   aggregation(b, 3, 1), aggregation(a, 11, 1),
			   aggregation(a, 14, 1)};
	t.overrun_before = {3};
	auto r = run_damonctl(
		{"monitor", "--json", "--rcvbuf", "8192", "-n", "7"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	// the buffer shrinks once the subscription was acked
	EXPECT_EQ(t.calls, (Calls{"subscribe", "rcvbuf 8192"}));
	// the first of a context sets its start; each gap is said once
	EXPECT_EQ(r.err,
		  "damonctl: missed 3 aggregations of context a (seq 7 to 9; "
		  "receive buffer overran)\n"
		  "damonctl: missed 5 aggregations of context a in 2 gaps "
		  "(receive buffer overran)\n");
	std::vector<uint64_t> missed;
	std::istringstream lines(r.out);
	for (std::string line; std::getline(lines, line);)
		missed.push_back(
			nlohmann::json::parse(line).value("missed", 0ULL));
	EXPECT_EQ(missed, (std::vector<uint64_t>{0, 0, 0, 3, 0, 0, 2}));
}

TEST(Monitor, OverrunWithoutAGapIsSaidAtTheEnd)
{
	FakeTransport t;
	const CtxInfo a = t.add_ctx("a");
	t.notifications = {aggregation(a, 1, 1), aggregation(a, 2, 1)};
	t.overrun_before = {1};
	auto r = run_damonctl({"monitor", "--json", "-n", "2"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(r.err, "damonctl: notifications dropped (the receive "
			 "buffer overran, ENOBUFS 1x); no gap in the "
			 "aggregations received after it\n");
}

TEST(Monitor, SeqThatGoesBackIsANewStartNotAGap)
{
	FakeTransport t;
	const CtxInfo a = t.add_ctx("a");
	// the module reloaded: the same id numbers from 1 again
	t.notifications = {aggregation(a, 40, 1), aggregation(a, 1, 1),
			   aggregation(a, 2, 1)};
	auto r = run_damonctl({"monitor", "--json", "-n", "3"}, t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(r.out.find("missed"), std::string::npos) << r.out;
}

TEST(Record, NotesTheGapOnTheLineAfterIt)
{
	FakeTransport t, dumps;
	const CtxInfo &a = dumps.add_ctx("a");
	t.notifications = {aggregation(a, 1, 1), aggregation(a, 4, 1)};
	t.overrun_before = {1};
	auto r = run_damonctl({"record", "-o", "-", "-n", "2"}, t, dumps);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	auto second = nlohmann::json::parse(r.out.substr(r.out.find('\n') + 1));
	EXPECT_EQ(second["seq"], 4);
	EXPECT_EQ(second["missed"], 2);
	EXPECT_NE(r.err.find("missed 2 aggregations of context a (receive "
			     "buffer overran)\n"),
		  std::string::npos)
		<< r.err;
	// and reads back
	std::istringstream in(r.out);
	auto back = read_recording(in);
	ASSERT_EQ(back.size(), 2u);
	EXPECT_EQ(back[0].missed, 0u);
	EXPECT_EQ(back[1].missed, 2u);
}

TEST(Record, CompletesTruncatedAggregationsOnTheSecondConnection)
{
	FakeTransport t, dumps;
	CtxInfo &a = dumps.add_ctx("a");
	a.attrs.sample_us = 5000;
	a.attrs.update_us = 1000000;
	Aggregation cut = aggregation(a, 7, 3);
	cut.truncated = true;
	Aggregation full = aggregation(a, 7, 3);
	Region r2;
	r2.start = 0x3000;
	r2.end = 0x5000;
	full.regions.push_back(r2);
	full.ctx_name.clear(); // a dump does not name the context
	dumps.snapshots[a.id] = full;
	t.notifications = {cut, aggregation(a, 8, 1)};
	auto r = run_damonctl({"record", "-o", "-", "-n", "2"}, t, dumps);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(t.calls, Calls{"subscribe"});
	EXPECT_EQ(dumps.calls, (Calls{"snapshot #1", "ctx_list"}));
	auto line = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
	EXPECT_EQ(line["regions"].size(), 2u);
	EXPECT_EQ(line["ctx_name"], "a");
	EXPECT_EQ(line["sample_us"], 5000);
}

// spe attach up to the perf_event_open() it needs hardware for: every
// check before it over the fake.
class SpeAttachCommand : public testing::Test {
protected:
	void SetUp() override
	{
		setenv("DAMONCTL_SYSFS_ROOT",
		       damonctl::test::sysfs_tree("arm").c_str(), 1);
	}
	void TearDown() override { unsetenv("DAMONCTL_SYSFS_ROOT"); }

	Outcome attach(std::vector<std::string> extra)
	{
		std::vector<std::string> args = {"spe", "attach", "web", "-e",
						 "arm_spe_0//"};
		args.insert(args.end(), extra.begin(), extra.end());
		return run_damonctl(args, t);
	}

	FakeTransport t;
};

TEST_F(SpeAttachCommand, MissingContext)
{
	auto r = attach({});

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err, "damonctl: no such context (ENOENT)\n");
	EXPECT_EQ(t.calls, Calls{"ctx_get web"});
}

TEST_F(SpeAttachCommand, ContextNotRunning)
{
	t.add_ctx("web", CtxState::stopped);
	auto r = attach({});

	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_EQ(r.err, "damonctl: context 'web' is not running\n");
}

TEST_F(SpeAttachCommand, EveryProbeSlotInUse)
{
	CtxInfo &c = t.add_ctx("web");
	c.probes.resize(3);
	for (uint32_t i = 0; i < 3; i++)
		c.probes[i].idx = i + 1;
	auto r = attach({});

	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_NE(r.err.find("every probe slot of the context is in use"),
		  std::string::npos)
		<< r.err;
	EXPECT_TRUE(t.aux.empty());
}

TEST_F(SpeAttachCommand, BadCpuListKeepsItsMessage)
{
	t.add_ctx("web");
	auto r = attach({"--cpus", "3-1"});
	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_EQ(r.err, "damonctl: bad CPU list '3-1'\n");
	r = attach({"--cpus", "0-99999"});
	EXPECT_EQ(r.err, "damonctl: bad CPU list '0-99999'\n");
	EXPECT_EQ(t.count("aux_attach"), 0u);
}

TEST(Debug, RawRequestCarriesTheAttributesAsGiven)
{
	FakeTransport t;
	auto r = run_damonctl({"debug", "raw", "--cmd", "5", "--dump",
			       "--version", "2", "-a", "1:u32:7", "-a",
			       "3:str:ab", "-a", "9:nest:0102"},
			      t);

	EXPECT_EQ(r.exit_code, EXIT_OK) << r.err;
	EXPECT_EQ(r.out, "ok (0 replies)\n");
	ASSERT_EQ(t.raw.size(), 1u);
	const RawRequest &q = t.raw[0];
	EXPECT_EQ(q.cmd, 5);
	EXPECT_TRUE(q.dump);
	EXPECT_EQ(q.version, 2);
	ASSERT_EQ(q.attrs.size(), 3u);
	EXPECT_EQ(q.attrs[0].type, 1);
	EXPECT_EQ(q.attrs[0].data, (std::vector<unsigned char>{7, 0, 0, 0}));
	EXPECT_EQ(q.attrs[1].data, (std::vector<unsigned char>{'a', 'b', 0}));
	EXPECT_EQ(q.attrs[2].type, 9 | (1 << 15)); // NLA_F_NESTED
	EXPECT_EQ(q.attrs[2].data, (std::vector<unsigned char>{1, 2}));
}

TEST(Debug, BadAttributeIsAUsageError)
{
	FakeTransport t;
	auto r = run_damonctl({"debug", "raw", "--cmd", "5", "-a", "1:u31:7"},
			      t);

	EXPECT_EQ(r.exit_code, EXIT_USAGE);
	EXPECT_TRUE(t.raw.empty());
}

TEST(Debug, JoinRefused)
{
	FakeTransport t;
	t.join_result = -EPERM;
	auto r = run_damonctl({"debug", "join-monitor"}, t);

	EXPECT_EQ(r.exit_code, EXIT_KERNEL);
	EXPECT_EQ(r.err,
		  "damonctl: joining the monitor group refused (EPERM)\n");
}
