// SPDX-License-Identifier: GPL-2.0
// damonctl export: the textfile's metrics (values from a known aggregation,
// Prometheus text format rules) and its atomic write.
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.hpp"
#include "textfile.hpp"

using namespace damonctl;

namespace {

// Regions of 4 KiB at @base with these nr_accesses; probe 1 hits as many
// times as the accesses, probe 2 once per accessed region.
Aggregation agg(std::vector<uint32_t> accesses, uint64_t size = 0x1000)
{
	Aggregation a;

	a.ctx_id = 3;
	a.seq = 42;
	a.aggr_us = 100000;
	for (size_t i = 0; i < accesses.size(); i++) {
		Region r;
		r.target_id = 1;
		r.start = 0x10000 + i * size;
		r.end = r.start + size;
		r.nr_accesses = accesses[i];
		r.probe_hits = {accesses[i], accesses[i] ? 1u : 0u};
		a.regions.push_back(r);
	}
	a.nr_regions = uint32_t(a.regions.size());
	return a;
}

CtxSnapshot snap(const std::string &name, std::optional<Aggregation> a)
{
	CtxSnapshot s;

	s.ctx.id = 3;
	s.ctx.name = name;
	s.ctx.state = CtxState::running;
	s.ctx.targets.resize(1);
	s.ctx.probes.resize(2);
	s.ctx.probes[0].event = "page-faults";
	s.ctx.stale_drops = 17;
	s.ctx.arm_failures = 2;
	s.agg = std::move(a);
	return s;
}

std::vector<StatsRow> stats()
{
	std::vector<StatsRow> rows(3);

	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		rows[cpu].cpu = cpu;
		rows[cpu].state = 4;
		rows[cpu].state_name = "running";
		rows[cpu].counters = {{"callback", 10 + cpu},
				      {"overflow", cpu},
				      {"ring_peak", 5}};
	}
	rows[2].counters = {
		{"callback", 21}, {"overflow", 1}, {"ring_peak", 5}};
	return rows;
}

// sample name{labels} -> value, for every sample line
std::map<std::string, std::string> samples(const std::string &text)
{
	std::map<std::string, std::string> m;
	std::istringstream in(text);
	std::string line;

	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		auto sp = line.rfind(' ');
		m[line.substr(0, sp)] = line.substr(sp + 1);
	}
	return m;
}

// The Prometheus text format as node_exporter's parser wants it: every
// sample's name declared by one TYPE line (the counter's own _total name)
// before its samples, families not split, valid names and values.
void expect_prometheus(const std::string &text)
{
	static const std::regex type_re(
		"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$");
	static const std::regex help_re(
		"^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$");
	static const std::regex sample_re(
		"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([a-zA-Z_][a-zA-Z0-9_]*=\""
		"([^\"\\\\\\n]|\\\\.)*\",?)*\\})? [0-9]+$");
	std::set<std::string> declared, done;
	std::string current;
	std::istringstream in(text);
	std::string line;
	std::smatch m;

	while (std::getline(in, line)) {
		if (std::regex_match(line, m, type_re)) {
			EXPECT_TRUE(declared.insert(m[1]).second)
				<< "second TYPE for " << m[1];
			if (!current.empty())
				done.insert(current);
			current = m[1];
			if (m[2] == "counter") {
				EXPECT_EQ(current.substr(current.size() - 6),
					  "_total");
			}
			continue;
		}
		if (std::regex_match(line, m, help_re)) {
			EXPECT_EQ(m[1], current) << line;
			continue;
		}
		ASSERT_NE(line.rfind("# EOF", 0), 0u) << "OpenMetrics EOF";
		ASSERT_TRUE(std::regex_match(line, m, sample_re)) << line;
		EXPECT_EQ(m[1], current)
			<< "sample outside its family: " << line;
		EXPECT_EQ(done.count(m[1]), 0u) << "family split: " << line;
	}
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;

	ss << f.rdbuf();
	return ss.str();
}

class TempDir {
public:
	TempDir()
	{
		char t[] = "/tmp/damonctl-textfile-XXXXXX";
		path_ = mkdtemp(t);
	}
	~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

} // namespace

TEST(Textfile, PerContextValues)
{
	// 6 regions of 4 KiB: accesses 0 0 1 2 6 5 (max 6: hot from 3)
	auto text = render_textfile({snap("app", agg({0, 0, 1, 2, 6, 5}))},
				    stats(), {});
	auto m = samples(text);

	EXPECT_EQ(m["damon_perf_up"], "1");
	EXPECT_EQ(m["damon_perf_ctx_info{ctx=\"app\",id=\"3\",ops=\"vaddr\","
		    "state=\"running\"}"],
		  "1");
	EXPECT_EQ(m["damon_perf_ctx_running{ctx=\"app\"}"], "1");
	EXPECT_EQ(m["damon_perf_ctx_regions{ctx=\"app\"}"], "6");
	EXPECT_EQ(m["damon_perf_ctx_aggregation_seq{ctx=\"app\"}"], "42");
	EXPECT_EQ(m["damon_perf_ctx_monitored_bytes{ctx=\"app\"}"], "24576");
	EXPECT_EQ(m["damon_perf_ctx_working_set_bytes{ctx=\"app\"}"], "16384");
	EXPECT_EQ(m["damon_perf_ctx_hot_min_accesses{ctx=\"app\"}"], "3");
	EXPECT_EQ(m["damon_perf_ctx_hot_bytes{ctx=\"app\"}"], "8192");
	EXPECT_EQ(m["damon_perf_ctx_samples{ctx=\"app\",probe=\"1\","
		    "event=\"page-faults\"}"],
		  "14");
	EXPECT_EQ(m["damon_perf_ctx_samples{ctx=\"app\",probe=\"2\"}"], "4");
	EXPECT_EQ(m["damon_perf_ctx_drops_total{ctx=\"app\",reason=\"stale\"}"],
		  "17");
	EXPECT_EQ(m["damon_perf_ctx_arm_failures_total{ctx=\"app\"}"], "2");
	// the per-CPU counters are stats --openmetrics' own, per CPU
	EXPECT_EQ(m["damon_perf_callback_total{cpu=\"1\"}"], "11");
	EXPECT_EQ(m["damon_perf_overflow_total{cpu=\"0\"}"], "0");
	EXPECT_EQ(m["damon_perf_ring_peak{cpu=\"0\"}"], "5");
	expect_prometheus(text);
}

