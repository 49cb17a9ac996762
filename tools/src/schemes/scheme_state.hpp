// SPDX-License-Identifier: GPL-2.0
// The engine of `damonctl schemes` as others see it: its CPU budget, its
// own counters (CPU time, aggregations deferred, module reloads, target
// events), the state file it keeps (/run/damon-perf/schemes-NAME.json) and
// how `damonctl status` and `damonctl export` render the state files.
// Pure functions but the file reads and writes, so tests can check them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace damonctl {

// Where engines keep their state files, and the file of engine @name.
extern const char *const SCHEMES_STATE_DIR;
std::string schemes_state_path(const std::string &name);
// The engine's name from its schemes file: its base name without ".json".
std::string engine_name_of(const std::string &config_path);

// The process's CPU time (user + system, getrusage(2)) in ns.
uint64_t process_cpu_ns();

// --cpu-budget of the engine: a share of one CPU (1/100 %, as the
// module's), kept as a token bucket. Credit accrues with wall time at
// the budget's rate (up to one second's worth) and the process's CPU
// time is charged against it; an aggregation that finds the credit spent
// is deferred: no scheme is applied to it. Over any run the engine's CPU
// time stays under budget x wall time + one second's worth + one pass.
class CpuBudget {
public:
	explicit CpuBudget(uint32_t budget)
		: budget_(budget)
	{
	}
	// At an aggregation, with the monotonic time and the process CPU
	// time (ns): whether its schemes may run.
	bool admit(uint64_t wall_ns, uint64_t cpu_ns);
	uint64_t deferred() const { return deferred_; }
	uint32_t budget() const { return budget_; }

private:
	uint32_t budget_;
	bool started_ = false;
	uint64_t last_wall_ = 0;
	uint64_t last_cpu_ = 0;
	int64_t credit_ = 0;
	uint64_t deferred_ = 0;
};

// The engine's own counters.
struct EngineCounters {
	uint64_t aggregations = 0;   // aggregations taken
	uint64_t passes = 0;         // ... the schemes were applied to
	uint64_t deferred = 0;       // ... deferred by the CPU budget
	uint64_t skipped = 0;        // ... lost: module or context gone
	uint64_t engine_cpu_ns = 0;  // CPU time in the passes
	uint64_t process_cpu_ns = 0; // CPU time of the process (getrusage)
	uint64_t wall_ns = 0;        // since the start
	uint64_t module_unloads = 0; // times the module was found gone
	uint64_t module_reloads = 0; // times a new instance was found
	uint64_t gap_ns = 0;         // without aggregations around reloads
	uint64_t contexts_created = 0;
	uint64_t target_exits = 0;
	uint64_t target_execs = 0;
	uint64_t target_eperm = 0;
};

// The state file's object: @schemes as to_json(Scheme, SchemeStats)
// gives them.
nlohmann::json engine_state_json(const std::string &name, uint32_t pid,
				 const std::string &config, bool running,
				 uint32_t cpu_budget,
				 const std::vector<std::string> &contexts,
				 const EngineCounters &c,
				 const nlohmann::json &schemes);

// The state files in @dir (schemes-*.json), by name; one that cannot be
// read or parsed is left out. An engine whose process is gone while its
// file says running is marked "running": false, "stale": true.
std::vector<nlohmann::json> read_engine_states(const std::string &dir);

// The states whose contexts include one of @names (empty: every one).
std::vector<nlohmann::json>
engines_for(const std::vector<nlohmann::json> &states,
	    const std::vector<std::string> &names);

// `damonctl status`'s lines for the engines.
std::string render_engine_status(const std::vector<nlohmann::json> &states);

// The engines' metrics for node_exporter's textfile collector.
std::string render_engine_textfile(const std::vector<nlohmann::json> &states);

} // namespace damonctl
