// SPDX-License-Identifier: GPL-2.0
#include "scheme.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config.hpp"
#include "json_fields.hpp"

using nlohmann::json;

namespace damonctl {

namespace {

const int MAX_NODE = 1023;
const size_t MAX_SCHEMES = 32;
const size_t MAX_SCHEME_FILTERS = 16;

const struct {
	SchemeAction action;
	const char *name;
} action_names[] = {
	{SchemeAction::migrate_hot, "migrate_hot"},
	{SchemeAction::migrate_cold, "migrate_cold"},
	{SchemeAction::pageout, "pageout"},
	{SchemeAction::cold, "cold"},
	{SchemeAction::willneed, "willneed"},
	{SchemeAction::collapse, "collapse"},
	{SchemeAction::stat, "stat"},
	{SchemeAction::lru_prio, "lru_prio"},
};

const size_t MAX_QUOTA_GOALS = 8;

const struct {
	GoalMetric metric;
	const char *name;
} goal_metric_names[] = {
	{GoalMetric::user_input, "user_input"},
	{GoalMetric::some_mem_psi_us, "some_mem_psi_us"},
	{GoalMetric::node_mem_used_bp, "node_mem_used_bp"},
	{GoalMetric::node_mem_free_bp, "node_mem_free_bp"},
};

constexpr JsonFields field{"schemes: "};

[[noreturn]] void fail(const std::string &where, const std::string &what)
{
	field.fail(where, what);
}

std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t");
	size_t e = s.find_last_not_of(" \t");
	return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A JSON number or string, as text.
std::string text(const json &v, const std::string &where)
{
	if (v.is_number_unsigned())
		return std::to_string(v.get<uint64_t>());
	if (v.is_number_integer())
		fail(where, "must not be negative");
	if (v.is_number_float()) {
		std::ostringstream os;
		os << v.get<double>();
		return os.str();
	}
	if (v.is_string())
		return trim(v.get<std::string>());
	fail(where, "must be a number or a string");
}

// "1,024.5" -> 1024.5; nullopt unless the whole of @s is a number >= 0.
std::optional<long double> number(const std::string &s)
{
	std::string digits;

	for (char c : trim(s))
		if (c != ',')
			digits += c;
	if (digits.empty() || digits[0] == '-' || digits[0] == '+')
		return std::nullopt;
	char *end = nullptr;
	errno = 0;
	long double v = std::strtold(digits.c_str(), &end);
	if (errno || *end || !std::isfinite(v))
		return std::nullopt;
	return v;
}

uint64_t to_u64(long double v, const std::string &where)
{
	if (v >= 18446744073709551615.0L)
		return UINT64_MAX;
	if (v < 0)
		fail(where, "must not be negative");
	return uint64_t(std::llround(v));
}

uint64_t get_uint(const json &v, const std::string &where,
		  uint64_t max = UINT64_MAX)
{
	std::string s = text(v, where);
	uint64_t n;

	if (s == "max") {
		n = UINT64_MAX;
	} else {
		auto x = number(s);
		if (!x || std::floor(*x) != *x)
			fail(where, "'" + s + "' is not a whole number");
		n = to_u64(*x, where);
	}
	if (n > max)
		fail(where, s + " is above " + std::to_string(max));
	return n;
}

// A permil as damo writes it: "0.1 %" (= 1 permil), "500", "1.000000".
uint32_t get_permil(const json &v, const std::string &where)
{
	std::string s = text(v, where);
	bool percent = !s.empty() && s.back() == '%';
	auto x = number(percent ? s.substr(0, s.size() - 1) : s);

	if (!x)
		fail(where, "'" + s + "' is not a permil (N or N %)");
	long double permil = percent ? *x * 10 : *x;
	if (permil > UINT32_MAX)
		fail(where, s + " is too large");
	return uint32_t(std::llround(permil));
}

SchemeAction get_action(const json &v, const std::string &where)
{
	std::string name = field.get_string(v, where);
	auto a = scheme_action_from_string(name);
	if (!a) {
		std::string list;
		for (const auto &n : action_names)
			list += (list.empty() ? "" : ", ") +
				std::string(n.name);
		fail(where, "unknown action '" + name +
				    "' (expected one of: " + list + ")");
	}
	return *a;
}

int get_node(const json &v, const std::string &where)
{
	return int(get_uint(v, where, MAX_NODE));
}

// nr_accesses: "N %" is a percentage; a bare number is a count in
// damonctl's format (@bare_percent false) and a percentage in damo's;
// "N samples" (damo) is a count.
uint64_t get_nr_accesses(const json &v, const std::string &where,
			 bool bare_percent, bool &percent)
{
	std::string s = text(v, where);
	std::string num = s;

	percent = bare_percent;
	if (!s.empty() && s.back() == '%') {
		percent = true;
		num = s.substr(0, s.size() - 1);
	} else if (s.size() > 8 && s.compare(s.size() - 7, 7, "samples") == 0) {
		percent = false;
		num = s.substr(0, s.size() - 7);
	}
	num = trim(num);
	uint64_t n;
	if (num == "max") {
		n = UINT64_MAX;
	} else if (num == "min") {
		n = 0;
	} else {
		auto x = number(num);
		if (!x)
			fail(where, "'" + s +
					    "' is not a count or a percentage "
					    "(N or N %)");
		n = to_u64(*x, where);
	}
	if (percent && n > 100) {
		// damo writes "max" of a percentage as ULONG_MAX %
		if (n != UINT64_MAX)
			fail(where, s + " is above 100 %");
		n = 100;
	}
	return n;
}

// age: a time ("5 s", damo's bare numbers are microseconds) or a count of
// aggregations ("N aggr_intervals", damonctl's bare numbers).
uint64_t get_age(const json &v, const std::string &where, bool bare_usec,
		 bool &usec)
{
	std::string s = text(v, where);
	const std::string aggrs[] = {"aggr_intervals", "aggrs"};

	if (s == "max" || s == "min") {
		usec = bare_usec;
		return s == "max" ? UINT64_MAX : 0;
	}
	for (const auto &u : aggrs)
		if (s.size() > u.size() &&
		    s.compare(s.size() - u.size(), u.size(), u) == 0) {
			usec = false;
			return get_uint(trim(s.substr(0, s.size() - u.size())),
					where);
		}
	auto x = number(s);
	if (x) {
		usec = bare_usec;
		if (std::floor(*x) != *x)
			fail(where, "'" + s + "' is not a whole number");
		return to_u64(*x, where);
	}
	usec = true;
	return parse_scheme_time_us(s, 1, where);
}

MinMax get_minmax(const json &v, const std::string &where,
		  uint64_t (*get)(const json &, const std::string &))
{
	MinMax m;

	field.only_keys(v, where, {"min", "max"});
	if (v.contains("min"))
		m.min = get(v["min"], where + ".min");
	if (v.contains("max"))
		m.max = get(v["max"], where + ".max");
	if (m.min > m.max)
		fail(where, "min is above max");
	return m;
}

uint64_t get_bytes(const json &v, const std::string &where)
{
	return parse_scheme_bytes(text(v, where), where);
}

// A quota goal's target: a ratio in bp ("7000", "7,000") or percent
// ("70 %") for the node metrics, a time for some_mem_psi_us ("1 ms", bare
// microseconds), a whole number for user_input; above 0 in all cases.
uint64_t get_goal_target(GoalMetric m, const json &v, const std::string &where)
{
	std::string s = text(v, where);
	uint64_t target;

	switch (m) {
	case GoalMetric::node_mem_used_bp:
	case GoalMetric::node_mem_free_bp: {
		bool percent = !s.empty() && s.back() == '%';
		auto x = number(percent ? s.substr(0, s.size() - 1) : s);
		if (!x)
			fail(where, "'" + s +
					    "' is not a ratio in bp (N) or "
					    "percent (N %)");
		long double bp = percent ? *x * 100 : *x;
		if (bp > 10000)
			fail(where, s + " is above 10000 bp (100 %)");
		target = to_u64(bp, where);
		break;
	}
	case GoalMetric::some_mem_psi_us:
		target = parse_scheme_time_us(s, 1, where);
		break;
	default:
		target = get_uint(v, where);
		break;
	}
	if (!target)
		fail(where, "must be above 0 (the score divides by it)");
	return target;
}

// One quota goal: damonctl's and damo's keys are the same (metric,
// target_value, current_value, nid); damo writes null for an unused nid
// and memcg_path and the current values the kernel had (ignored but
// user_input's).
QuotaGoal get_goal(const json &g, const std::string &where, bool damo)
{
	QuotaGoal goal;

	if (damo) {
		if (!g.is_object())
			fail(where, "must be an object");
	} else {
		field.only_keys(
			g, where,
			{"metric", "target_value", "current_value", "nid"});
	}
	if (!g.contains("metric") || !g["metric"].is_string())
		fail(where, "needs a metric");
	std::string m = g["metric"].get<std::string>();
	auto metric = goal_metric_from_string(m);
	if (!metric) {
		std::string list;
		for (const auto &n : goal_metric_names)
			list += (list.empty() ? "" : ", ") +
				std::string(n.name);
		fail(where + ".metric", "unknown metric '" + m +
						"' (expected one of: " + list +
						")");
	}
	goal.metric = *metric;
	if (damo && g.contains("memcg_path") && !g["memcg_path"].is_null())
		fail(where + ".memcg_path", "memcg goals are not supported");
	if (!g.contains("target_value"))
		fail(where, "needs a target_value");
	goal.target_value = get_goal_target(goal.metric, g["target_value"],
					    where + ".target_value");
	bool has_nid = g.contains("nid") && !g["nid"].is_null();
	if (goal_metric_has_nid(goal.metric)) {
		if (!has_nid)
			fail(where, m + " needs a nid (the node)");
		goal.nid = get_node(g["nid"], where + ".nid");
	} else if (has_nid) {
		fail(where + ".nid",
		     "is for node_mem_used_bp and node_mem_free_bp");
	}
	if (g.contains("current_value")) {
		if (goal.metric == GoalMetric::user_input)
			goal.current_value = get_uint(g["current_value"],
						      where + ".current_value");
		else if (!damo)
			fail(where + ".current_value", "is for user_input");
	}
	return goal;
}

std::vector<QuotaGoal> get_goals(const json &v, const std::string &where,
				 bool damo)
{
	std::vector<QuotaGoal> goals;

	if (!v.is_array())
		fail(where, "must be an array");
	if (v.size() > MAX_QUOTA_GOALS)
		fail(where, "at most " + std::to_string(MAX_QUOTA_GOALS));
	for (size_t i = 0; i < v.size(); i++)
		goals.push_back(get_goal(
			v[i], where + "[" + std::to_string(i) + "]", damo));
	return goals;
}

GoalTuner get_goal_tuner(const json &v, const std::string &where)
{
	if (!v.is_string())
		fail(where, "must be a string (consist or temporal)");
	std::string t = v.get<std::string>();
	if (t == "consist")
		return GoalTuner::consist;
	if (t == "temporal")
		return GoalTuner::temporal;
	fail(where,
	     "unknown goal tuner '" + t + "' (expected consist or temporal)");
}

void check_scheme(const Scheme &s, const std::string &where)
{
	bool migrate = s.action == SchemeAction::migrate_hot ||
		       s.action == SchemeAction::migrate_cold;

	if (migrate && !s.node)
		fail(where, to_string(s.action) + " needs a node");
	const auto &w = s.wmarks;
	if (w.metric != WmarkMetric::none &&
	    !(w.low <= w.mid && w.mid <= w.high))
		fail(where + ".watermarks", "must be low <= mid <= high");
	if (s.quota.limited() && !s.quota.reset_interval_ms)
		fail(where + ".quota",
		     s.quota.goals.empty()
			     ? "a byte or time quota needs a reset interval"
			     : "quota goals need a reset interval");
}

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

// damonctl's own format.
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
	if (j.contains("filters")) {
		const json &fs = j["filters"];
		if (!fs.is_array())
			fail(where + ".filters", "must be an array");
		if (fs.size() > MAX_SCHEME_FILTERS)
			fail(where + ".filters",
			     "at most " + std::to_string(MAX_SCHEME_FILTERS));
		for (size_t i = 0; i < fs.size(); i++)
			s.filters.push_back(get_own_filter(
				fs[i],
				where + ".filters[" + std::to_string(i) + "]"));
	}
	check_scheme(s, where);
	return s;
}

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
	if (j.contains("filters")) {
		const json &fs = j["filters"];
		if (!fs.is_array())
			fail(where + ".filters", "must be an array");
		if (fs.size() > MAX_SCHEME_FILTERS)
			fail(where + ".filters",
			     "at most " + std::to_string(MAX_SCHEME_FILTERS));
		for (size_t i = 0; i < fs.size(); i++)
			s.filters.push_back(get_damo_filter(
				fs[i],
				where + ".filters[" + std::to_string(i) + "]"));
	}
	check_scheme(s, where);
	return s;
}

