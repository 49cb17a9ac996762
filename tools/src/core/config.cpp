// SPDX-License-Identifier: GPL-2.0
#include "config.hpp"

#include <fstream>
#include <set>

#include <linux/damon_perf.h>
#include <linux/perf_event.h>
#include <nlohmann/json.hpp>

#include "cpulist.hpp"
#include "errors.hpp"
#include "events.hpp"
#include "json_fields.hpp"

using nlohmann::json;

namespace damonctl {

namespace {

const size_t MAX_NAME = 31;
const size_t MAX_PROBES = 3;
const size_t MAX_FILTERS = 8;
const size_t MAX_TIDS = 16;
const size_t MAX_TARGETS = 16;

constexpr JsonFields field{"config "};

[[noreturn]] void fail(const std::string &where, const std::string &what)
{
	field.fail(where, what);
}

// "MIN .. MAX", from the uapi limits.
std::string range(unsigned long long min, unsigned long long max)
{
	return std::to_string(min) + " .. " + std::to_string(max);
}

uint64_t get_uint(const json &v, const std::string &where,
		  uint64_t max = UINT64_MAX)
{
	uint64_t n;

	if (v.is_number_unsigned()) {
		n = v.get<uint64_t>();
	} else if (v.is_number_integer()) {
		// a JSON text's positive number is unsigned; one built in
		// code from an int is signed
		if (v.get<int64_t>() < 0)
			fail(where, "must not be negative");
		n = uint64_t(v.get<int64_t>());
	} else if (v.is_string()) {
		const std::string s = v.get<std::string>();
		char *end = nullptr;
		errno = 0;
		n = std::strtoull(s.c_str(), &end, 0);
		if (s.empty() || s[0] == '-' || errno || *end)
			fail(where, "'" + s + "' is not a number");
	} else {
		fail(where, "must be a number");
	}
	if (n > max)
		fail(where,
		     std::to_string(n) + " is above " + std::to_string(max));
	return n;
}

Target parse_target_json(const json &t, const std::string &where, Ops ops)
{
	Target target;

	field.only_keys(t, where, {"pid", "start", "end"});
	if (t.contains("pid"))
		target.pid = uint32_t(
			get_uint(t["pid"], where + ".pid", DAMON_PERF_PID_MAX));
	if (t.contains("start"))
		target.start = get_uint(t["start"], where + ".start");
	if (t.contains("end"))
		target.end = get_uint(t["end"], where + ".end");
	if (ops == Ops::vaddr && (!target.pid || target.start || target.end))
		fail(where, "a vaddr target needs \"pid\" (and no range)");
	if (ops == Ops::paddr &&
	    (target.pid || !target.start.has_value() || !target.end))
		fail(where, "a paddr target needs \"start\" and \"end\"");
	if (target.pid && *target.pid == 0)
		fail(where + ".pid", "must be at least 1");
	return target;
}

ProbeSpec parse_probe_json(const json &p, const std::string &where)
{
	ProbeSpec spec;

	if (p.is_string()) {
		spec.event = p.get<std::string>();
		return spec;
	}
	field.only_keys(p, where,
			{"event", "period", "freq", "weight", "wakeup_events",
			 "precise_ip", "phys_addr", "sample_weight_struct",
			 "exclude_kernel", "exclude_hv"});
	if (!p.contains("event"))
		fail(where, "missing \"event\"");
	spec.event = field.get_string(p["event"], where + ".event");
	if (p.contains("period"))
		spec.period = get_uint(p["period"], where + ".period");
	if (p.contains("freq"))
		spec.freq = get_uint(p["freq"], where + ".freq");
	if (spec.period && spec.freq)
		fail(where, "give \"period\" or \"freq\", not both");
	if (p.contains("weight"))
		spec.weight = uint32_t(
			get_uint(p["weight"], where + ".weight", 65535));
	if (p.contains("wakeup_events"))
		spec.wakeup_events = uint32_t(get_uint(p["wakeup_events"],
						       where + ".wakeup_events",
						       UINT32_MAX));
	if (p.contains("precise_ip"))
		spec.precise_ip = uint8_t(
			get_uint(p["precise_ip"], where + ".precise_ip", 3));
	if (p.contains("phys_addr"))
		spec.phys_addr =
			field.get_bool(p["phys_addr"], where + ".phys_addr");
	if (p.contains("sample_weight_struct"))
		spec.sample_weight_struct =
			field.get_bool(p["sample_weight_struct"],
				       where + ".sample_weight_struct");
	if (p.contains("exclude_kernel"))
		spec.exclude_kernel = field.get_bool(p["exclude_kernel"],
						     where + ".exclude_kernel");
	if (p.contains("exclude_hv"))
		spec.exclude_hv =
			field.get_bool(p["exclude_hv"], where + ".exclude_hv");
	return spec;
}

Filter parse_filter_json(const json &f, const std::string &where)
{
	Filter filter;

	field.only_keys(f, where, {"type", "allow", "cpus", "tids"});
	if (!f.contains("type"))
		fail(where, "missing \"type\" (cpumask, tid or write)");
	auto type = filter_type_from_string(
		field.get_string(f["type"], where + ".type"));
	if (!type)
		fail(where + ".type", "must be cpumask, tid or write");
	filter.type = *type;
	if (f.contains("allow"))
		filter.allow = field.get_bool(f["allow"], where + ".allow");
	if (f.contains("cpus") != (filter.type == FilterType::cpumask))
		fail(where, "\"cpus\" goes with (and only with) a cpumask "
			    "filter");
	if (f.contains("tids") != (filter.type == FilterType::tid))
		fail(where, "\"tids\" goes with (and only with) a tid filter");
	if (f.contains("cpus")) {
		try {
			filter.cpus = canonical_cpulist(
				field.get_string(f["cpus"], where + ".cpus"));
		} catch (const UsageError &e) {
			fail(where + ".cpus", e.what());
		}
	}
	if (f.contains("tids")) {
		const json &tids = f["tids"];
		if (!tids.is_array() || tids.empty())
			fail(where + ".tids", "must be a non-empty array");
		for (size_t i = 0; i < tids.size(); i++) {
			auto tid = get_uint(tids[i],
					    where + ".tids[" +
						    std::to_string(i) + "]",
					    DAMON_PERF_PID_MAX);
			if (!tid)
				fail(where + ".tids", "tid 0 is not valid");
			filter.tids.push_back(uint32_t(tid));
		}
	}
	return filter;
}

// DAMON's intervals/intervals_goal, for a sampled source: a count of
// samples per aggregation instead of a share of observed accesses.
void parse_intervals_goal(const json &g, const std::string &w, Attrs &a)
{
	field.only_keys(g, w,
			{"samples", "aggrs", "min_aggr_us", "max_aggr_us"});
	if (g.contains("samples"))
		a.samples_goal =
			uint32_t(get_uint(g["samples"], w + ".samples",
					  DAMON_PERF_SAMPLES_GOAL_MAX));
	if (g.contains("aggrs")) {
		a.goal_aggrs = uint32_t(get_uint(g["aggrs"], w + ".aggrs",
						 DAMON_PERF_GOAL_AGGRS_MAX));
		if (!*a.goal_aggrs)
			fail(w + ".aggrs", "must be at least 1");
	}
	if (g.contains("min_aggr_us"))
		a.min_aggr_us = get_uint(g["min_aggr_us"], w + ".min_aggr_us",
					 DAMON_PERF_INTERVAL_US_MAX);
	if (g.contains("max_aggr_us"))
		a.max_aggr_us = get_uint(g["max_aggr_us"], w + ".max_aggr_us",
					 DAMON_PERF_INTERVAL_US_MAX);
}

CtxConfig parse_context(const json &c, const std::string &where,
			const std::string &root)
{
	CtxConfig cfg;

	field.only_keys(c, where,
			{"name", "ops", "targets", "intervals", "nr_regions",
			 "mode", "split", "ring_size", "cpu_budget", "probes",
			 "filters"});
	if (!c.contains("name"))
		fail(where, "missing \"name\"");
	cfg.name = field.get_string(c["name"], where + ".name");
	if (c.contains("ops")) {
		auto ops = ops_from_string(
			field.get_string(c["ops"], where + ".ops"));
		if (!ops)
			fail(where + ".ops", "must be vaddr or paddr");
		cfg.ops = *ops;
	}
	if (c.contains("intervals")) {
		const json &iv = c["intervals"];
		std::string w = where + ".intervals";
		field.only_keys(iv, w,
				{"sample_us", "aggr_us", "update_us",
				 "intervals_goal"});
		if (iv.contains("sample_us"))
			cfg.attrs.sample_us =
				get_uint(iv["sample_us"], w + ".sample_us");
		if (iv.contains("aggr_us"))
			cfg.attrs.aggr_us =
				get_uint(iv["aggr_us"], w + ".aggr_us");
		if (iv.contains("update_us"))
			cfg.attrs.update_us =
				get_uint(iv["update_us"], w + ".update_us");
		if (iv.contains("intervals_goal"))
			parse_intervals_goal(iv["intervals_goal"],
					     w + ".intervals_goal", cfg.attrs);
	}
	if (c.contains("nr_regions")) {
		const json &nr = c["nr_regions"];
		std::string w = where + ".nr_regions";
		field.only_keys(nr, w, {"min", "max"});
		if (nr.contains("min"))
			cfg.attrs.min_nr_regions = uint32_t(
				get_uint(nr["min"], w + ".min", UINT32_MAX));
		if (nr.contains("max"))
			cfg.attrs.max_nr_regions = uint32_t(
				get_uint(nr["max"], w + ".max", UINT32_MAX));
	}
	if (c.contains("mode")) {
		auto mode = mode_from_string(
			field.get_string(c["mode"], where + ".mode"));
		if (!mode)
			fail(where + ".mode", "must be presence or count");
		cfg.attrs.mode = *mode;
	}
	if (c.contains("split")) {
		auto split = split_from_string(
			field.get_string(c["split"], where + ".split"));
		if (!split)
			fail(where + ".split", "must be samples or random");
		cfg.attrs.split = *split;
	}
	if (c.contains("cpu_budget")) {
		const json &b = c["cpu_budget"];
		std::optional<uint32_t> v;

		// a number (0.5) or a string ("0.5"), percent of one CPU
		if (b.is_string())
			v = cpu_budget_from_string(b.get<std::string>());
		else if (b.is_number())
			v = cpu_budget_from_string(b.dump());
		if (!v)
			fail(where + ".cpu_budget",
			     "must be a percentage of one CPU, 0 .. 100 "
			     "with at most two decimals (0 = no budget)");
		cfg.attrs.cpu_budget = *v;
	}
	if (c.contains("ring_size"))
		cfg.attrs.ring_size = uint32_t(get_uint(
			c["ring_size"], where + ".ring_size", UINT32_MAX));
	if (!c.contains("targets") || !c["targets"].is_array())
		fail(where, "\"targets\" must be an array of targets");
	for (size_t i = 0; i < c["targets"].size(); i++)
		cfg.targets.push_back(parse_target_json(
			c["targets"][i],
			where + ".targets[" + std::to_string(i) + "]",
			cfg.ops));
	if (!c.contains("probes") || !c["probes"].is_array())
		fail(where, "\"probes\" must be an array of event strings or "
			    "probe objects");
	for (size_t i = 0; i < c["probes"].size(); i++) {
		std::string w = where + ".probes[" + std::to_string(i) + "]";
		ProbeSpec spec = parse_probe_json(c["probes"][i], w);
		try {
			cfg.probes.push_back(make_probe(spec, root));
		} catch (const UsageError &e) {
			fail(w, e.what());
		}
	}
	if (c.contains("filters")) {
		if (!c["filters"].is_array())
			fail(where + ".filters", "must be an array");
		for (size_t i = 0; i < c["filters"].size(); i++)
			cfg.filters.push_back(parse_filter_json(
				c["filters"][i],
				where + ".filters[" + std::to_string(i) + "]"));
	}
	validate(cfg, where);
	return cfg;
}

} // namespace

Probe make_probe(const ProbeSpec &spec, const std::string &root)
{
	ResolvedEvent ev = resolve_event(spec.event, root);
	Probe p;

	p.event = spec.event;
	p.type = ev.type;
	p.config = ev.config;
	p.config1 = ev.config1;
	p.config2 = ev.config2;
	p.precise_ip = spec.precise_ip.value_or(ev.precise_ip);
	p.exclude_kernel = spec.exclude_kernel || ev.exclude_kernel;
	p.exclude_hv = spec.exclude_hv || ev.exclude_hv;
	p.exclude_user = ev.exclude_user;
	p.sample_phys_addr = spec.phys_addr;
	p.sample_weight_struct = spec.sample_weight_struct;
	p.weight = spec.weight.value_or(1);
	p.wakeup_events = spec.wakeup_events.value_or(0);

	std::optional<uint64_t> period = spec.period, freq = spec.freq;
	if (!period && !freq) {
		period = ev.sample_period;
		freq = ev.sample_freq;
	}
	if (period && freq)
		throw UsageError("event '" + spec.event +
				 "': give a period or a frequency, not both");
	if (freq) {
		p.freq = true;
		p.sample_period = *freq;
	} else if (period) {
		p.sample_period = *period;
	} else {
		p.sample_period = ev.type == PERF_TYPE_SOFTWARE ? 1 : 10007;
	}
	if (!p.sample_period)
		throw UsageError("event '" + spec.event +
				 "': the period or frequency must be at "
				 "least 1");
	if (p.weight == 0)
		throw UsageError("probe weight must be at least 1");
	return p;
}

std::string canonical_cpulist(const std::string &list)
{
	return format_cpu_list(parse_cpu_list(list));
}

Target parse_range(const std::string &range)
{
	auto sep = range.find_first_of("-,");
	if (sep == std::string::npos)
		throw UsageError("bad range '" + range +
				 "': expected START-END");
	auto num = [&](const std::string &s) {
		char *end = nullptr;
		errno = 0;
		uint64_t v = std::strtoull(s.c_str(), &end, 0);
		if (s.empty() || errno || *end)
			throw UsageError("bad range '" + range + "': '" + s +
					 "' is not a number");
		return v;
	};
	Target t;
	t.start = num(range.substr(0, sep));
	t.end = num(range.substr(sep + 1));
	if (*t.start >= *t.end)
		throw UsageError("bad range '" + range +
				 "': end must be above start");
	return t;
}

Filter parse_filter_spec(const std::string &spec_in)
{
	std::string spec = spec_in;
	Filter f;

	f.allow = true;
	if (!spec.empty() && spec[0] == '!') {
		f.allow = false;
		spec.erase(0, 1);
	}
	auto colon = spec.find(':');
	std::string kind = spec.substr(0, colon);
	std::string arg =
		colon == std::string::npos ? "" : spec.substr(colon + 1);
	auto type = filter_type_from_string(kind);
	if (!type)
		throw UsageError("bad filter '" + spec_in +
				 "': type must be cpumask, tid or write");
	f.type = *type;
	if (f.type == FilterType::cpumask) {
		f.cpus = canonical_cpulist(arg);
	} else if (f.type == FilterType::tid) {
		size_t pos = 0;
		if (arg.empty())
			throw UsageError("bad filter '" + spec_in +
					 "': tid needs tid[,tid...]");
		while (pos <= arg.size()) {
			size_t comma = arg.find(',', pos);
			std::string t =
				arg.substr(pos, comma == std::string::npos
							? std::string::npos
							: comma - pos);
			char *end = nullptr;
			errno = 0;
			unsigned long v = std::strtoul(t.c_str(), &end, 10);
			if (t.empty() || errno || *end || !v ||
			    v > DAMON_PERF_PID_MAX)
				throw UsageError("bad filter '" + spec_in +
						 "': bad tid '" + t + "'");
			f.tids.push_back(uint32_t(v));
			pos = comma == std::string::npos ? arg.size() + 1
							 : comma + 1;
		}
	} else if (!arg.empty()) {
		throw UsageError("bad filter '" + spec_in +
				 "': write takes no argument");
	}
	return f;
}

void validate(const CtxConfig &cfg, const std::string &where)
{
	const Attrs &a = cfg.attrs;

	if (cfg.name.empty() || cfg.name.size() > MAX_NAME)
		fail(where + ".name", "must be 1 to 31 characters");
	if (cfg.targets.empty())
		fail(where, "needs at least one target");
	if (cfg.targets.size() > MAX_TARGETS)
		fail(where, "at most 16 targets");
	if (cfg.probes.empty())
		fail(where, "needs at least one probe");
	if (cfg.probes.size() > MAX_PROBES)
		fail(where, "at most 3 probes");
	if (cfg.filters.size() > MAX_FILTERS)
		fail(where, "at most 8 filters");
	for (const auto &f : cfg.filters)
		if (f.tids.size() > MAX_TIDS)
			fail(where, "at most 16 tids per filter");
	for (const auto &f : cfg.filters)
		for (const auto &p : cfg.probes)
			if (f.type == FilterType::write &&
			    p.type == PERF_TYPE_SOFTWARE)
				fail(where,
				     "a write filter needs probes with a data "
				     "source (PEBS, IBS Op, SPE); software "
				     "event "
				     "'" + p.event +
					     "' carries none, so none of its "
					     "samples is a write");
	if (a.sample_us && (*a.sample_us < DAMON_PERF_SAMPLE_US_MIN ||
			    *a.sample_us > DAMON_PERF_SAMPLE_US_MAX))
		fail(where,
		     "sample_us must be " + range(DAMON_PERF_SAMPLE_US_MIN,
						  DAMON_PERF_SAMPLE_US_MAX));
	if (a.aggr_us && (*a.aggr_us < DAMON_PERF_INTERVAL_US_MIN ||
			  *a.aggr_us > DAMON_PERF_INTERVAL_US_MAX))
		fail(where,
		     "aggr_us must be " + range(DAMON_PERF_INTERVAL_US_MIN,
						DAMON_PERF_INTERVAL_US_MAX));
	if (a.update_us && (*a.update_us < DAMON_PERF_INTERVAL_US_MIN ||
			    *a.update_us > DAMON_PERF_INTERVAL_US_MAX))
		fail(where,
		     "update_us must be " + range(DAMON_PERF_INTERVAL_US_MIN,
						  DAMON_PERF_INTERVAL_US_MAX));
	if (a.sample_us && a.aggr_us && *a.aggr_us < *a.sample_us)
		fail(where, "aggr_us must be at least sample_us");
	if (a.sample_us && a.update_us && *a.update_us < *a.sample_us)
		fail(where, "update_us must be at least sample_us");
	if (a.min_nr_regions &&
	    (*a.min_nr_regions < DAMON_PERF_NR_REGIONS_MIN ||
	     *a.min_nr_regions > DAMON_PERF_NR_REGIONS_MAX))
		fail(where, "nr_regions.min must be " +
				    range(DAMON_PERF_NR_REGIONS_MIN,
					  DAMON_PERF_NR_REGIONS_MAX));
	if (a.max_nr_regions &&
	    (*a.max_nr_regions < DAMON_PERF_NR_REGIONS_MIN ||
	     *a.max_nr_regions > DAMON_PERF_NR_REGIONS_MAX))
		fail(where, "nr_regions.max must be " +
				    range(DAMON_PERF_NR_REGIONS_MIN,
					  DAMON_PERF_NR_REGIONS_MAX));
	if (a.min_nr_regions && a.max_nr_regions &&
	    *a.min_nr_regions > *a.max_nr_regions)
		fail(where, "nr_regions.min is above nr_regions.max");
	if (a.samples_goal && *a.samples_goal > DAMON_PERF_SAMPLES_GOAL_MAX)
		fail(where, "intervals_goal.samples must be " +
				    range(0, DAMON_PERF_SAMPLES_GOAL_MAX));
	if (a.goal_aggrs &&
	    (*a.goal_aggrs < 1 || *a.goal_aggrs > DAMON_PERF_GOAL_AGGRS_MAX))
		fail(where, "intervals_goal.aggrs must be " +
				    range(1, DAMON_PERF_GOAL_AGGRS_MAX));
	if ((a.min_aggr_us && *a.min_aggr_us > DAMON_PERF_INTERVAL_US_MAX) ||
	    (a.max_aggr_us && *a.max_aggr_us > DAMON_PERF_INTERVAL_US_MAX))
		fail(where, "intervals_goal.min_aggr_us and max_aggr_us must "
			    "be " + range(0, DAMON_PERF_INTERVAL_US_MAX));
	if (a.min_aggr_us && a.max_aggr_us && *a.min_aggr_us &&
	    *a.max_aggr_us && *a.min_aggr_us > *a.max_aggr_us)
		fail(where, "intervals_goal.min_aggr_us is above max_aggr_us");
	if (a.max_aggr_us && *a.max_aggr_us && a.sample_us &&
	    *a.max_aggr_us < *a.sample_us)
		fail(where, "intervals_goal.max_aggr_us is below sample_us");
	if (a.ring_size && (*a.ring_size < DAMON_PERF_RING_SIZE_MIN ||
			    *a.ring_size > DAMON_PERF_RING_SIZE_MAX ||
			    (*a.ring_size & (*a.ring_size - 1))))
		fail(where, "ring_size must be a power of two, " +
				    range(DAMON_PERF_RING_SIZE_MIN,
					  DAMON_PERF_RING_SIZE_MAX));
}

std::vector<CtxConfig> parse_config(const json &doc, const std::string &root)
{
	std::vector<CtxConfig> out;
	std::set<std::string> names;

	field.only_keys(doc, "(top level)", {"contexts"});
	if (!doc.contains("contexts") || !doc["contexts"].is_array() ||
	    doc["contexts"].empty())
		fail("(top level)", "\"contexts\" must be a non-empty array");
	for (size_t i = 0; i < doc["contexts"].size(); i++) {
		std::string where = "contexts[" + std::to_string(i) + "]";
		out.push_back(parse_context(doc["contexts"][i], where, root));
		if (!names.insert(out.back().name).second)
			fail(where + ".name", "duplicate context name '" +
						      out.back().name + "'");
	}
	return out;
}

json read_json_file(const std::string &path, const char *what)
{
	std::ifstream in(path);

	if (!in)
		throw UsageError(std::string("cannot read ") + what + " '" +
				 path + "'");
	try {
		return json::parse(in);
	} catch (const json::parse_error &e) {
		throw UsageError(std::string(what) + " '" + path +
				 "' is not valid JSON: " + e.what());
	}
}

std::vector<CtxConfig> load_config_file(const std::string &path,
					const std::string &root)
{
	return parse_config(read_json_file(path, "config file"), root);
}

} // namespace damonctl
