// SPDX-License-Identifier: GPL-2.0
// damonctl's own scheme format: {"schemes": [{"action": ..., "pattern":
// {"size": ..., "nr_accesses": ..., "age": ...}, "quota": ..., ...}]}
// (Documentation/schemes.rst).
#include <nlohmann/json.hpp>

#include "scheme_parse.hpp"

using nlohmann::json;

namespace damonctl::scheme_parse {

namespace {

SchemeFilter get_own_filter(const json &f, const std::string &where)
{
	SchemeFilter filter;

	field.only_keys(
		f, where,
		{"type", "allow", "matching", "start", "end", "target"});
	if (!f.contains("type") || !f["type"].is_string())
		fail(where, "needs a type (addr, anon or target)");
	std::string type = f["type"].get<std::string>();
	if (type == "addr")
		filter.type = SchemeFilterType::addr;
	else if (type == "anon")
		filter.type = SchemeFilterType::anon;
	else if (type == "target")
		filter.type = SchemeFilterType::target;
	else
		fail(where + ".type", "unknown filter type '" + type +
					      "' (expected addr, anon or "
					      "target)");
	if (f.contains("allow"))
		filter.allow = field.get_bool(f["allow"], where + ".allow");
	if (f.contains("matching"))
		filter.matching =
			field.get_bool(f["matching"], where + ".matching");
	if (filter.type == SchemeFilterType::addr) {
		if (!f.contains("start") || !f.contains("end"))
			fail(where, "an addr filter needs start and end");
		filter.start = get_uint(f["start"], where + ".start");
		filter.end = get_uint(f["end"], where + ".end");
		if (filter.start >= filter.end)
			fail(where, "start must be below end");
	} else if (f.contains("start") || f.contains("end")) {
		fail(where, "start and end are for addr filters");
	}
	if (filter.type == SchemeFilterType::target) {
		if (!f.contains("target"))
			fail(where, "a target filter needs target (an id)");
		filter.target_id = uint32_t(
			get_uint(f["target"], where + ".target", UINT32_MAX));
	} else if (f.contains("target")) {
		fail(where, "target is for target filters");
	}
	return filter;
}

} // namespace

Scheme get_own_scheme(const json &j, const std::string &where)
{
	Scheme s;

	field.only_keys(j, where,
			{"name", "action", "node", "pattern",
			 "apply_interval_us", "quota", "watermarks",
			 "filters"});
	if (!j.contains("action"))
		fail(where, "needs an action");
	s.action = get_action(j["action"], where + ".action");
	if (j.contains("name")) {
		if (!j["name"].is_string() ||
		    j["name"].get<std::string>().empty())
			fail(where + ".name", "must be a non-empty string");
		s.name = j["name"].get<std::string>();
	}
	if (j.contains("node")) {
		if (s.action != SchemeAction::migrate_hot &&
		    s.action != SchemeAction::migrate_cold)
			fail(where + ".node", "is for migrate_hot and "
					      "migrate_cold");
		s.node = get_node(j["node"], where + ".node");
	}
	if (j.contains("pattern")) {
		const json &p = j["pattern"];
		std::string pw = where + ".pattern";
		field.only_keys(p, pw, {"size", "nr_accesses", "age"});
		if (p.contains("size"))
			s.pattern.sz =
				get_minmax(p["size"], pw + ".size", get_bytes);
		if (p.contains("nr_accesses")) {
			const json &n = p["nr_accesses"];
			std::string nw = pw + ".nr_accesses";
			bool pmin = false, pmax = false;
			field.only_keys(n, nw, {"min", "max"});
			if (n.contains("min"))
				s.pattern.nr_accesses.min = get_nr_accesses(
					n["min"], nw + ".min", false, pmin);
			if (n.contains("max"))
				s.pattern.nr_accesses.max = get_nr_accesses(
					n["max"], nw + ".max", false, pmax);
			if (n.contains("min") && n.contains("max") &&
			    pmin != pmax)
				fail(nw, "min and max must both be counts "
					 "or both percentages");
			bool percent = pmin || pmax;
			if (percent && !n.contains("max"))
				s.pattern.nr_accesses.max = 100;
			s.pattern.nr_accesses_unit =
				percent ? AccessUnit::percent
					: AccessUnit::count;
			if (s.pattern.nr_accesses.min >
			    s.pattern.nr_accesses.max)
				fail(nw, "min is above max");
		}
		if (p.contains("age")) {
			const json &a = p["age"];
			std::string aw = pw + ".age";
			bool umin = false, umax = false;
			field.only_keys(a, aw, {"min", "max"});
			if (a.contains("min"))
				s.pattern.age.min = get_age(
					a["min"], aw + ".min", false, umin);
			if (a.contains("max"))
				s.pattern.age.max = get_age(
					a["max"], aw + ".max", umin, umax);
			if (a.contains("min") && a.contains("max") &&
			    umin != umax && a["max"] != "max")
				fail(aw, "min and max must both be times or "
					 "both counts of aggregations");
			s.pattern.age_unit =
				(umin || umax) ? AgeUnit::usec : AgeUnit::aggrs;
			if (s.pattern.age.min > s.pattern.age.max)
				fail(aw, "min is above max");
		}
	}
	if (j.contains("apply_interval_us"))
		s.apply_interval_us = parse_scheme_time_us(
			text(j["apply_interval_us"], where), 1,
			where + ".apply_interval_us");
	if (j.contains("quota")) {
		const json &q = j["quota"];
		std::string qw = where + ".quota";
		field.only_keys(q, qw,
				{"bytes", "ms", "reset_interval_ms", "weights",
				 "goals", "goal_tuner"});
		if (q.contains("goals"))
			s.quota.goals =
				get_goals(q["goals"], qw + ".goals", false);
		if (q.contains("goal_tuner"))
			s.quota.goal_tuner = get_goal_tuner(q["goal_tuner"],
							    qw + ".goal_tuner");
		if (q.contains("bytes"))
			s.quota.sz = get_bytes(q["bytes"], qw + ".bytes");
		if (q.contains("ms"))
			s.quota.ms =
				parse_scheme_time_us(text(q["ms"], qw + ".ms"),
						     1000, qw + ".ms") /
				1000;
		if (q.contains("reset_interval_ms"))
			s.quota.reset_interval_ms =
				parse_scheme_time_us(
					text(q["reset_interval_ms"], qw), 1000,
					qw + ".reset_interval_ms") /
				1000;
		if (q.contains("weights")) {
			const json &w = q["weights"];
			std::string ww = qw + ".weights";
			field.only_keys(w, ww, {"size", "nr_accesses", "age"});
			if (w.contains("size"))
				s.quota.weight_sz =
					get_permil(w["size"], ww + ".size");
			if (w.contains("nr_accesses"))
				s.quota.weight_nr_accesses = get_permil(
					w["nr_accesses"], ww + ".nr_accesses");
			if (w.contains("age"))
				s.quota.weight_age =
					get_permil(w["age"], ww + ".age");
		}
	}
	if (j.contains("watermarks")) {
		const json &w = j["watermarks"];
		std::string ww = where + ".watermarks";
		field.only_keys(
			w, ww, {"metric", "interval_us", "high", "mid", "low"});
		if (!w.contains("metric") || !w["metric"].is_string())
			fail(ww, "needs a metric (none or free_mem_rate)");
		std::string m = w["metric"].get<std::string>();
		if (m == "free_mem_rate")
			s.wmarks.metric = WmarkMetric::free_mem_rate;
		else if (m != "none")
			fail(ww + ".metric", "unknown metric '" + m +
						     "' (expected none or "
						     "free_mem_rate)");
		if (w.contains("interval_us"))
			s.wmarks.interval_us =
				parse_scheme_time_us(text(w["interval_us"], ww),
						     1, ww + ".interval_us");
		if (w.contains("high"))
			s.wmarks.high = get_permil(w["high"], ww + ".high");
		if (w.contains("mid"))
			s.wmarks.mid = get_permil(w["mid"], ww + ".mid");
		if (w.contains("low"))
			s.wmarks.low = get_permil(w["low"], ww + ".low");
	}
	if (j.contains("filters"))
		s.filters = get_filters(j["filters"], where + ".filters",
					get_own_filter);
	check_scheme(s, where);
	return s;
}

} // namespace damonctl::scheme_parse