void name_schemes(std::vector<Scheme> &schemes)
{
	for (size_t i = 0; i < schemes.size(); i++) {
		if (schemes[i].name.empty())
			schemes[i].name = "scheme" + std::to_string(i);
		for (size_t k = 0; k < i; k++)
			if (schemes[k].name == schemes[i].name)
				fail("schemes[" + std::to_string(i) + "].name",
				     "'" + schemes[i].name +
					     "' is the name of schemes[" +
					     std::to_string(k) + "] too");
	}
	if (schemes.empty())
		fail("schemes", "no scheme given");
	if (schemes.size() > MAX_SCHEMES)
		fail("schemes", "at most " + std::to_string(MAX_SCHEMES));
}

} // namespace

std::string to_string(SchemeAction a)
{
	for (const auto &n : action_names)
		if (n.action == a)
			return n.name;
	return "?";
}

std::optional<SchemeAction> scheme_action_from_string(const std::string &s)
{
	for (const auto &n : action_names)
		if (s == n.name)
			return n.action;
	return std::nullopt;
}

std::string to_string(GoalMetric m)
{
	for (const auto &n : goal_metric_names)
		if (n.metric == m)
			return n.name;
	return "?";
}

std::optional<GoalMetric> goal_metric_from_string(const std::string &s)
{
	for (const auto &n : goal_metric_names)
		if (s == n.name)
			return n.metric;
	return std::nullopt;
}

