// SPDX-License-Identifier: GPL-2.0
#include "scheme_state.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <fstream>
#include <map>

#include <dirent.h>
#include <sys/resource.h>

#include <fmt/format.h>

namespace damonctl {

using json = nlohmann::json;

const char *const SCHEMES_STATE_DIR = "/run/damon-perf";

namespace {

// A second's worth of the budget: the most credit kept.
const uint64_t BUDGET_WINDOW_NS = 1000000000;
// the budget's scale: 1/100 % of one CPU
const uint64_t BUDGET_SCALE = 10000;

uint64_t u64(const json &j, const char *key)
{
	auto it = j.find(key);

	if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
		return 0;
	return it->get<uint64_t>();
}

std::string str(const json &j, const char *key)
{
	auto it = j.find(key);

	return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A label value: backslash, double quote and newline escaped.
std::string label(const std::string &v)
{
	std::string out;

	for (char c : v) {
		if (c == '\\' || c == '"')
			out += '\\';
		if (c == '\n') {
			out += "\\n";
			continue;
		}
		out += c;
	}
	return out;
}

std::string budget_string(uint64_t b)
{
	if (!b)
		return "off";
	return fmt::format("{}.{:02}%", b / 100, b % 100);
}

} // namespace

std::string schemes_state_path(const std::string &name)
{
	return std::string(SCHEMES_STATE_DIR) + "/schemes-" + name + ".json";
}

std::string engine_name_of(const std::string &config_path)
{
	std::string base = config_path.substr(config_path.rfind('/') + 1);

	if (base.size() >= 5 && base.compare(base.size() - 5, 5, ".json") == 0)
		base.resize(base.size() - 5);
	return base.empty() ? "schemes" : base;
}

uint64_t process_cpu_ns()
{
	struct rusage ru = {};

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t(ru.ru_utime.tv_sec) + uint64_t(ru.ru_stime.tv_sec)) *
		       1000000000 +
	       (uint64_t(ru.ru_utime.tv_usec) + uint64_t(ru.ru_stime.tv_usec)) *
		       1000;
}

bool CpuBudget::admit(uint64_t wall_ns, uint64_t cpu_ns)
{
	int64_t cap = int64_t(BUDGET_WINDOW_NS * budget_ / BUDGET_SCALE);

	if (!budget_)
		return true;
	if (!started_) {
		started_ = true;
		credit_ = cap;
	} else {
		uint64_t dw = wall_ns > last_wall_ ? wall_ns - last_wall_ : 0;
		uint64_t dc = cpu_ns > last_cpu_ ? cpu_ns - last_cpu_ : 0;
		credit_ +=
			int64_t((unsigned __int128)dw * budget_ / BUDGET_SCALE);
		credit_ -= int64_t(dc);
		credit_ = std::min(credit_, cap);
	}
	last_wall_ = wall_ns;
	last_cpu_ = cpu_ns;
	if (credit_ >= 0)
		return true;
	deferred_++;
	return false;
}

json engine_state_json(const std::string &name, uint32_t pid,
		       const std::string &config, bool running,
		       uint32_t cpu_budget,
		       const std::vector<std::string> &contexts,
		       const EngineCounters &c, const json &schemes)
{
	double cpu_pct =
		c.wall_ns ? double(c.process_cpu_ns) * 100.0 / double(c.wall_ns)
			  : 0.0;

	return {
		{"engine", name},
		{"pid", pid},
		{"config", config},
		{"running", running},
		{"contexts", contexts},
		{"cpu_budget", cpu_budget},
		{"aggregations", c.aggregations},
		{"passes", c.passes},
		{"deferred", c.deferred},
		{"skipped", c.skipped},
		{"engine_cpu_ns", c.engine_cpu_ns},
		{"process_cpu_ns", c.process_cpu_ns},
		{"wall_ns", c.wall_ns},
		{"cpu_percent", std::round(cpu_pct * 1000) / 1000},
		{"module_unloads", c.module_unloads},
		{"module_reloads", c.module_reloads},
		{"gap_ns", c.gap_ns},
		{"contexts_created", c.contexts_created},
		{"targets",
		 {{"exits", c.target_exits},
		  {"execs", c.target_execs},
		  {"eperm", c.target_eperm}}},
		{"schemes", schemes},
	};
}

std::vector<json> read_engine_states(const std::string &dir)
{
	std::vector<std::string> files;
	std::vector<json> out;
	DIR *d = opendir(dir.c_str());

	if (!d)
		return out;
	while (const dirent *e = readdir(d)) {
		std::string n = e->d_name;
		if (n.size() > 13 && n.compare(0, 8, "schemes-") == 0 &&
		    n.compare(n.size() - 5, 5, ".json") == 0)
			files.push_back(dir + "/" + n);
	}
	closedir(d);
	std::sort(files.begin(), files.end());
	for (const auto &f : files) {
		std::ifstream in(f);
		json j = json::parse(in, nullptr, false);
		if (j.is_discarded() || !j.is_object() ||
		    !j.contains("engine") || !j.contains("schemes"))
			continue;
		uint64_t pid = u64(j, "pid");
		if (j.value("running", false) &&
		    (!pid || (kill(pid_t(pid), 0) && errno == ESRCH))) {
			j["running"] = false;
			j["stale"] = true;
		}
		out.push_back(std::move(j));
	}
	return out;
}

std::vector<json> engines_for(const std::vector<json> &states,
			      const std::vector<std::string> &names)
{
	std::vector<json> out;

	for (const auto &s : states) {
		bool take = names.empty();
		for (const auto &c : s.value("contexts", json::array()))
			take = take ||
			       (c.is_string() &&
				std::find(names.begin(), names.end(),
					  c.get<std::string>()) != names.end());
		if (take)
			out.push_back(s);
	}
	return out;
}

std::string render_engine_status(const std::vector<json> &states)
{
	std::string out;

	for (const auto &s : states) {
		std::string ctxs;
		for (const auto &c : s.value("contexts", json::array()))
			ctxs += (ctxs.empty() ? "" : ", ") +
				(c.is_string() ? c.get<std::string>() : "");
		json t = s.value("targets", json::object());
		out += fmt::format(
			"schemes engine {} (pid {}, {}{}), contexts: {}\n",
			str(s, "engine"), u64(s, "pid"),
			s.value("running", false) ? "running" : "not running",
			s.value("stale", false) ? ", stale state" : "",
			ctxs.empty() ? "all" : ctxs);
		out += fmt::format(
			"  {} aggregations, {} applied, {} deferred (cpu "
			"budget {}), {} skipped; cpu {:.3f} s ({:.3f}% of one "
			"CPU), passes {:.3f} s\n",
			u64(s, "aggregations"), u64(s, "passes"),
			u64(s, "deferred"), budget_string(u64(s, "cpu_budget")),
			u64(s, "skipped"),
			double(u64(s, "process_cpu_ns")) / 1e9,
			s.value("cpu_percent", 0.0),
			double(u64(s, "engine_cpu_ns")) / 1e9);
		out += fmt::format(
			"  module reloads {} (gone {} times, {:.3f} s without "
			"aggregations), contexts created {}; targets exited "
			"{}, exec'ed {}, no permission {}\n",
			u64(s, "module_reloads"), u64(s, "module_unloads"),
			double(u64(s, "gap_ns")) / 1e9,
			u64(s, "contexts_created"), u64(t, "exits"),
			u64(t, "execs"), u64(t, "eperm"));
		out += fmt::format("  {:<12} {:<16} {:>9} {:>14} {:>10} "
				   "{:>14} {:>10}  {}\n",
				   "scheme", "action", "nr_tried", "sz_tried",
				   "nr_applied", "sz_applied", "qt_exceeds",
				   "failed pages");
		for (const auto &sc : s.value("schemes", json::array())) {
			std::string action = str(sc, "action");
			if (sc.contains("node"))
				action += " " + sc["node"].dump();
			std::string failed;
			json fp = sc.value("failed_pages", json::object());
			for (auto it = fp.begin(); it != fp.end(); ++it)
				failed += (failed.empty() ? "" : " ") +
					  it.key() + "=" + it.value().dump();
			out += fmt::format(
				"  {:<12} {:<16} {:>9} {:>14} {:>10} {:>14} "
				"{:>10}  {}\n",
				str(sc, "name"), action, u64(sc, "nr_tried"),
				u64(sc, "sz_tried"), u64(sc, "nr_applied"),
				u64(sc, "sz_applied"), u64(sc, "qt_exceeds"),
				failed.empty() ? "-" : failed);
		}
	}
	return out;
}

std::string render_engine_textfile(const std::vector<json> &states)
{
	struct Family {
		const char *name;
		const char *type;
		const char *help;
	};
	static const Family families[] = {
		{"damon_perf_schemes_engine_running", "gauge",
		 "1 while the schemes engine runs"},
		{"damon_perf_schemes_engine_aggregations_total", "counter",
		 "aggregations the engine took"},
		{"damon_perf_schemes_engine_deferred_total", "counter",
		 "aggregations deferred by the engine's CPU budget"},
		{"damon_perf_schemes_engine_skipped_total", "counter",
		 "aggregations lost: the module or the context went away"},
		{"damon_perf_schemes_engine_cpu_seconds_total", "counter",
		 "CPU time of the engine's process"},
		{"damon_perf_schemes_engine_cpu_budget_percent", "gauge",
		 "the engine's CPU budget in percent of one CPU (0: none)"},
		{"damon_perf_schemes_engine_module_reloads_total", "counter",
		 "new instances of the module the engine found"},
		{"damon_perf_schemes_engine_gap_seconds_total", "counter",
		 "time without aggregations around module reloads"},
		{"damon_perf_schemes_engine_target_events_total", "counter",
		 "targets that exited, exec'ed or refused the engine (eperm)"},
		{"damon_perf_scheme_tried_total", "counter",
		 "pieces of regions a scheme tried (DAMOS nr_tried)"},
		{"damon_perf_scheme_tried_bytes_total", "counter",
		 "bytes a scheme tried (DAMOS sz_tried)"},
		{"damon_perf_scheme_applied_total", "counter",
		 "pieces a scheme's action took effect on (DAMOS nr_applied)"},
		{"damon_perf_scheme_applied_bytes_total", "counter",
		 "bytes a scheme's action took effect on (DAMOS sz_applied)"},
		{"damon_perf_scheme_quota_exceeds_total", "counter",
		 "quota windows a scheme used up (DAMOS qt_exceeds)"},
		{"damon_perf_scheme_failed_pages_total", "counter",
		 "pages a scheme's action failed on, by errno"},
		{"damon_perf_scheme_inactive_total", "counter",
		 "aggregations a scheme skipped, its watermarks off"},
		{"damon_perf_scheme_below_floor_total", "counter",
		 "aggregations a scheme skipped, below the sample floor"},
	};
	std::map<std::string, std::string> body;
	auto add = [&body](const char *family, const std::string &labels,
			   const std::string &v) {
		body[family] += fmt::format("{}{{{}}} {}\n", family, labels, v);
	};
	auto num = [](uint64_t v) { return std::to_string(v); };

	for (const auto &s : states) {
		std::string e = "engine=\"" + label(str(s, "engine")) + "\"";
		json t = s.value("targets", json::object());
		add("damon_perf_schemes_engine_running", e,
		    s.value("running", false) ? "1" : "0");
		add("damon_perf_schemes_engine_aggregations_total", e,
		    num(u64(s, "aggregations")));
		add("damon_perf_schemes_engine_deferred_total", e,
		    num(u64(s, "deferred")));
		add("damon_perf_schemes_engine_skipped_total", e,
		    num(u64(s, "skipped")));
		add("damon_perf_schemes_engine_cpu_seconds_total", e,
		    fmt::format("{:.9f}",
				double(u64(s, "process_cpu_ns")) / 1e9));
		add("damon_perf_schemes_engine_cpu_budget_percent", e,
		    fmt::format("{:.2f}", double(u64(s, "cpu_budget")) / 100));
		add("damon_perf_schemes_engine_module_reloads_total", e,
		    num(u64(s, "module_reloads")));
		add("damon_perf_schemes_engine_gap_seconds_total", e,
		    fmt::format("{:.3f}", double(u64(s, "gap_ns")) / 1e9));
		for (const char *ev : {"exits", "execs", "eperm"})
			add("damon_perf_schemes_engine_target_events_total",
			    e + ",event=\"" + ev + "\"", num(u64(t, ev)));
		for (const auto &sc : s.value("schemes", json::array())) {
			std::string l = e + ",scheme=\"" +
					label(str(sc, "name")) +
					"\",action=\"" +
					label(str(sc, "action")) + "\"";
			add("damon_perf_scheme_tried_total", l,
			    num(u64(sc, "nr_tried")));
			add("damon_perf_scheme_tried_bytes_total", l,
			    num(u64(sc, "sz_tried")));
			add("damon_perf_scheme_applied_total", l,
			    num(u64(sc, "nr_applied")));
			add("damon_perf_scheme_applied_bytes_total", l,
			    num(u64(sc, "sz_applied")));
			add("damon_perf_scheme_quota_exceeds_total", l,
			    num(u64(sc, "qt_exceeds")));
			add("damon_perf_scheme_inactive_total", l,
			    num(u64(sc, "nr_inactive")));
			add("damon_perf_scheme_below_floor_total", l,
			    num(u64(sc, "nr_below_floor")));
			json fp = sc.value("failed_pages", json::object());
			for (auto it = fp.begin(); it != fp.end(); ++it)
				add("damon_perf_scheme_failed_pages_total",
				    l + ",errno=\"" + label(it.key()) + "\"",
				    num(u64(fp, it.key().c_str())));
		}
	}
	std::string out;
	for (const auto &f : families) {
		auto it = body.find(f.name);
		if (it == body.end())
			continue;
		out += fmt::format("# TYPE {} {}\n# HELP {} {}\n", f.name,
				   f.type, f.name, f.help);
		out += it->second;
	}
	return out;
}

} // namespace damonctl