TEST(Textfile, ThresholdsOtherThanDefault)
{
	TextfileOptions o;
	o.wss_min = 2;
	o.hot_min = 6;
	auto m = samples(render_textfile(
		{snap("app", agg({0, 0, 1, 2, 6, 5}, 0x200000))}, stats(), o));

	EXPECT_EQ(m["damon_perf_ctx_working_set_bytes{ctx=\"app\"}"],
		  std::to_string(3 * 0x200000));
	EXPECT_EQ(m["damon_perf_ctx_hot_bytes{ctx=\"app\"}"],
		  std::to_string(0x200000));
	EXPECT_EQ(m["damon_perf_ctx_hot_min_accesses{ctx=\"app\"}"], "6");
	// a single access at most: hot from 1
	EXPECT_EQ(hot_threshold(agg({1, 0, 1}), {}), 1u);
	EXPECT_EQ(hot_threshold(agg({0, 0}), {}), 1u);
	EXPECT_EQ(hot_threshold(agg({7}), {}), 4u);
}

TEST(Textfile, ManyContextsOneFamilyEach)
{
	// a context without aggregation yet, a name that needs escaping, and
	// one with regions: each family declared once, samples grouped
	auto stopped = snap("idle", std::nullopt);
	stopped.ctx.state = CtxState::configured;
	auto text = render_textfile(
		{stopped, snap("a\"b\\c", agg({1, 3})), snap("db", agg({2}))},
		stats(), {});
	auto m = samples(text);

	expect_prometheus(text);
	EXPECT_EQ(m["damon_perf_ctx_running{ctx=\"idle\"}"], "0");
	EXPECT_EQ(m.count("damon_perf_ctx_regions{ctx=\"idle\"}"), 0u);
	EXPECT_EQ(m["damon_perf_ctx_regions{ctx=\"a\\\"b\\\\c\"}"], "2");
	EXPECT_EQ(m["damon_perf_ctx_regions{ctx=\"db\"}"], "1");
	EXPECT_EQ(
		m["damon_perf_ctx_drops_total{ctx=\"idle\",reason=\"stale\"}"],
		"17");
}

TEST(Textfile, NoContextsAndModuleDown)
{
	auto text = render_textfile({}, stats(), {});

	expect_prometheus(text);
	EXPECT_EQ(text.find("damon_perf_ctx_"), std::string::npos);
	EXPECT_EQ(samples(render_textfile_down())["damon_perf_up"], "0");
	expect_prometheus(render_textfile_down());
}

TEST(Textfile, OpenMetricsUnchangedForStats)
{
	auto om = render_openmetrics(stats());

	EXPECT_NE(om.find("# TYPE damon_perf_callback counter\n"),
		  std::string::npos);
	EXPECT_NE(om.find("damon_perf_callback_total{cpu=\"0\"} 10\n"),
		  std::string::npos);
	EXPECT_EQ(om.substr(om.size() - 6), "# EOF\n");
}

TEST(TextfileWrite, ReplacesAtomically)
{
	TempDir d;
	std::string dst = d.path() + "/damon_perf.prom";
	struct stat before, after;

	write_atomic(d.path(), "damon_perf.prom", "first 1\n");
	EXPECT_EQ(slurp(dst), "first 1\n");
	// a reader that opened the old file keeps reading the old content:
	// the new file is another inode renamed over it, not a rewrite
	std::ifstream reader(dst);
	ASSERT_EQ(stat(dst.c_str(), &before), 0);
	std::string big(1 << 20, 'x');
	write_atomic(d.path(), "damon_perf.prom", big);
	ASSERT_EQ(stat(dst.c_str(), &after), 0);
	EXPECT_NE(before.st_ino, after.st_ino);
	EXPECT_EQ(slurp(dst), big);
	std::string old;
	std::getline(reader, old);
	EXPECT_EQ(old, "first 1");
	EXPECT_EQ(access((d.path() + "/.damon_perf.prom.tmp").c_str(), F_OK),
		  -1);
	// readable by node_exporter, whatever the umask lets through
	EXPECT_EQ(after.st_mode & 0600, 0600u);
}

TEST(TextfileWrite, FailuresLeaveNothingBehind)
{
	TempDir d;

	EXPECT_THROW(
		write_atomic(d.path() + "/missing", "damon_perf.prom", "x"),
		std::system_error);
	// the destination is a directory: the rename fails, the temporary
	// file is removed, the directory stays
	ASSERT_EQ(mkdir((d.path() + "/damon_perf.prom").c_str(), 0755), 0);
	ASSERT_EQ(mkdir((d.path() + "/damon_perf.prom/sub").c_str(), 0755), 0);
	EXPECT_THROW(write_atomic(d.path(), "damon_perf.prom", "x 1\n"),
		     std::system_error);
	EXPECT_EQ(access((d.path() + "/.damon_perf.prom.tmp").c_str(), F_OK),
		  -1);
	struct stat st;
	ASSERT_EQ(stat((d.path() + "/damon_perf.prom").c_str(), &st), 0);
	EXPECT_TRUE(S_ISDIR(st.st_mode));
}