bool goal_metric_has_nid(GoalMetric m)
{
	return m == GoalMetric::node_mem_used_bp ||
	       m == GoalMetric::node_mem_free_bp;
}

bool action_prefers_hot(SchemeAction a)
{
	return !(a == SchemeAction::pageout || a == SchemeAction::cold ||
		 a == SchemeAction::migrate_cold);
}

uint64_t parse_scheme_bytes(const std::string &s_, const std::string &where)
{
	static const struct {
		const char *unit;
		int shift;
	} units[] = {
		{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"PiB", 50},
		{"EiB", 60}, {"KB", 10},  {"MB", 20},  {"GB", 30},  {"TB", 40},
		{"PB", 50},  {"EB", 60},  {"K", 10},   {"M", 20},   {"G", 30},
		{"T", 40},   {"P", 50},   {"E", 60},   {"B", 0},
	};
	std::string s = trim(s_);

	if (s == "max")
		return UINT64_MAX;
	if (s == "min")
		return 0;
	for (const auto &u : units) {
		size_t n = std::char_traits<char>::length(u.unit);
		if (s.size() <= n || s.compare(s.size() - n, n, u.unit) != 0)
			continue;
		auto x = number(s.substr(0, s.size() - n));
		if (!x)
			break;
		return to_u64(*x * std::pow(2.0L, u.shift), where);
	}
	auto x = number(s);
	if (!x)
		fail(where, "'" + s + "' is not a size (N, N KiB, N M, max)");
	return to_u64(*x, where);
}

