// SPDX-License-Identifier: GPL-2.0
// What the two scheme formats share (scheme_parse.cpp) and their readers
// (scheme_own.cpp, scheme_damo.cpp), for scheme_file.cpp: each reads one
// value and throws UsageError "schemes: WHERE: ..." at the first problem,
// @where the JSON path of the value.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scheme.hpp"
#include "scheme_units.hpp"

namespace damonctl::scheme_parse {

SchemeAction get_action(const nlohmann::json &v, const std::string &where);
int get_node(const nlohmann::json &v, const std::string &where);
// {"min": ..., "max": ...}, each read by @get; min <= max.
MinMax get_minmax(const nlohmann::json &v, const std::string &where,
		  uint64_t (*get)(const nlohmann::json &, const std::string &));
// Quota goals: damonctl's and damo's keys are the same; @damo lets the
// fields damo writes and damonctl ignores through.
std::vector<QuotaGoal> get_goals(const nlohmann::json &v,
				 const std::string &where, bool damo);
GoalTuner get_goal_tuner(const nlohmann::json &v, const std::string &where);
// An array of filters, each read by @get.
std::vector<SchemeFilter>
get_filters(const nlohmann::json &v, const std::string &where,
	    SchemeFilter (*get)(const nlohmann::json &, const std::string &));
// The relations between a scheme's fields: a node to migrate to, ordered
// watermarks, a reset interval for a quota.
void check_scheme(const Scheme &s, const std::string &where);

// damonctl's own format (scheme_own.cpp).
Scheme get_own_scheme(const nlohmann::json &j, const std::string &where);
// One scheme of damo 3.3's JSON (scheme_damo.cpp).
Scheme get_damo_scheme(const nlohmann::json &j, const std::string &where);

} // namespace damonctl::scheme_parse
