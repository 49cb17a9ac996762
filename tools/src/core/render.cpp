// SPDX-License-Identifier: GPL-2.0
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "errors.hpp"

using nlohmann::json;

namespace damonctl {

namespace {

template <typename T> void put_opt(json &j, const char *key, const T &v)
{
	if (v)
		j[key] = *v;
}

json target_json(const Target &t)
{
	json j = {{"id", t.id}};

	put_opt(j, "pid", t.pid);
	put_opt(j, "start", t.start);
	put_opt(j, "end", t.end);
	if (t.dead)
		j["dead"] = true;
	j["nr_regions"] = t.nr_regions;
	return j;
}

std::string hex(uint64_t v)
{
	return fmt::format("{:#x}", v);
}

std::string target_desc(const Target &t)
{
	if (t.pid)
		return fmt::format("pid {}{}", *t.pid,
				   t.dead ? " (exited)" : "");
	return fmt::format("{}-{}", hex(t.start.value_or(0)),
			   hex(t.end.value_or(0)));
}

std::string probe_desc(const Probe &p)
{
	std::string s = fmt::format("type={} config={}", p.type, hex(p.config));
	if (p.config1)
		s += " config1=" + hex(p.config1);
	if (p.config2)
		s += " config2=" + hex(p.config2);
	s += fmt::format(" {}={}", p.freq ? "freq" : "period", p.sample_period);
	if (p.precise_ip)
		s += fmt::format(" precise_ip={}", p.precise_ip);
	if (p.weight != 1)
		s += fmt::format(" weight={}", p.weight);
	if (p.sample_phys_addr)
		s += " phys_addr";
	if (p.exclude_kernel)
		s += " exclude_kernel";
	if (p.exclude_user)
		s += " exclude_user";
	return s;
}

std::string filter_desc(const Filter &f)
{
	std::string s = (f.allow ? "allow " : "reject ") + to_string(f.type);
	if (!f.cpus.empty())
		s += " cpus " + f.cpus;
	if (!f.tids.empty()) {
		s += " tids ";
		for (size_t i = 0; i < f.tids.size(); i++)
			s += (i ? "," : "") + std::to_string(f.tids[i]);
	}
	return s;
}

uint64_t get_u64(const json &j, const char *key, bool required = true)
{
	if (!j.contains(key)) {
		if (required)
			throw UsageError(std::string("recording: missing \"") +
					 key + "\"");
		return 0;
	}
	if (!j[key].is_number_unsigned())
		throw UsageError(std::string("recording: \"") + key +
				 "\" is not an unsigned number");
	return j[key].get<uint64_t>();
}

// What the intervals tuning chose and why, for status.
std::string tuning_desc(const CtxInfo &c)
{
	const TuningInfo &t = *c.tuning;
	uint64_t goal = c.attrs.samples_goal.value_or(0);
	std::string why;

	if (!t.steps)
		why = fmt::format("no step yet (one per {} aggregations)",
				  c.attrs.goal_aggrs.value_or(0));
	else if (t.samples < goal)
		why = t.aggr_us >= t.max_aggr_us
			      ? "below the goal at the longest interval"
			      : "below the goal, so lengthened";
	else if (t.samples >= 2 * goal)
		why = t.aggr_us <= t.min_aggr_us
			      ? "above twice the goal at the shortest interval"
			      : "above twice the goal, so shortened";
	else
		why = "within the goal";
	std::string periods;
	if (t.period_div > 1)
		periods = fmt::format("; periods may go down to 1/{} of the "
				      "configured, within the CPU budget",
				      t.period_div);
	return fmt::format(
		"  intervals goal: {} samples per aggregation; aggregation "
		"{} us (bounds {}..{} us); last step saw {} samples per "
		"aggregation, {}; {} steps, lengthened {}x, shortened {}x{}\n",
		goal, t.aggr_us, t.min_aggr_us, t.max_aggr_us, t.samples, why,
		t.steps, t.ups, t.downs, periods);
}

} // namespace

std::string human_size(uint64_t bytes)
{
	const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = double(bytes);
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		return fmt::format("{} B", bytes);
	return fmt::format("{:.1f} {}", v, units[u]);
}

json to_json(const CtxInfo &c)
{
	json attrs = json::object();
	put_opt(attrs, "sample_us", c.attrs.sample_us);
	put_opt(attrs, "aggr_us", c.attrs.aggr_us);
	put_opt(attrs, "update_us", c.attrs.update_us);
	put_opt(attrs, "min_nr_regions", c.attrs.min_nr_regions);
	put_opt(attrs, "max_nr_regions", c.attrs.max_nr_regions);
	if (c.attrs.mode)
		attrs["mode"] = to_string(*c.attrs.mode);
	put_opt(attrs, "ring_size", c.attrs.ring_size);
	if (c.attrs.split)
		attrs["split"] = to_string(*c.attrs.split);
	if (c.attrs.cpu_budget)
		attrs["cpu_budget"] = cpu_budget_to_string(*c.attrs.cpu_budget);
	put_opt(attrs, "samples_goal", c.attrs.samples_goal);
	put_opt(attrs, "goal_aggrs", c.attrs.goal_aggrs);
	put_opt(attrs, "min_aggr_us", c.attrs.min_aggr_us);
	put_opt(attrs, "max_aggr_us", c.attrs.max_aggr_us);

	json targets = json::array();
	for (const auto &t : c.targets)
		targets.push_back(target_json(t));
	json probes = json::array();
	for (const auto &p : c.probes) {
		probes.push_back(
			{{"idx", p.idx},
			 {"type", p.type},
			 {"config", p.config},
			 {"config1", p.config1},
			 {"config2", p.config2},
			 {"sample_period", p.sample_period},
			 {"freq", p.freq},
			 {"wakeup_events", p.wakeup_events},
			 {"weight", p.weight},
			 {"precise_ip", p.precise_ip},
			 {"sample_phys_addr", p.sample_phys_addr},
			 {"sample_weight_struct", p.sample_weight_struct},
			 {"exclude_kernel", p.exclude_kernel},
			 {"exclude_hv", p.exclude_hv},
			 {"exclude_user", p.exclude_user}});
		if (p.effective_period)
			probes.back()["effective_period"] = p.effective_period;
	}
	json filters = json::array();
	for (const auto &f : c.filters) {
		json jf = {{"type", to_string(f.type)}, {"allow", f.allow}};
		if (!f.cpus.empty())
			jf["cpus"] = f.cpus;
		if (!f.tids.empty())
			jf["tids"] = f.tids;
		filters.push_back(jf);
	}
	json j = {{"id", c.id},
		  {"name", c.name},
		  {"ops", to_string(c.ops)},
		  {"state", to_string(c.state)},
		  {"attrs", attrs},
		  {"targets", targets},
		  {"probes", probes},
		  {"filters", filters},
		  {"arm_failures", c.arm_failures},
		  {"stale_drops", c.stale_drops}};
	if (c.budget)
		j["budget"] = {{"cost", cpu_cost_to_string(c.budget->cost)},
			       {"handler_ns", c.budget->handler_ns},
			       {"drain_ns", c.budget->drain_ns},
			       {"raises", c.budget->raises},
			       {"lowers", c.budget->lowers},
			       {"refused", c.budget->refused}};
	if (c.tuning)
		j["tuning"] = {{"aggr_us", c.tuning->aggr_us},
			       {"min_aggr_us", c.tuning->min_aggr_us},
			       {"max_aggr_us", c.tuning->max_aggr_us},
			       {"samples", c.tuning->samples},
			       {"steps", c.tuning->steps},
			       {"ups", c.tuning->ups},
			       {"downs", c.tuning->downs},
			       {"period_div", c.tuning->period_div}};
	return j;
}

json to_json(const Aggregation &a)
{
	json targets = json::array();
	for (const auto &t : a.targets)
		targets.push_back(target_json(t));
	json regions = json::array();
	for (const auto &r : a.regions) {
		regions.push_back({{"target_id", r.target_id},
				   {"start", r.start},
				   {"end", r.end},
				   {"nr_accesses", r.nr_accesses},
				   {"age", r.age},
				   {"rate", r.rate},
				   {"probe_hits", r.probe_hits}});
		if (r.sampled()) {
			regions.back()["sampled_start"] = r.sampled_start;
			regions.back()["sampled_end"] = r.sampled_end;
		}
		if (!r.sampled_runs.empty())
			regions.back()["sampled_runs"] = r.sampled_runs;
	}
	json j = {{"ctx_id", a.ctx_id},
		  {"ctx_name", a.ctx_name},
		  {"seq", a.seq},
		  {"time_ns", a.time_ns},
		  {"aggr_us", a.aggr_us},
		  {"nr_regions", a.nr_regions},
		  {"truncated", a.truncated},
		  {"working_set_bytes", working_set_size(a)},
		  {"targets", targets},
		  {"regions", regions}};
	put_opt(j, "sample_us", a.sample_us);
	put_opt(j, "update_us", a.update_us);
	put_opt(j, "nr_samples", a.nr_samples);
	put_opt(j, "floor", a.floor);
	if (a.confidence) {
		j["confidence"] = to_string(*a.confidence);
		j["carried"] = a.carried;
		j["windows"] = a.windows;
	}
	if (a.missed)
		j["missed"] = a.missed;
	return j;
}

Aggregation aggregation_from_json(const json &j)
{
	Aggregation a;

	if (!j.is_object())
		throw UsageError("recording: a line is not a JSON object");
	a.ctx_id = uint32_t(get_u64(j, "ctx_id"));
	if (j.contains("ctx_name") && j["ctx_name"].is_string())
		a.ctx_name = j["ctx_name"].get<std::string>();
	a.seq = get_u64(j, "seq");
	a.time_ns = get_u64(j, "time_ns");
	a.aggr_us = get_u64(j, "aggr_us", false);
	if (j.contains("sample_us"))
		a.sample_us = get_u64(j, "sample_us");
	if (j.contains("update_us"))
		a.update_us = get_u64(j, "update_us");
	a.nr_regions = uint32_t(get_u64(j, "nr_regions", false));
	a.truncated = j.value("truncated", false);
	if (j.contains("nr_samples"))
		a.nr_samples = get_u64(j, "nr_samples");
	if (j.contains("floor"))
		a.floor = get_u64(j, "floor");
	if (j.contains("confidence")) {
		if (!j["confidence"].is_string() ||
		    !(a.confidence = confidence_from_string(
			      j["confidence"].get<std::string>())))
			throw UsageError("recording: \"confidence\" must be "
					 "met, carried or low");
		a.carried = uint32_t(get_u64(j, "carried", false));
		a.windows = uint32_t(get_u64(j, "windows", false));
		if (!a.windows)
			a.windows = 1;
	}
	if (j.contains("missed"))
		a.missed = get_u64(j, "missed");
	if (j.contains("targets") && j["targets"].is_array())
		for (const auto &t : j["targets"]) {
			Target tt;
			tt.id = uint32_t(get_u64(t, "id"));
			if (t.contains("pid"))
				tt.pid = uint32_t(get_u64(t, "pid"));
			if (t.contains("start"))
				tt.start = get_u64(t, "start");
			if (t.contains("end"))
				tt.end = get_u64(t, "end");
			tt.dead = t.value("dead", false);
			tt.nr_regions =
				uint32_t(get_u64(t, "nr_regions", false));
			a.targets.push_back(tt);
		}
	if (!j.contains("regions") || !j["regions"].is_array())
		throw UsageError("recording: missing \"regions\" array");
	for (const auto &r : j["regions"]) {
		Region rr;
		rr.target_id = uint32_t(get_u64(r, "target_id"));
		rr.start = get_u64(r, "start");
		rr.end = get_u64(r, "end");
		rr.nr_accesses = uint32_t(get_u64(r, "nr_accesses"));
		rr.age = uint32_t(get_u64(r, "age", false));
		rr.rate = get_u64(r, "rate", false);
		if (r.contains("probe_hits") && r["probe_hits"].is_array())
			for (const auto &h : r["probe_hits"])
				rr.probe_hits.push_back(
					h.is_number_unsigned()
						? h.get<uint64_t>()
						: 0);
		rr.sampled_start = get_u64(r, "sampled_start", false);
		rr.sampled_end = get_u64(r, "sampled_end", false);
		if (r.contains("sampled_runs")) {
			const auto &runs = r["sampled_runs"];
			if (!runs.is_array())
				throw UsageError("recording: region "
						 "sampled_runs not a list");
			for (const auto &run : runs) {
				if (!run.is_array() || run.size() != 2 ||
				    !run[0].is_number_unsigned() ||
				    !run[1].is_number_unsigned() ||
				    run[1].get<uint64_t>() <=
					    run[0].get<uint64_t>())
					throw UsageError(
						"recording: region "
						"sampled_runs holds a "
						"run that is not [first, end)");
				rr.sampled_runs.emplace_back(
					run[0].get<uint64_t>(),
					run[1].get<uint64_t>());
			}
		}
		if (rr.end < rr.start)
			throw UsageError("recording: region end below start");
		a.regions.push_back(rr);
	}
	return a;
}

json to_json(const StatsRow &row)
{
	json j;

	if (row.cpu)
		j["cpu"] = *row.cpu;
	else
		j["cpu"] = "total";
	j["state"] = row.state_name;
	json counters = json::object();
	for (const auto &c : row.counters)
		counters[c.first] = c.second;
	j["counters"] = counters;
	return j;
}

json to_json(const ResolvedEvent &ev)
{
	json j = {{"pmu", ev.pmu},
		  {"type", ev.type},
		  {"config", ev.config},
		  {"config1", ev.config1},
		  {"config2", ev.config2},
		  {"precise_ip", ev.precise_ip},
		  {"exclude_kernel", ev.exclude_kernel},
		  {"exclude_hv", ev.exclude_hv},
		  {"exclude_user", ev.exclude_user}};
	if (!ev.name.empty())
		j["name"] = ev.name;
	j["sample_period"] =
		ev.sample_period ? json(*ev.sample_period) : json(nullptr);
	j["sample_freq"] =
		ev.sample_freq ? json(*ev.sample_freq) : json(nullptr);
	j["freq"] = ev.sample_freq.has_value();
	return j;
}

json to_json(const Pmu &pmu)
{
	json formats = json::object();
	for (const auto &f : pmu.formats)
		formats[f.first] = f.second.spec();
	json aliases = json::object();
	for (const auto &a : pmu.aliases)
		aliases[a.first] = a.second;
	return {{"name", pmu.name},
		{"type", pmu.type},
		{"formats", formats},
		{"events", aliases}};
}

std::string render_status(const std::vector<CtxInfo> &ctxs)
{
	std::string out;

	if (ctxs.empty())
		return "no contexts (damon_perf is loaded; use `damonctl "
		       "start` to create one)\n";
	for (const auto &c : ctxs) {
		out += fmt::format("context {} \"{}\": {} {}\n", c.id, c.name,
				   to_string(c.ops), to_string(c.state));
		out += fmt::format(
			"  intervals: sample {} us, aggr {} us, update {} us; "
			"regions {}..{}; mode {}; split {}; ring {}\n",
			c.attrs.sample_us.value_or(0),
			c.attrs.aggr_us.value_or(0),
			c.attrs.update_us.value_or(0),
			c.attrs.min_nr_regions.value_or(0),
			c.attrs.max_nr_regions.value_or(0),
			c.attrs.mode ? to_string(*c.attrs.mode) : "?",
			c.attrs.split ? to_string(*c.attrs.split) : "?",
			c.attrs.ring_size.value_or(0));
		if (c.targets.empty())
			out += "  targets: none\n";
		for (const auto &t : c.targets)
			out += fmt::format("  target {}: {}, {} regions\n",
					   t.id, target_desc(t), t.nr_regions);
		if (c.probes.empty())
			out += "  probes: none\n";
		for (const auto &p : c.probes) {
			out += fmt::format("  probe {}: {}", p.idx,
					   probe_desc(p));
			if (p.effective_period &&
			    p.effective_period != p.sample_period)
				out += fmt::format(" (effective period {})",
						   p.effective_period);
			out += "\n";
		}
		for (const auto &f : c.filters)
			out += fmt::format("  filter: {}\n", filter_desc(f));
		out += fmt::format("  arm failures: {}, stale drops: {}\n",
				   c.arm_failures, c.stale_drops);
		if (c.budget)
			out += fmt::format(
				"  cpu budget: {}; cost {}% (handler {} ns, "
				"drain {} ns; period raised {}x, lowered "
				"{}x, refused by the PMU {}x)\n",
				c.attrs.cpu_budget && *c.attrs.cpu_budget
					? cpu_budget_to_string(
						  *c.attrs.cpu_budget) +
						  "%"
					: std::string("off"),
				cpu_cost_to_string(c.budget->cost),
				c.budget->handler_ns, c.budget->drain_ns,
				c.budget->raises, c.budget->lowers,
				c.budget->refused);
		if (c.tuning)
			out += tuning_desc(c);
	}
	return out;
}

uint64_t working_set_size(const Aggregation &agg, uint32_t min_accesses)
{
	uint64_t sum = 0;

	for (const auto &r : agg.regions)
		if (r.nr_accesses >= min_accesses && min_accesses > 0)
			sum += r.size();
	return sum;
}

void sort_hottest(std::vector<Region> &regions)
{
	// A sampled source ties often: a hinting fault comes once per page and
	// scan, so a hot page of counters has the nr_accesses of a hot range
	// hundreds of times its size. The range's samples break the tie, and
	// the address the rest, whatever order the regions came in.
	std::sort(regions.begin(), regions.end(),
		  [](const Region &a, const Region &b) {
			  if (a.nr_accesses != b.nr_accesses)
				  return a.nr_accesses > b.nr_accesses;
			  if (a.rate != b.rate)
				  return a.rate > b.rate;
			  if (a.target_id != b.target_id)
				  return a.target_id < b.target_id;
			  return a.start < b.start;
		  });
}

std::string render_confidence(const Aggregation &agg)
{
	if (!agg.confidence)
		return agg.nr_samples
			       ? fmt::format(", {} samples", *agg.nr_samples)
			       : "";
	std::string out = fmt::format(
		", {} samples, floor {}, {}", agg.nr_samples.value_or(0),
		agg.floor.value_or(0), to_string(*agg.confidence));
	if (*agg.confidence == Confidence::carried)
		out += fmt::format(" (age {})", agg.carried);
	if (agg.windows > 1)
		out += fmt::format(", over {} intervals", agg.windows);
	return out;
}

std::string render_regions(const Aggregation &agg, size_t hot)
{
	std::vector<Region> regions = agg.regions;
	std::string out;

	if (hot) {
		sort_hottest(regions);
		if (regions.size() > hot)
			regions.resize(hot);
	}
	out += fmt::format(
		"context {}{} aggregation {} ({} regions{}{})\n", agg.ctx_id,
		agg.ctx_name.empty() ? "" : " \"" + agg.ctx_name + "\"",
		agg.seq, agg.nr_regions, agg.truncated ? ", truncated" : "",
		render_confidence(agg));
	out += fmt::format(
		"{:>6} {:>18} {:>18} {:>10} {:>11} {:>6} {:>12}  {}\n",
		"target", "start", "end", "size", "nr_accesses", "age",
		"rate/s", "probe_hits");
	for (const auto &r : regions) {
		std::string hits;
		for (size_t i = 0; i < r.probe_hits.size(); i++)
			hits += (i ? "," : "") +
				std::to_string(r.probe_hits[i]);
		out += fmt::format(
			"{:>6} {:>18} {:>18} {:>10} {:>11} {:>6} {:>12}  {}\n",
			r.target_id, hex(r.start), hex(r.end),
			human_size(r.size()), r.nr_accesses, r.age, r.rate,
			hits);
	}
	out += fmt::format("working set: {} ({} bytes in regions with "
			   "nr_accesses >= 1)\n",
			   human_size(working_set_size(agg)),
			   working_set_size(agg));
	return out;
}

std::string render_stats(const std::vector<StatsRow> &rows, bool per_cpu)
{
	std::vector<const StatsRow *> shown;
	std::string out;

	for (const auto &r : rows)
		if (per_cpu || !r.cpu)
			shown.push_back(&r);
	if (shown.empty())
		return "no statistics\n";
	// counters as rows, CPUs as columns: reads well with many counters
	out += fmt::format("{:<20}", "counter");
	for (const auto *r : shown)
		out += fmt::format(" {:>12}",
				   r->cpu ? "cpu" + std::to_string(*r->cpu)
					  : "total");
	out += "\n";
	out += fmt::format("{:<20}", "state");
	for (const auto *r : shown)
		out += fmt::format(" {:>12}", r->state_name);
	out += "\n";
	for (size_t i = 0; i < shown[0]->counters.size(); i++) {
		out += fmt::format("{:<20}", shown[0]->counters[i].first);
		for (const auto *r : shown)
			out += fmt::format(" {:>12}",
					   i < r->counters.size()
						   ? r->counters[i].second
						   : 0);
		out += "\n";
	}
	return out;
}

std::string render_openmetrics(const std::vector<StatsRow> &rows,
			       bool prometheus)
{
	std::map<std::string, std::vector<std::pair<std::string, uint64_t>>>
		by_counter;
	std::vector<std::string> order;
	std::string out;

	for (const auto &r : rows) {
		if (!r.cpu)
			continue; // the total is the sum; scrapers add
		for (const auto &c : r.counters) {
			if (!by_counter.count(c.first))
				order.push_back(c.first);
			by_counter[c.first].emplace_back(std::to_string(*r.cpu),
							 c.second);
		}
	}
	for (const auto &name : order) {
		// ring_peak is a high watermark, every other counter counts
		bool gauge = name == "ring_peak";
		std::string metric = "damon_perf_" + name;
		std::string family =
			prometheus && !gauge ? metric + "_total" : metric;
		out += fmt::format("# TYPE {} {}\n", family,
				   gauge ? "gauge" : "counter");
		out += fmt::format("# HELP {} damon_perf per-CPU {} ({})\n",
				   family, name,
				   gauge ? "peak report ring occupancy"
					 : "events since module load");
		for (const auto &[cpu, v] : by_counter[name])
			out += fmt::format("{}{}{{cpu=\"{}\"}} {}\n", metric,
					   gauge ? "" : "_total", cpu, v);
	}
	out += "# TYPE damon_perf_cpu_state gauge\n";
	out += "# HELP damon_perf_cpu_state perf event lifecycle state per "
	       "CPU (0 uninit .. 4 running)\n";
	for (const auto &r : rows)
		if (r.cpu)
			out += fmt::format("damon_perf_cpu_state{{cpu=\"{}\","
					   "state=\"{}\"}} {}\n",
					   *r.cpu, r.state_name, r.state);
	if (!prometheus)
		out += "# EOF\n";
	return out;
}

std::string render_pmus(const std::vector<Pmu> &pmus)
{
	std::string out;

	for (const auto &p : pmus) {
		out += fmt::format("{} (type {})\n", p.name, p.type);
		if (!p.formats.empty()) {
			out += "  format terms:";
			for (const auto &f : p.formats)
				out += fmt::format(" {}({})", f.first,
						   f.second.spec());
			out += "\n";
		}
		if (!p.aliases.empty()) {
			out += "  events:\n";
			for (const auto &a : p.aliases)
				out += fmt::format("    {}/{}/  = {}\n", p.name,
						   a.first, a.second);
		}
	}
	out += "generic: page-faults (faults), minor-faults, major-faults, "
	       "cpu-clock, task-clock, context-switches, cpu-migrations, "
	       "cycles, instructions, cache-references, cache-misses, "
	       "branches, branch-misses, bus-cycles, ref-cycles, rNNN "
	       "(raw)\n";
	return out;
}

std::string render_resolved(const ResolvedEvent &ev)
{
	std::string out = fmt::format(
		"pmu {} type {} config {} config1 {} config2 {} precise_ip {}",
		ev.pmu, ev.type, hex(ev.config), hex(ev.config1),
		hex(ev.config2), ev.precise_ip);
	if (ev.sample_period)
		out += fmt::format(" sample_period {}", *ev.sample_period);
	if (ev.sample_freq)
		out += fmt::format(" sample_freq {}", *ev.sample_freq);
	if (ev.exclude_user)
		out += " exclude_user";
	if (ev.exclude_kernel)
		out += " exclude_kernel";
	if (ev.exclude_hv)
		out += " exclude_hv";
	if (!ev.name.empty())
		out += " name " + ev.name;
	return out + "\n";
}

bool stdout_takes_escapes()
{
	const char *term = std::getenv("TERM");

	return isatty(STDOUT_FILENO) &&
	       !(term && std::strcmp(term, "dumb") == 0);
}

bool stdout_takes_colour()
{
	const char *no = std::getenv("NO_COLOR");

	return stdout_takes_escapes() && !(no && *no);
}

} // namespace damonctl
