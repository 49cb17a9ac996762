// SPDX-License-Identifier: GPL-2.0
// Output rendering: status and regions tables, working-set size, JSON,
// OpenMetrics, heatmap, and recordings read back.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "errors.hpp"
#include "heatmap.hpp"
#include "recording.hpp"
#include "render.hpp"

using namespace damonctl;

namespace {

Aggregation agg(uint64_t seq, std::vector<uint32_t> accesses,
		uint64_t base = 0x10000, uint64_t size = 0x1000)
{
	Aggregation a;

	a.ctx_id = 1;
	a.ctx_name = "t";
	a.seq = seq;
	a.time_ns = seq * 100000000ULL;
	a.aggr_us = 100000;
	a.nr_regions = uint32_t(accesses.size());
	for (size_t i = 0; i < accesses.size(); i++) {
		Region r;
		r.target_id = 1;
		r.start = base + i * size;
		r.end = r.start + size;
		r.nr_accesses = accesses[i];
		r.probe_hits = {accesses[i]};
		a.regions.push_back(r);
	}
	return a;
}

size_t count(const std::string &s, const std::string &needle)
{
	size_t n = 0;

	for (size_t p = s.find(needle); p != std::string::npos;
	     p = s.find(needle, p + 1))
		n++;
	return n;
}

} // namespace

TEST(Render, WorkingSetCountsAccessedRegions)
{
	Aggregation a = agg(1, {0, 3, 1, 0, 7});

	EXPECT_EQ(working_set_size(a), 3u * 0x1000);
	EXPECT_EQ(working_set_size(a, 3), 2u * 0x1000);
	EXPECT_EQ(working_set_size(a, 8), 0u);
}

TEST(Render, HotKeepsTheMostAccessedRegionsInOrder)
{
	std::string out = render_regions(agg(1, {0, 3, 1, 0, 7}), 2);

	// header line, column line, two regions, working set
	EXPECT_EQ(count(out, "\n"), 5u);
	EXPECT_LT(out.find("0x14000"), out.find("0x11000"));
	EXPECT_EQ(out.find("0x13000"), std::string::npos);
	EXPECT_NE(out.find("working set: 12.0 KiB"), std::string::npos);
}

TEST(Render, HotBreaksAccessTiesBySampledRate)
{
	// A one-page counter ties a big sampled range on nr_accesses (a page
	// faults once per scan): the range's samples make it the hotter one.
	Aggregation a = agg(1, {3, 3, 3, 1});
	a.regions[0].rate = 4;    // 0x10000, listed first
	a.regions[1].rate = 497;  // 0x11000
	a.regions[2].rate = 85;   // 0x12000
	a.regions[3].rate = 9999; // 0x13000, fewer accesses
	std::vector<Region> r = a.regions;
	sort_hottest(r);
	ASSERT_EQ(r.size(), 4u);
	EXPECT_EQ(r[0].start, 0x11000u);
	EXPECT_EQ(r[1].start, 0x12000u);
	EXPECT_EQ(r[2].start, 0x10000u);
	EXPECT_EQ(r[3].start, 0x13000u);

	std::string out = render_regions(a, 1);
	EXPECT_NE(out.find("0x11000"), std::string::npos);
	EXPECT_EQ(out.find("0x10000"), std::string::npos);
}

TEST(Render, HotBreaksFullTiesByTargetThenAddress)
{
	// Equal nr_accesses and rate: target, then address, decide, not the
	// order the regions were given in.
	Aggregation a = agg(1, {2, 2, 2, 2});
	a.regions[0].target_id = 2; // 0x10000
	a.regions[1].target_id = 1; // 0x11000
	a.regions[2].target_id = 1; // 0x12000
	a.regions[3].target_id = 1; // 0x13000
	std::vector<Region> r(a.regions.rbegin(), a.regions.rend());
	sort_hottest(r);
	ASSERT_EQ(r.size(), 4u);
	EXPECT_EQ(r[0].start, 0x11000u);
	EXPECT_EQ(r[1].start, 0x12000u);
	EXPECT_EQ(r[2].start, 0x13000u);
	EXPECT_EQ(r[3].start, 0x10000u);
}

TEST(Render, RegionsTableShowsEveryRegionWithoutHot)
{
	std::string out = render_regions(agg(4, {1, 2, 3}), 0);

	EXPECT_NE(out.find("aggregation 4 (3 regions)"), std::string::npos);
	EXPECT_EQ(count(out, "4.0 KiB"), 3u);
}

