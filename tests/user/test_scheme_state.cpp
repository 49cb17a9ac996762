// SPDX-License-Identifier: GPL-2.0
// The unattended engine of `damonctl schemes`: the maps parser, targets
// that exec or exit (real child processes), the CPU budget's token
// bucket, the state file and how status and export render it, a schemes
// file with contexts, and the loop over a fake module that goes away and
// comes back.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_transport.hpp"
#include "scheme_procs.hpp"
#include "scheme_state.hpp"

using namespace damonctl;
using nlohmann::json;

namespace {

const uint64_t MS = 1000000;
const uint64_t SEC = 1000 * MS;

// A child that waits for a byte on a pipe, then execs /bin/sleep
// (or exits with @exit_instead).
struct Child {
	pid_t pid = -1;
	int wfd = -1;

	explicit Child(bool exit_instead = false)
	{
		int p[2];
		if (pipe(p))
			std::abort();
		pid = fork();
		if (pid == 0) {
			char c;
			close(p[1]);
			if (read(p[0], &c, 1) != 1 || exit_instead)
				_exit(0);
			execl("/bin/sleep", "sleep", "30", nullptr);
			_exit(127);
		}
		close(p[0]);
		wfd = p[1];
	}
	void go()
	{
		char c = 'x';
		if (write(wfd, &c, 1) != 1)
			std::abort();
	}
	~Child()
	{
		if (wfd >= 0)
			close(wfd);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
	}
};

int errno_of(TargetProcs &p, uint32_t pid)
{
	try {
		p.mappings(pid);
	} catch (const std::system_error &e) {
		return e.code().value();
	}
	return 0;
}

} // namespace

TEST(SchemeProcs, ParseMapsSkipsKernelPagesAndGuards)
{
	auto m = parse_maps(
		"55d0a0000000-55d0a0001000 r--p 00000000 08:01 1234 /bin/x\n"
		"7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
		"7f0000100000-7f0000101000 ---p 00000000 00:00 0 \n"
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
		"7ffc00100000-7ffc00102000 r-xp 00000000 00:00 0 [vdso]\n"
		"7ffc00102000-7ffc00104000 r--p 00000000 00:00 0 [vvar]\n"
		"garbage\n");

	ASSERT_EQ(m.size(), 3u);
	EXPECT_EQ(m[0].start, 0x55d0a0000000u);
	EXPECT_FALSE(m[0].anon);
	EXPECT_EQ(m[1].end, 0x7f0000100000u);
	EXPECT_TRUE(m[1].anon);
	EXPECT_TRUE(m[2].anon); // [stack]
}

TEST(SchemeProcs, ExecIsFollowedAndCountedExitSaidOnce)
{
	Child c;
	TargetProcs p;

	auto before = p.mappings(uint32_t(c.pid));
	ASSERT_FALSE(before.empty());
	EXPECT_EQ(p.events().execs, 0u);
	c.go();
	// the kept maps read the old program's address space until the
	// exec replaces it; then the new program's are read
	for (int i = 0; i < 500 && p.events().execs == 0; i++) {
		EXPECT_FALSE(p.mappings(uint32_t(c.pid)).empty());
		usleep(10000);
	}
	EXPECT_EQ(p.events().execs, 1u);
	EXPECT_EQ(p.events().exits, 0u);
	EXPECT_TRUE(p.alive(uint32_t(c.pid)));
	auto msgs = p.take_messages();
	ASSERT_EQ(msgs.size(), 1u);
	EXPECT_NE(msgs[0].find("new program (exec)"), std::string::npos);

	// a zombie: alive to a signal, but no address space
	kill(c.pid, SIGKILL);
	for (int i = 0; i < 500 && errno_of(p, uint32_t(c.pid)) == 0; i++)
		usleep(10000);
	EXPECT_EQ(errno_of(p, uint32_t(c.pid)), ESRCH);
	waitpid(c.pid, nullptr, 0);
	uint32_t pid = uint32_t(c.pid);
	c.pid = -1;
	EXPECT_EQ(errno_of(p, pid), ESRCH);
	EXPECT_FALSE(p.alive(pid));
	EXPECT_LT(p.pidfd(pid), 0);
	EXPECT_EQ(p.events().exits, 1u);
	EXPECT_EQ(p.events().execs, 1u);
	msgs = p.take_messages();
	ASSERT_EQ(msgs.size(), 1u) << "said once";
	EXPECT_NE(msgs[0].find("exited"), std::string::npos);
	EXPECT_TRUE(p.take_messages().empty());
}

TEST(SchemeProcs, PidNeverSeenAndGoneIsAnExit)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, nullptr, 0);

	TargetProcs p;
	EXPECT_EQ(errno_of(p, uint32_t(pid)), ESRCH);
	EXPECT_EQ(errno_of(p, uint32_t(pid)), ESRCH);
	EXPECT_EQ(p.events().exits, 1u);
	EXPECT_EQ(p.take_messages().size(), 1u);
}