uint64_t parse_scheme_time_us(const std::string &s_, uint64_t unit_us,
			      const std::string &where)
{
	static const struct {
		const char *unit;
		long double us;
	} units[] = {
		{"ns", 0.001L},        {"us", 1},       {"ms", 1000},
		{"s", 1000000},        {"m", 60000000}, {"h", 3600000000.0L},
		{"d", 86400000000.0L},
	};
	std::string s = trim(s_);

	if (s == "max")
		return UINT64_MAX;
	if (s == "min")
		return 0;
	if (auto x = number(s))
		return to_u64(*x * unit_us, where);
	// "1 m 3 s", "5s", "100 ms": number-unit pairs
	std::istringstream in(s);
	std::vector<std::string> words;
	for (std::string w; in >> w;)
		words.push_back(w);
	long double total = 0;
	for (size_t i = 0; i < words.size(); i++) {
		std::string num = words[i], unit;
		if (number(num)) {
			if (i + 1 < words.size())
				unit = words[++i];
		} else {
			size_t k = num.find_first_not_of("0123456789.,");
			unit = num.substr(k);
			num = num.substr(0, k);
		}
		auto x = number(num);
		bool found = false;
		for (const auto &u : units)
			if (x && unit == u.unit) {
				total += *x * u.us;
				found = true;
			}
		if (!found)
			fail(where, "'" + s +
					    "' is not a time (N us, N ms, "
					    "N s, N m, N h)");
	}
	return to_u64(total, where);
}