TEST(Render, StatusSaysWhatTheTuningChoseAndWhy)
{
	CtxInfo c;
	c.id = 1;
	c.name = "t";
	c.state = CtxState::running;
	c.attrs.samples_goal = 100;
	c.attrs.goal_aggrs = 3;
	TuningInfo t;
	t.aggr_us = 400000;
	t.min_aggr_us = 10000;
	t.max_aggr_us = 1000000;
	c.tuning = t;

	EXPECT_NE(render_status({c}).find("no step yet (one per 3 "
					  "aggregations)"),
		  std::string::npos);
	c.tuning->steps = 4;
	c.tuning->ups = 2;
	c.tuning->samples = 40;
	std::string out = render_status({c});
	EXPECT_NE(out.find("intervals goal: 100 samples per aggregation; "
			   "aggregation 400000 us (bounds 10000..1000000 us); "
			   "last step saw 40 samples per aggregation, below "
			   "the goal, so lengthened; 4 steps, lengthened 2x, "
			   "shortened 0x"),
		  std::string::npos)
		<< out;
	EXPECT_EQ(out.find("periods may go down"), std::string::npos);
	c.tuning->aggr_us = 1000000;
	c.tuning->period_div = 8;
	out = render_status({c});
	EXPECT_NE(out.find("below the goal at the longest"), std::string::npos);
	EXPECT_NE(out.find("; periods may go down to 1/8 of the configured, "
			   "within the CPU budget\n"),
		  std::string::npos)
		<< out;
	EXPECT_EQ(to_json(c)["tuning"]["period_div"], 8);
	c.tuning->samples = 150;
	EXPECT_NE(render_status({c}).find("within the goal"),
		  std::string::npos);
	c.tuning->samples = 200;
	EXPECT_NE(render_status({c}).find("above twice the goal, so shortened"),
		  std::string::npos);
	c.tuning->aggr_us = 10000;
	EXPECT_NE(render_status({c}).find("at the shortest interval"),
		  std::string::npos);

	auto j = to_json(c);
	EXPECT_EQ(j["tuning"]["aggr_us"], 10000);
	EXPECT_EQ(j["tuning"]["samples"], 200);
	EXPECT_EQ(j["tuning"]["steps"], 4);
	EXPECT_EQ(j["attrs"]["samples_goal"], 100);
	c.tuning.reset();
	EXPECT_EQ(render_status({c}).find("intervals goal"), std::string::npos);
	EXPECT_FALSE(to_json(c).contains("tuning"));
}

TEST(Render, StatusShowsTargetsProbesAndArmFailures)
{
	CtxInfo c;
	c.id = 2;
	c.name = "db";
	c.state = CtxState::running;
	Target t;
	t.id = 1;
	t.pid = 99;
	t.nr_regions = 10;
	c.targets.push_back(t);
	Probe p;
	p.idx = 1;
	p.type = 1;
	p.config = 2;
	p.sample_period = 1;
	c.probes.push_back(p);
	c.arm_failures = 3;
	c.attrs.mode = Mode::presence;
	c.attrs.split = Split::random;
	std::string out = render_status({c});

	EXPECT_NE(out.find("context 2 \"db\": vaddr running"),
		  std::string::npos);
	EXPECT_NE(out.find("target 1: pid 99, 10 regions"), std::string::npos);
	EXPECT_NE(out.find("probe 1: type=1 config=0x2 period=1"),
		  std::string::npos);
	EXPECT_NE(out.find("arm failures: 3"), std::string::npos);
	EXPECT_NE(out.find("mode presence; split random;"), std::string::npos);
	EXPECT_NE(render_status({}).find("no contexts"), std::string::npos);

	auto j = to_json(c);
	EXPECT_EQ(j["state"], "running");
	EXPECT_EQ(j["targets"][0]["pid"], 99);
	EXPECT_EQ(j["arm_failures"], 3);
	EXPECT_EQ(j["attrs"]["split"], "random");
}

TEST(Render, StatsTableTotalOnlyOrPerCpu)
{
	StatsRow c0{0, 4, "running", {{"callback", 5}, {"enqueue", 4}}};
	StatsRow c1{1, 4, "running", {{"callback", 6}, {"enqueue", 6}}};
	StatsRow tot{std::nullopt,
		     4,
		     "running",
		     {{"callback", 11}, {"enqueue", 10}}};
	std::vector<StatsRow> rows{c0, c1, tot};

	std::string total = render_stats(rows, false);
	EXPECT_EQ(total.find("cpu0"), std::string::npos);
	EXPECT_NE(total.find("total"), std::string::npos);
	EXPECT_NE(total.find("11"), std::string::npos);
	std::string per = render_stats(rows, true);
	EXPECT_NE(per.find("cpu0"), std::string::npos);
	EXPECT_NE(per.find("cpu1"), std::string::npos);

	auto j = to_json(tot);
	EXPECT_EQ(j["cpu"], "total");
	EXPECT_EQ(j["counters"]["enqueue"], 10);
}