TEST(SchemeProcs, EpermNotedOnce)
{
	Child c;
	TargetProcs p;

	p.note_eperm(uint32_t(c.pid));
	p.note_eperm(uint32_t(c.pid));
	EXPECT_EQ(p.events().eperm, 1u);
	auto msgs = p.take_messages();
	ASSERT_EQ(msgs.size(), 1u);
	EXPECT_NE(msgs[0].find("no permission"), std::string::npos);
	// and, as root, a process not ours is not refused by the kernel:
	// mappings of init (pid 1) read or EPERM, never anything else
	int err = errno_of(p, 1);
	EXPECT_TRUE(err == 0 || err == EPERM) << err;
}

TEST(SchemeCpuBudget, NoBudgetAdmitsEverything)
{
	CpuBudget b(0);

	for (uint64_t i = 0; i < 100; i++)
		EXPECT_TRUE(b.admit(i * MS, i * SEC));
	EXPECT_EQ(b.deferred(), 0u);
}

TEST(SchemeCpuBudget, HoldsTheCostUnderTheBudget)
{
	// 1 % of one CPU; a pass every 100 ms costing 5 ms (5 %): about
	// one in five may run
	const uint32_t budget = 100;
	CpuBudget b(budget);
	uint64_t wall = 0, cpu = 0, run = 0;
	const uint64_t n = 2000;

	for (uint64_t i = 0; i < n; i++) {
		wall += 100 * MS;
		if (b.admit(wall, cpu)) {
			run++;
			cpu += 5 * MS;
		}
	}
	EXPECT_EQ(run + b.deferred(), n);
	// CPU <= budget x wall + one second's worth + one pass
	EXPECT_LE(cpu, wall / 100 + SEC / 100 + 5 * MS);
	// and the budget is used, not wasted: at least 90 % of it
	EXPECT_GE(cpu * 10, wall / 100 * 9);
	EXPECT_GT(b.deferred(), n / 2);
}

TEST(SchemeCpuBudget, CheapPassesAreNeverDeferred)
{
	CpuBudget b(50); // 0.5 %: 0.5 ms per 100 ms
	uint64_t wall = 0, cpu = 0;

	for (int i = 0; i < 1000; i++) {
		wall += 100 * MS;
		EXPECT_TRUE(b.admit(wall, cpu));
		cpu += 100000; // 0.1 ms
	}
	EXPECT_EQ(b.deferred(), 0u);
}

TEST(SchemeCpuBudget, IdleTimeBanksAtMostOneSecond)
{
	CpuBudget b(100); // 10 ms per second
	uint64_t wall = 0, cpu = 0;

	EXPECT_TRUE(b.admit(wall, cpu));
	// an hour idle, then 30 ms passes back to back: the credit is
	// one second's worth (10 ms), so the first pass runs and drives it
	// negative; the next ones wait for it to refill
	wall += 3600 * SEC;
	EXPECT_TRUE(b.admit(wall, cpu));
	cpu += 30 * MS;
	EXPECT_FALSE(b.admit(wall + MS, cpu));
	EXPECT_FALSE(b.admit(wall + 1000 * MS, cpu));
	EXPECT_TRUE(b.admit(wall + 2100 * MS, cpu));
	EXPECT_EQ(b.deferred(), 2u);
}

namespace {

json sample_state(bool running, uint32_t pid)
{
	EngineCounters c;
	c.aggregations = 12;
	c.passes = 7;
	c.deferred = 3;
	c.skipped = 2;
	c.process_cpu_ns = 2 * SEC;
	c.wall_ns = 100 * SEC;
	c.module_reloads = 1;
	c.module_unloads = 1;
	c.gap_ns = 1500 * MS;
	c.target_exits = 1;
	c.target_eperm = 2;
	json schemes =
		json::array({{{"name", "demote"},
			      {"action", "migrate_cold"},
			      {"node", 1},
			      {"nr_tried", 4},
			      {"sz_tried", 16384},
			      {"nr_applied", 2},
			      {"sz_applied", 8192},
			      {"qt_exceeds", 1},
			      {"failed_pages", {{"EPERM", 3}, {"ESRCH", 1}}},
			      {"nr_aggregations", 7},
			      {"nr_inactive", 0}}});
	return engine_state_json("tiering", pid, "/etc/damon-perf/t.json",
				 running, 50, {"app"}, c, schemes);
}

std::string tmpdir()
{
	char t[] = "/tmp/damonctl-state-XXXXXX";
	if (!mkdtemp(t))
		std::abort();
	return t;
}

} // namespace