std::vector<Scheme> parse_schemes(const json &doc)
{
	std::vector<Scheme> out;

	if (doc.is_object() && doc.contains("kdamonds")) {
		const json &ks = doc["kdamonds"];
		if (!ks.is_array())
			fail("kdamonds", "must be an array");
		for (size_t k = 0; k < ks.size(); k++) {
			const json &cs = ks[k].value("contexts", json::array());
			for (size_t c = 0; c < cs.size(); c++) {
				const json &ss =
					cs[c].value("schemes", json::array());
				for (size_t i = 0; i < ss.size(); i++)
					out.push_back(get_damo_scheme(
						ss[i],
						"kdamonds[" +
							std::to_string(k) +
							"].contexts[" +
							std::to_string(c) +
							"].schemes[" +
							std::to_string(i) +
							"]"));
			}
		}
	} else if (doc.is_array()) {
		for (size_t i = 0; i < doc.size(); i++)
			out.push_back(get_damo_scheme(
				doc[i], "[" + std::to_string(i) + "]"));
	} else if (doc.is_object() && doc.contains("schemes")) {
		field.only_keys(doc, "file", {"schemes"});
		const json &ss = doc["schemes"];
		if (!ss.is_array())
			fail("schemes", "must be an array");
		for (size_t i = 0; i < ss.size(); i++) {
			std::string where =
				"schemes[" + std::to_string(i) + "]";
			if (ss[i].is_object() &&
			    ss[i].contains("access_pattern"))
				out.push_back(get_damo_scheme(ss[i], where));
			else
				out.push_back(get_own_scheme(ss[i], where));
		}
	} else {
		fail("file", "expected {\"schemes\": [...]}, damo's "
			     "{\"kdamonds\": ...} or an array of damo "
			     "schemes");
	}
	name_schemes(out);
	return out;
}

std::vector<Scheme> load_schemes_file(const std::string &path)
{
	return parse_schemes(read_json_file(path, "schemes file"));
}

} // namespace damonctl