TEST(Render, OpenMetricsIsWellFormed)
{
	StatsRow c0{0, 4, "running", {{"callback", 5}, {"ring_peak", 9}}};
	StatsRow tot{std::nullopt,
		     4,
		     "running",
		     {{"callback", 5}, {"ring_peak", 9}}};
	std::string out = render_openmetrics({c0, tot});

	EXPECT_NE(out.find("# TYPE damon_perf_callback counter\n"),
		  std::string::npos);
	EXPECT_NE(out.find("damon_perf_callback_total{cpu=\"0\"} 5\n"),
		  std::string::npos);
	EXPECT_NE(out.find("# TYPE damon_perf_ring_peak gauge\n"),
		  std::string::npos);
	EXPECT_NE(out.find("damon_perf_ring_peak{cpu=\"0\"} 9\n"),
		  std::string::npos);
	EXPECT_NE(
		out.find("damon_perf_cpu_state{cpu=\"0\",state=\"running\"} 4"),
		std::string::npos);
	// the total row is not exported (it would double count)
	EXPECT_EQ(count(out, "damon_perf_callback_total{"), 1u);
	ASSERT_GE(out.size(), 6u);
	EXPECT_EQ(out.substr(out.size() - 6), "# EOF\n");
}

TEST(Render, HeatmapHasTheAskedSizeAndFollowsTheHotSpot)
{
	std::vector<Aggregation> aggs;
	// the hot region moves from the first to the last of 4 regions
	for (uint64_t i = 0; i < 4; i++) {
		std::vector<uint32_t> acc(4, 0);
		acc[i] = 10;
		aggs.push_back(agg(i + 1, acc));
	}
	std::string out = render_heatmap(aggs, 4, 4);
	std::istringstream in(out);
	std::string line;
	std::vector<std::string> rows;

	std::getline(in, line); // title
	while (std::getline(in, line))
		rows.push_back(line.substr(line.find('|') + 1, 4));
	ASSERT_EQ(rows.size(), 4u);
	for (size_t r = 0; r < 4; r++)
		for (size_t c = 0; c < 4; c++)
			EXPECT_EQ(rows[r][c] == '@', r == c)
				<< "row " << r << " col " << c << "\n"
				<< out;
	EXPECT_EQ(render_heatmap({}, 4, 4), "no regions to draw\n");
}

TEST(Render, HeatmapLeavesGapsOutOfTheAddressAxis)
{
	// two 1 MiB regions 100 GiB apart: over raw addresses both would fall
	// into the first and last of 4 rows; over covered bytes each gets 2
	Aggregation a = agg(1, {0});
	a.regions.clear();
	Region lo_r{}, hi_r{};
	lo_r.start = 0x10000000;
	lo_r.end = lo_r.start + (1u << 20);
	lo_r.nr_accesses = 5;
	hi_r.start = lo_r.start + (100ull << 30);
	hi_r.end = hi_r.start + (1u << 20);
	hi_r.nr_accesses = 0;
	a.regions = {lo_r, hi_r};
	HeatmapSpec spec;
	spec.rows = 4;
	spec.cols = 1;
	spec.all_ranges = true; // by default the idle range is left out
	std::string out = render_heatmap({a}, spec);
	std::istringstream in(out);
	std::string line;
	std::vector<std::string> rows;

	std::getline(in, line); // title
	EXPECT_NE(line.find("1 gap(s) left out"), std::string::npos) << line;
	while (std::getline(in, line))
		rows.push_back(line.substr(line.find('|') + 1, 1));
	ASSERT_EQ(rows.size(), 4u) << out;
	EXPECT_EQ(rows[0], "@") << out;
	EXPECT_EQ(rows[1], "@") << out;
	EXPECT_EQ(rows[2], " ") << out;
	EXPECT_EQ(rows[3], " ") << out;
	EXPECT_NE(out.find("0x10080000"), std::string::npos) << out;
}

TEST(Recording, RoundTripsThroughJsonLines)
{
	std::vector<Aggregation> in{agg(1, {1, 2}), agg(2, {0, 5, 3})};
	Target t;
	t.id = 1;
	t.pid = 42;
	in[1].targets.push_back(t);
	std::stringstream ss;

	for (const auto &a : in)
		write_aggregation(ss, a);
	ss << "\n"; // blank lines are fine
	EXPECT_EQ(read_recording(ss), in);
}

