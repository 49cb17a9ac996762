// SPDX-License-Identifier: GPL-2.0
// DAMOS-style schemes applied in userspace: the model (access pattern,
// action, apply interval, quota, watermarks, filters); scheme_file.hpp
// reads it from a file. Documentation/schemes.rst says where they differ
// from DAMOS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace damonctl {

enum class SchemeAction {
	migrate_hot,
	migrate_cold,
	pageout,
	cold,
	willneed,
	collapse,
	stat,
	lru_prio, // physical-address contexts only
};

std::string to_string(SchemeAction a);
std::optional<SchemeAction> scheme_action_from_string(const std::string &s);
// Every action's name, ", "-separated (for messages).
std::string scheme_action_list();
// Whether DAMOS ranks regions for @a by hotness (else by coldness).
bool action_prefers_hot(SchemeAction a);

// A closed range [min, max], as DAMOS's access pattern bounds.
struct MinMax {
	uint64_t min = 0;
	uint64_t max = UINT64_MAX;
};

// nr_accesses as a count, or a percentage (0 .. 100) of the highest
// nr_accesses of the aggregation.
enum class AccessUnit { count, percent };
// age in aggregations, or in microseconds (damo's default unit)
enum class AgeUnit { aggrs, usec };

struct AccessPattern {
	MinMax sz;
	MinMax nr_accesses;
	AccessUnit nr_accesses_unit = AccessUnit::count;
	MinMax age;
	AgeUnit age_unit = AgeUnit::aggrs;
};

// A metric a quota goal tunes the quota for (DAMOS's quota goals, 6.8+).
enum class GoalMetric {
	user_input,       // current_value as given
	some_mem_psi_us,  // memory PSI "some" stall time per reset interval
	node_mem_used_bp, // MemTotal - MemFree of node nid, in bp of MemTotal
	node_mem_free_bp, // MemFree of node nid, in bp of MemTotal
};

std::string to_string(GoalMetric m);
std::optional<GoalMetric> goal_metric_from_string(const std::string &s);
// Every metric's name, ", "-separated (for messages).
std::string goal_metric_list();
// Whether @m is a node's (needs a nid).
bool goal_metric_has_nid(GoalMetric m);

// DAMOS quota goal: the effective quota is tuned each reset interval so
// that the metric's @current_value reaches @target_value.
struct QuotaGoal {
	GoalMetric metric = GoalMetric::user_input;
	uint64_t target_value = 0;  // bp, us or the user's unit; > 0
	uint64_t current_value = 0; // user_input's value
	std::optional<int> nid;     // node_mem_used_bp, node_mem_free_bp
};

// How goals tune the quota (DAMOS's goal_tuner): consist, the feedback
// loop (the default); temporal, the whole quota until the goal is
// reached, nothing from then until it is missed again.
enum class GoalTuner { consist, temporal };

// DAMOS quota: at most @sz bytes and @ms milliseconds of action time per
// @reset_interval_ms; 0 means no limit. Weights (permil) rank the regions
// when the quota is short. With @goals, the bytes per reset interval are
// also tuned by DAMOS's feedback loop; the smallest limit applies.
struct Quota {
	uint64_t ms = 0;
	uint64_t sz = 0;
	uint64_t reset_interval_ms = 0;
	uint32_t weight_sz = 0;
	uint32_t weight_nr_accesses = 0;
	uint32_t weight_age = 0;
	std::vector<QuotaGoal> goals;
	GoalTuner goal_tuner = GoalTuner::consist;

	bool limited() const { return ms || sz || !goals.empty(); }
};

enum class WmarkMetric { none, free_mem_rate };

// Active while the metric (permil) stays in [low, high] after it came
// down to mid or below (DAMOS's watermarks).
struct Watermarks {
	WmarkMetric metric = WmarkMetric::none;
	uint64_t interval_us = 0;
	uint32_t high = 1000;
	uint32_t mid = 1000;
	uint32_t low = 0;
};

enum class SchemeFilterType { addr, anon, target };

// DAMOS filter: it matches when the property (inside the address range,
// anonymous memory, the target) equals @matching; the first filter that
// matches decides (@allow: applied, else skipped); when none matches, the
// memory is skipped if the last filter allows.
struct SchemeFilter {
	SchemeFilterType type = SchemeFilterType::anon;
	bool matching = true;
	bool allow = false;
	uint64_t start = 0;     // addr
	uint64_t end = 0;       // addr
	uint32_t target_id = 0; // target: the context's target id
};

struct Scheme {
	std::string name; // "scheme0" .. unless given
	SchemeAction action = SchemeAction::stat;
	std::optional<int> node; // migrate_hot, migrate_cold
	AccessPattern pattern;
	uint64_t apply_interval_us = 0; // 0: every aggregation
	Quota quota;
	Watermarks wmarks;
	std::vector<SchemeFilter> filters;
};

} // namespace damonctl
