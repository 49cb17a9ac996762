// SPDX-License-Identifier: GPL-2.0
#include "scheme.hpp"

namespace damonctl {

namespace {

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

const struct {
	GoalMetric metric;
	const char *name;
} goal_metric_names[] = {
	{GoalMetric::user_input, "user_input"},
	{GoalMetric::some_mem_psi_us, "some_mem_psi_us"},
	{GoalMetric::node_mem_used_bp, "node_mem_used_bp"},
	{GoalMetric::node_mem_free_bp, "node_mem_free_bp"},
};

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

std::string scheme_action_list()
{
	std::string list;

	for (const auto &n : action_names)
		list += (list.empty() ? "" : ", ") + std::string(n.name);
	return list;
}

std::string goal_metric_list()
{
	std::string list;

	for (const auto &n : goal_metric_names)
		list += (list.empty() ? "" : ", ") + std::string(n.name);
	return list;
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

} // namespace damonctl