TEST(Recording, BadLinesAreUsageErrorsNamingTheLine)
{
	std::stringstream bad("{\"ctx_id\": 1}\n");
	std::stringstream notjson("\n\nnot json\n");

	try {
		read_recording(bad);
		FAIL();
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find("line 1"),
			  std::string::npos);
	}
	try {
		read_recording(notjson);
		FAIL();
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find("line 3"),
			  std::string::npos)
			<< e.what();
	}
}

TEST(Render, HumanSizes)
{
	EXPECT_EQ(human_size(512), "512 B");
	EXPECT_EQ(human_size(4096), "4.0 KiB");
	EXPECT_EQ(human_size(3ULL << 30), "3.0 GiB");
}

namespace {

// An environment variable set (or unset, @value nullptr) for a scope.
class ScopedEnv {
public:
	ScopedEnv(const char *name, const char *value)
		: name_(name)
	{
		const char *old = std::getenv(name);

		had_ = old != nullptr;
		if (had_)
			old_ = old;
		if (value)
			setenv(name, value, 1);
		else
			unsetenv(name);
	}
	~ScopedEnv()
	{
		if (had_)
			setenv(name_, old_.c_str(), 1);
		else
			unsetenv(name_);
	}
	ScopedEnv(const ScopedEnv &) = delete;
	ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
	const char *name_;
	bool had_ = false;
	std::string old_;
};

// stdout on a pseudo-terminal (or on /dev/null, @tty false) for a scope.
class ScopedStdout {
public:
	explicit ScopedStdout(bool tty)
	{
		std::fflush(stdout);
		saved_ = dup(STDOUT_FILENO);
		if (tty) {
			master_ = posix_openpt(O_RDWR | O_NOCTTY);
			if (master_ >= 0 && grantpt(master_) == 0 &&
			    unlockpt(master_) == 0)
				fd_ = open(ptsname(master_), O_RDWR | O_NOCTTY);
		} else {
			fd_ = open("/dev/null", O_WRONLY);
		}
		ok_ = saved_ >= 0 && fd_ >= 0 && dup2(fd_, STDOUT_FILENO) >= 0;
	}
	~ScopedStdout()
	{
		std::fflush(stdout);
		if (saved_ >= 0) {
			dup2(saved_, STDOUT_FILENO);
			close(saved_);
		}
		if (fd_ >= 0)
			close(fd_);
		if (master_ >= 0)
			close(master_);
	}
	ScopedStdout(const ScopedStdout &) = delete;
	ScopedStdout &operator=(const ScopedStdout &) = delete;
	bool ok() const { return ok_; }

private:
	int saved_ = -1;
	int fd_ = -1;
	int master_ = -1;
	bool ok_ = false;
};

} // namespace

TEST(Terminal, ColourAndRedrawOnATerminal)
{
	ScopedEnv term("TERM", "xterm-256color");
	ScopedEnv no("NO_COLOR", nullptr);
	ScopedStdout out(true);
	bool escapes = stdout_takes_escapes();
	bool colour = stdout_takes_colour();

	ASSERT_TRUE(out.ok());
	EXPECT_TRUE(escapes);
	EXPECT_TRUE(colour);
}

TEST(Terminal, EmptyNoColorStillColours)
{
	ScopedEnv term("TERM", "xterm");
	ScopedEnv no("NO_COLOR", "");
	ScopedStdout out(true);
	bool colour = stdout_takes_colour();

	ASSERT_TRUE(out.ok());
	EXPECT_TRUE(colour);
}

TEST(Terminal, NoColorKeepsRedrawOnly)
{
	ScopedEnv term("TERM", "xterm");
	ScopedEnv no("NO_COLOR", "1");
	ScopedStdout out(true);
	bool escapes = stdout_takes_escapes();
	bool colour = stdout_takes_colour();

	ASSERT_TRUE(out.ok());
	EXPECT_TRUE(escapes);
	EXPECT_FALSE(colour);
}

TEST(Terminal, DumbTerminalTakesNoEscapes)
{
	ScopedEnv term("TERM", "dumb");
	ScopedEnv no("NO_COLOR", nullptr);
	ScopedStdout out(true);
	bool escapes = stdout_takes_escapes();
	bool colour = stdout_takes_colour();

	ASSERT_TRUE(out.ok());
	EXPECT_FALSE(escapes);
	EXPECT_FALSE(colour);
}

TEST(Terminal, NotATerminalTakesNoEscapes)
{
	ScopedEnv term("TERM", "xterm-256color");
	ScopedEnv no("NO_COLOR", nullptr);
	ScopedStdout out(false);
	bool escapes = stdout_takes_escapes();
	bool colour = stdout_takes_colour();

	ASSERT_TRUE(out.ok());
	EXPECT_FALSE(escapes);
	EXPECT_FALSE(colour);
}
