// SPDX-License-Identifier: GPL-2.0
// The schemes of damo 3.3's JSON (`damo args damon`): its keys, its
// units (bare nr_accesses in percent, bare ages in microseconds) and the
// fields damonctl does not act on, which must hold their defaults.
#include <nlohmann/json.hpp>

#include "scheme_parse.hpp"

using nlohmann::json;

namespace damonctl::scheme_parse {

namespace {

SchemeFilter get_damo_filter(const json &f, const std::string &where)
{
	SchemeFilter filter;

	if (!f.is_object())
		fail(where, "must be an object");
	if (!f.contains("filter_type") || !f["filter_type"].is_string())
		fail(where, "needs filter_type");
	std::string type = f["filter_type"].get<std::string>();
	if (type == "addr") {
		filter.type = SchemeFilterType::addr;
		const json &r = f.value("address_range", json());
		if (!r.is_object() || !r.contains("start") ||
		    !r.contains("end"))
			fail(where, "an addr filter needs address_range");
		filter.start = get_bytes(r["start"], where + ".start");
		filter.end = get_bytes(r["end"], where + ".end");
		if (filter.start >= filter.end)
			fail(where, "start must be below end");
	} else if (type == "anon") {
		filter.type = SchemeFilterType::anon;
	} else if (type == "target") {
		filter.type = SchemeFilterType::target;
		// the target's index in its context, from 0; damon-perf's
		// target ids count from 1
		filter.target_id =
			uint32_t(get_uint(f.value("damon_target_idx", json()),
					  where + ".damon_target_idx",
					  UINT32_MAX - 1)) +
			1;
	} else {
		fail(where + ".filter_type",
		     "filter type '" + type +
			     "' is not supported (addr, anon and target are)");
	}
	if (f.contains("matching"))
		filter.matching =
			field.get_bool(f["matching"], where + ".matching");
	if (f.contains("allow"))
		filter.allow = field.get_bool(f["allow"], where + ".allow");
	return filter;
}

} // namespace

// One scheme of damo 3.3's JSON (damo_args damon, `schemes` of a
// context). Fields damonctl does not act on must hold their defaults.
Scheme get_damo_scheme(const json &j, const std::string &where)
{
	Scheme s;

	if (!j.is_object())
		fail(where, "must be an object");
	if (!j.contains("action"))
		fail(where, "needs an action");
	s.action = get_action(j["action"], where + ".action");
	if (s.action == SchemeAction::migrate_hot ||
	    s.action == SchemeAction::migrate_cold) {
		if (!j.contains("target_nid"))
			fail(where, to_string(s.action) + " needs target_nid");
		s.node = get_node(j["target_nid"], where + ".target_nid");
	}
	if (j.contains("dests") && !j["dests"].empty())
		fail(where + ".dests",
		     "migration to several destinations is not supported");
	if (j.contains("access_pattern")) {
		const json &p = j["access_pattern"];
		std::string pw = where + ".access_pattern";
		if (p.contains("sz_bytes"))
			s.pattern.sz = get_minmax(p["sz_bytes"],
						  pw + ".sz_bytes", get_bytes);
		if (p.contains("nr_accesses")) {
			const json &n = p["nr_accesses"];
			bool pmin = true, pmax = true;
			s.pattern.nr_accesses.min = get_nr_accesses(
				n.value("min", json("0 %")),
				pw + ".nr_accesses.min", true, pmin);
			s.pattern.nr_accesses.max = get_nr_accesses(
				n.value("max", json("max")),
				pw + ".nr_accesses.max", true, pmax);
			if (pmin != pmax)
				fail(pw + ".nr_accesses",
				     "min and max units should be same");
			s.pattern.nr_accesses_unit =
				pmin ? AccessUnit::percent : AccessUnit::count;
			if (s.pattern.nr_accesses.min >
			    s.pattern.nr_accesses.max)
				fail(pw + ".nr_accesses", "min is above max");
		}
		if (p.contains("age")) {
			const json &a = p["age"];
			bool umin = true, umax = true;
			s.pattern.age.min =
				get_age(a.value("min", json("0")),
					pw + ".age.min", true, umin);
			s.pattern.age.max =
				get_age(a.value("max", json("max")),
					pw + ".age.max", umin, umax);
			if (umin != umax)
				fail(pw + ".age",
				     "min and max units should be same");
			s.pattern.age_unit =
				umin ? AgeUnit::usec : AgeUnit::aggrs;
			if (s.pattern.age.min > s.pattern.age.max)
				fail(pw + ".age", "min is above max");
		}
	}
	if (j.contains("apply_interval_us"))
		s.apply_interval_us = parse_scheme_time_us(
			text(j["apply_interval_us"], where), 1,
			where + ".apply_interval_us");
	if (j.contains("quotas")) {
		const json &q = j["quotas"];
		std::string qw = where + ".quotas";
		if (q.contains("time_ms"))
			s.quota.ms =
				parse_scheme_time_us(text(q["time_ms"], qw),
						     1000, qw + ".time_ms") /
				1000;
		if (q.contains("sz_bytes"))
			s.quota.sz = get_bytes(q["sz_bytes"], qw + ".sz_bytes");
		if (q.contains("reset_interval_ms"))
			s.quota.reset_interval_ms =
				parse_scheme_time_us(
					text(q["reset_interval_ms"], qw), 1000,
					qw + ".reset_interval_ms") /
				1000;
		if (q.contains("goals"))
			s.quota.goals =
				get_goals(q["goals"], qw + ".goals", true);
		if (q.contains("goal_tuner") && !q["goal_tuner"].is_null())
			s.quota.goal_tuner = get_goal_tuner(q["goal_tuner"],
							    qw + ".goal_tuner");
		if (q.contains("weights")) {
			const json &w = q["weights"];
			std::string ww = qw + ".weights";
			if (w.contains("sz_permil"))
				s.quota.weight_sz = get_permil(
					w["sz_permil"], ww + ".sz_permil");
			if (w.contains("nr_accesses_permil"))
				s.quota.weight_nr_accesses =
					get_permil(w["nr_accesses_permil"],
						   ww + ".nr_accesses_permil");
			if (w.contains("age_permil"))
				s.quota.weight_age = get_permil(
					w["age_permil"], ww + ".age_permil");
		}
	}
	if (j.contains("watermarks")) {
		const json &w = j["watermarks"];
		std::string ww = where + ".watermarks";
		std::string m = w.value("metric", "none");
		if (m == "free_mem_rate")
			s.wmarks.metric = WmarkMetric::free_mem_rate;
		else if (m != "none")
			fail(ww + ".metric", "metric '" + m +
						     "' is not supported (none "
						     "and free_mem_rate are)");
		if (w.contains("interval_us"))
			s.wmarks.interval_us =
				parse_scheme_time_us(text(w["interval_us"], ww),
						     1, ww + ".interval_us");
		if (w.contains("high_permil"))
			s.wmarks.high = get_permil(w["high_permil"],
						   ww + ".high_permil");
		if (w.contains("mid_permil"))
			s.wmarks.mid =
				get_permil(w["mid_permil"], ww + ".mid_permil");
		if (w.contains("low_permil"))
			s.wmarks.low =
				get_permil(w["low_permil"], ww + ".low_permil");
	}
	if (j.contains("filters"))
		s.filters = get_filters(j["filters"], where + ".filters",
					get_damo_filter);
	check_scheme(s, where);
	return s;
}

} // namespace damonctl::scheme_parse