TEST(SchemeState, NamesAndPaths)
{
	EXPECT_EQ(engine_name_of("/etc/damon-perf/tiering.json"), "tiering");
	EXPECT_EQ(engine_name_of("cold"), "cold");
	EXPECT_EQ(engine_name_of("dir/.json"), "schemes");
	EXPECT_EQ(schemes_state_path("tiering"),
		  "/run/damon-perf/schemes-tiering.json");
}

TEST(SchemeState, StatusRendersEveryCounter)
{
	std::string s = render_engine_status({sample_state(true, 1)});

	EXPECT_NE(s.find("schemes engine tiering (pid 1, running)"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("12 aggregations, 7 applied, 3 deferred (cpu "
			 "budget 0.50%), 2 skipped; cpu 2.000 s (2.000% of one "
			 "CPU)"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("module reloads 1 (gone 1 times, 1.500 s"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("targets exited 1, exec'ed 0, no permission 2"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("migrate_cold 1"), std::string::npos) << s;
	EXPECT_NE(s.find("EPERM=3 ESRCH=1"), std::string::npos) << s;
}

TEST(SchemeState, TextfileMetrics)
{
	std::string s = render_engine_textfile({sample_state(false, 1)});
	const std::string l =
		"{engine=\"tiering\",scheme=\"demote\",action=\"migrate_cold\"";

	EXPECT_NE(s.find("damon_perf_schemes_engine_running{engine="
			 "\"tiering\"} 0\n"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("damon_perf_schemes_engine_deferred_total{engine="
			 "\"tiering\"} 3\n"),
		  std::string::npos);
	EXPECT_NE(s.find("damon_perf_schemes_engine_skipped_total{engine="
			 "\"tiering\"} 2\n"),
		  std::string::npos);
	EXPECT_NE(s.find("damon_perf_schemes_engine_cpu_seconds_total{"
			 "engine=\"tiering\"} 2.000000000\n"),
		  std::string::npos);
	EXPECT_NE(s.find("damon_perf_schemes_engine_target_events_total{"
			 "engine=\"tiering\",event=\"eperm\"} 2\n"),
		  std::string::npos);
	EXPECT_NE(s.find("damon_perf_scheme_applied_bytes_total" + l +
			 "} 8192\n"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("damon_perf_scheme_failed_pages_total" + l +
			 ",errno=\"EPERM\"} 3\n"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("# TYPE damon_perf_scheme_tried_total counter\n"),
		  std::string::npos);
	EXPECT_TRUE(render_engine_textfile({}).empty());
}

TEST(SchemeState, ReadStatesMarksDeadEnginesStale)
{
	std::string d = tmpdir();
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, nullptr, 0);

	std::ofstream(d + "/schemes-a.json")
		<< sample_state(true, uint32_t(getpid())).dump();
	json b = sample_state(true, uint32_t(dead));
	b["engine"] = "b";
	b["contexts"] = {"other"};
	std::ofstream(d + "/schemes-b.json") << b.dump();
	std::ofstream(d + "/schemes-c.json") << "{not json";
	std::ofstream(d + "/other.json") << sample_state(true, 1).dump();

	auto st = read_engine_states(d);
	ASSERT_EQ(st.size(), 2u);
	EXPECT_TRUE(st[0]["running"].get<bool>());
	EXPECT_FALSE(st[0].contains("stale"));
	EXPECT_FALSE(st[1]["running"].get<bool>());
	EXPECT_TRUE(st[1]["stale"].get<bool>());
	EXPECT_EQ(engines_for(st, {}).size(), 2u);
	auto only = engines_for(st, {"other"});
	ASSERT_EQ(only.size(), 1u);
	EXPECT_EQ(only[0]["engine"], "b");
	EXPECT_TRUE(engines_for(st, {"none"}).empty());
	EXPECT_TRUE(read_engine_states(d + "/missing").empty());
	std::system(("rm -rf " + d).c_str());
}

namespace {

// A schemes file with a context to start and keep.
std::string engine_file(const std::string &dir)
{
	std::string f = dir + "/eng.json";
	std::ofstream(f)
		<< R"({"contexts": [{"name": "app", "targets": [{"pid": 1}],
  "probes": ["page-faults"]}],
 "schemes": [{"name": "s", "action": "stat"}]})";
	return f;
}

int run(test::FakeTransport &t, const std::vector<std::string> &args)
{
	std::vector<const char *> argv{"damonctl"};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	return run_main(int(argv.size()), argv.data(), t, t);
}

} // namespace

TEST(SchemeRun, CheckPrintsTheContextsToo)
{
	std::string d = tmpdir();
	test::FakeTransport t;

	testing::internal::CaptureStdout();
	EXPECT_EQ(run(t, {"schemes", "-c", engine_file(d), "--check"}), 0);
	std::string out = testing::internal::GetCapturedStdout();
	EXPECT_NE(out.find("context app: 1 targets, 1 probes"),
		  std::string::npos)
		<< out;
	EXPECT_NE(out.find("s: stat"), std::string::npos);
	EXPECT_TRUE(t.calls.empty());
	std::system(("rm -rf " + d).c_str());
}

TEST(SchemeRun, StartsItsContextStatsAndDeletesItAtTheEnd)
{
	std::string d = tmpdir();
	test::FakeTransport t;
	Aggregation a;

	a.ctx_id = 1;
	a.ctx_name = "app";
	a.seq = 1;
	a.aggr_us = 100000;
	Region r;
	r.start = 0x1000;
	r.end = 0x3000;
	a.regions.push_back(r);
	a.targets.push_back(Target{});
	t.notifications.push_back(a);
	t.notifications.push_back(a);

	testing::internal::CaptureStdout();
	testing::internal::CaptureStderr();
	int rc = run(t, {"schemes", "-c", engine_file(d), "--json", "-n", "2",
			 "--state", d + "/schemes-eng.json", "--cpu-budget",
			 "0.5"});
	std::string out = testing::internal::GetCapturedStdout();
	std::string err = testing::internal::GetCapturedStderr();
	ASSERT_EQ(rc, 0) << err;
	EXPECT_EQ(t.count("ctx_new app"), 1u);
	EXPECT_EQ(t.count("subscribe"), 1u);
	EXPECT_EQ(t.count("ctx_del"), 1u) << "the context it started ends";
	json j = json::parse(out);
	EXPECT_EQ(j["aggregations"], 2);
	EXPECT_EQ(j["passes"].get<uint64_t>() + j["deferred"].get<uint64_t>(),
		  2u);
	EXPECT_EQ(j["cpu_budget"], 50);
	EXPECT_EQ(j["contexts_created"], 1);
	EXPECT_EQ(j["running"], false);
	EXPECT_EQ(j["schemes"][0]["sz_tried"].get<uint64_t>(),
		  0x2000 * j["passes"].get<uint64_t>());
	std::ifstream in(d + "/schemes-eng.json");
	json st = json::parse(in);
	EXPECT_EQ(st["aggregations"], 2);
	EXPECT_EQ(st["running"], false);
	std::system(("rm -rf " + d).c_str());
}

TEST(SchemeRun, BadBudgetIsAUsageError)
{
	std::string d = tmpdir();
	test::FakeTransport t;

	testing::internal::CaptureStderr();
	EXPECT_EQ(run(t,
		      {"schemes", "-c", engine_file(d), "--cpu-budget", "101"}),
		  EXIT_USAGE);
	std::string err = testing::internal::GetCapturedStderr();
	EXPECT_NE(err.find("--cpu-budget"), std::string::npos) << err;
	EXPECT_TRUE(t.calls.empty());
	std::system(("rm -rf " + d).c_str());
}

// The engine takes a percentage of the context's maximum nr_accesses,
// aggr_us / sample_us: the sample interval, which no notification
// carries, comes from the context (CTX_GET). Here 500 ms of 25 ms
// samples: "20%" is 4, though the aggregation's highest is 4.
TEST(SchemeRun, PercentOfTheContextsSampleInterval)
{
	std::string d = tmpdir();
	test::FakeTransport t;
	std::string f = d + "/pct.json";
	std::ofstream(f)
		<< R"({"contexts": [{"name": "app", "targets": [{"pid": 1}],
  "intervals": {"sample_us": 25000, "aggr_us": 500000},
  "probes": ["page-faults"]}],
 "schemes": [{"name": "s", "action": "stat",
	      "pattern": {"nr_accesses": {"min": "20%"}}}]})";
	Aggregation a;
	a.ctx_id = 1;
	a.ctx_name = "app";
	a.seq = 1;
	a.aggr_us = 500000;
	Region hot, warm;
	hot.start = 0x1000;
	hot.end = 0x3000;
	hot.nr_accesses = 4;
	warm.start = 0x3000;
	warm.end = 0x9000;
	warm.nr_accesses = 1;
	a.regions = {hot, warm};
	a.targets.push_back(Target{});
	t.notifications.push_back(a);
	a.seq = 2;
	t.notifications.push_back(a);

	testing::internal::CaptureStdout();
	testing::internal::CaptureStderr();
	int rc = run(t, {"schemes", "-c", f, "--json", "-n", "2", "--state",
			 d + "/schemes-pct.json"});
	std::string out = testing::internal::GetCapturedStdout();
	std::string err = testing::internal::GetCapturedStderr();
	ASSERT_EQ(rc, 0) << err;
	json j = json::parse(out);
	EXPECT_EQ(j["passes"], 2);
	EXPECT_EQ(j["schemes"][0]["sz_tried"].get<uint64_t>(), 2 * 0x2000u);
	std::system(("rm -rf " + d).c_str());
}
