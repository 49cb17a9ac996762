// SPDX-License-Identifier: GPL-2.0
#include "scheme_parse.hpp"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace damonctl::scheme_parse {

namespace {

const int MAX_NODE = 1023;
const size_t MAX_SCHEME_FILTERS = 16;
const size_t MAX_QUOTA_GOALS = 8;

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
	if (!metric)
		fail(where + ".metric",
		     "unknown metric '" + m +
			     "' (expected one of: " + goal_metric_list() + ")");
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

} // namespace

SchemeAction get_action(const json &v, const std::string &where)
{
	std::string name = field.get_string(v, where);
	auto a = scheme_action_from_string(name);
	if (!a)
		fail(where, "unknown action '" + name + "' (expected one of: " +
				    scheme_action_list() + ")");
	return *a;
}

int get_node(const json &v, const std::string &where)
{
	return int(get_uint(v, where, MAX_NODE));
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

std::vector<SchemeFilter> get_filters(const json &v, const std::string &where,
				      SchemeFilter (*get)(const json &,
							  const std::string &))
{
	std::vector<SchemeFilter> filters;

	if (!v.is_array())
		fail(where, "must be an array");
	if (v.size() > MAX_SCHEME_FILTERS)
		fail(where, "at most " + std::to_string(MAX_SCHEME_FILTERS));
	for (size_t i = 0; i < v.size(); i++)
		filters.push_back(
			get(v[i], where + "[" + std::to_string(i) + "]"));
	return filters;
}

} // namespace damonctl::scheme_parse
