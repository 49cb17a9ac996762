// SPDX-License-Identifier: GPL-2.0
// Data model shared by the client library, the config parser and the
// renderers. Plain values, no netlink.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace damonctl {

enum class Ops : uint32_t { vaddr = 0, paddr = 1 };
enum class CtxState : uint32_t { configured = 0, running = 1, stopped = 2 };
enum class Mode : uint32_t { presence = 0, count = 1 };
enum class Split : uint32_t { samples = 0, random = 1 };
enum class FilterType : uint32_t { cpumask = 0, tid = 1, write = 2 };
// An aggregation against the sample floor (enum damon_perf_confidence).
enum class Confidence : uint32_t { met = 0, carried = 1, low = 2 };

std::string to_string(Ops ops);
std::string to_string(CtxState state);
std::string to_string(Mode mode);
std::string to_string(Split split);
std::string to_string(FilterType type);
std::string to_string(Confidence c);
std::optional<Confidence> confidence_from_string(const std::string &s);
std::optional<Ops> ops_from_string(const std::string &s);
std::optional<Mode> mode_from_string(const std::string &s);
std::optional<Split> split_from_string(const std::string &s);
std::optional<FilterType> filter_type_from_string(const std::string &s);
// "PCT" with at most two decimals, 0 .. 100, in 1/100 % (0.5 -> 50).
std::optional<uint32_t> cpu_budget_from_string(const std::string &s);
// 50 -> "0.5"
std::string cpu_budget_to_string(uint32_t budget);
// a measured cost in millionths of one CPU as a percentage: 1234 -> "0.1234"
std::string cpu_cost_to_string(uint32_t cost);

// Monitoring attributes; unset fields are left unchanged by SET_ATTRS.
struct Attrs {
	std::optional<uint64_t> sample_us;
	std::optional<uint64_t> aggr_us;
	std::optional<uint64_t> update_us;
	std::optional<uint32_t> min_nr_regions;
	std::optional<uint32_t> max_nr_regions;
	std::optional<Mode> mode;
	std::optional<uint32_t> ring_size;
	std::optional<Split> split;
	// CPU budget in 1/100 % of one CPU (0 = none), see parse_cpu_budget
	std::optional<uint32_t> cpu_budget;
	// intervals tuning: samples per aggregation (0 = a fixed aggr_us),
	// aggregations per step, bounds of the tuned interval (0 = derived)
	std::optional<uint32_t> samples_goal;
	std::optional<uint32_t> goal_aggrs;
	std::optional<uint64_t> min_aggr_us;
	std::optional<uint64_t> max_aggr_us;

	bool empty() const
	{
		return !sample_us && !aggr_us && !update_us &&
		       !min_nr_regions && !max_nr_regions && !mode &&
		       !ring_size && !split && !cpu_budget && !samples_goal &&
		       !goal_aggrs && !min_aggr_us && !max_aggr_us;
	}
};

struct Target {
	uint32_t id = 0; // reply only
	std::optional<uint32_t> pid;
	std::optional<uint64_t> start;
	std::optional<uint64_t> end;
	bool dead = false;
	uint32_t nr_regions = 0;
};

// Every field of the kernel's struct damon_perf_probe_attr.
struct Probe {
	uint32_t idx = 0; // reply only, 1-based
	uint32_t type = 0;
	uint64_t config = 0;
	uint64_t config1 = 0;
	uint64_t config2 = 0;
	uint64_t sample_period = 0; // frequency in Hz when freq
	bool freq = false;
	uint32_t wakeup_events = 0;
	uint32_t weight = 1;
	uint8_t precise_ip = 0;
	bool sample_phys_addr = false;
	bool sample_weight_struct = false;
	bool exclude_kernel = false;
	bool exclude_hv = false;
	bool exclude_user = false;
	uint64_t effective_period = 0; // reply only: 0 unless armed, fixed
	std::string event; // the event string it came from (userspace only)
};

struct Filter {
	FilterType type = FilterType::cpumask;
	bool allow = true;
	std::string cpus; // cpu list, cpumask filters
	std::vector<uint32_t> tids;
};

// What the CPU budget measured (CTX_GET reply).
struct BudgetInfo {
	uint32_t cost = 0; // last aggregation, millionths of one CPU
	uint64_t handler_ns = 0;
	uint64_t drain_ns = 0;
	uint64_t raises = 0;
	uint64_t lowers = 0;
	uint64_t refused = 0; // periods the PMU refused
};

// What the intervals tuning chose and saw (CTX_GET reply, with a goal).
struct TuningInfo {
	uint64_t aggr_us = 0; // the interval in force
	uint64_t min_aggr_us = 0;
	uint64_t max_aggr_us = 0;
	uint64_t samples = 0; // per aggregation at the last step
	uint64_t steps = 0;
	uint64_t ups = 0;
	uint64_t downs = 0;
	uint32_t period_div = 1; // configured periods / this, at most
};

struct CtxInfo {
	uint32_t id = 0;
	std::string name;
	Ops ops = Ops::vaddr;
	CtxState state = CtxState::configured;
	Attrs attrs;
	std::vector<Target> targets;
	std::vector<Probe> probes;
	std::vector<Filter> filters;
	uint32_t arm_failures = 0;
	uint64_t stale_drops = 0;
	std::optional<BudgetInfo> budget;
	std::optional<TuningInfo> tuning;
};

struct Region {
	uint32_t target_id = 0;
	uint64_t start = 0;
	uint64_t end = 0;
	uint32_t nr_accesses = 0;
	uint32_t age = 0;
	uint64_t rate = 0;
	std::vector<uint64_t> probe_hits; // index = probe idx - 1
	// the span its samples of the aggregation cover, [sampled_start,
	// sampled_end): no page outside it had one; 0 0 when none (or
	// from a module or a recording without it)
	uint64_t sampled_start = 0;
	uint64_t sampled_end = 0;
	// the runs of pages its samples fell on, [first, end) in address
	// order, when more than one (the module joins the closest beyond
	// DAMON_PERF_SAMPLED_RUNS_MAX): no page outside them had a sample;
	// empty: one run, [sampled_start, sampled_end), or none
	std::vector<std::pair<uint64_t, uint64_t>> sampled_runs;
	uint64_t size() const { return end - start; }
	bool sampled() const { return sampled_end > sampled_start; }
};

// One aggregation: a SNAPSHOT_GET dump or an AGGREGATION notification.
struct Aggregation {
	uint32_t ctx_id = 0;
	std::string ctx_name;
	uint64_t seq = 0;
	uint64_t time_ns = 0;
	uint64_t aggr_us = 0;
	// the context's other intervals, when record knew them (userspace only)
	std::optional<uint64_t> sample_us;
	std::optional<uint64_t> update_us;
	uint32_t nr_regions = 0;
	bool truncated = false;
	// the sample floor's verdict; unset from a module (or a recording)
	// without one: as met
	std::optional<uint64_t> nr_samples; // samples it rests on
	std::optional<uint64_t> floor;      // the floor it was judged against
	std::optional<Confidence> confidence;
	uint32_t carried = 0; // aggregations since the regions were measured
	uint32_t windows = 1; // aggregation intervals their measurement spans
	// aggregations of the context that never reached the subscriber
	// between the previous one it received and this one (a gap in seq;
	// userspace only)
	uint64_t missed = 0;
	std::vector<Target> targets;
	std::vector<Region> regions;

	// whether the regions are this aggregation's, from enough samples
	bool met_floor() const
	{
		return !confidence || *confidence == Confidence::met;
	}
};

struct StatsRow {
	std::optional<uint32_t> cpu; // empty: the total row
	uint32_t state = 0;
	std::string state_name;
	std::vector<std::pair<std::string, uint64_t>> counters;
};

// What one LRU_PRIO request did, in the kernel's pages.
struct LruResult {
	uint64_t nr_tried = 0;
	uint64_t nr_applied = 0;
	uint64_t nr_skipped = 0;
};

// One CPU's mmapped AUX buffer handed to a context (AUX_ATTACH).
struct AuxAttach {
	uint32_t cpu = 0;
	int32_t fd = -1;
	uint64_t user_page = 0;
	uint64_t aux_addr = 0;
	uint64_t aux_size = 0;
	uint32_t pid = 0; // 0: CPU-wide
	uint8_t probe_idx = 1;
};

// Full configuration of one context, as `start` applies it.
struct CtxConfig {
	std::string name;
	Ops ops = Ops::vaddr;
	Attrs attrs;
	std::vector<Target> targets;
	std::vector<Probe> probes;
	std::vector<Filter> filters;
};

bool operator==(const Attrs &a, const Attrs &b);
bool operator==(const Target &a, const Target &b);
bool operator==(const Probe &a, const Probe &b);
bool operator==(const Filter &a, const Filter &b);
bool operator==(const BudgetInfo &a, const BudgetInfo &b);
bool operator==(const TuningInfo &a, const TuningInfo &b);
bool operator==(const CtxInfo &a, const CtxInfo &b);
bool operator==(const Region &a, const Region &b);
bool operator==(const Aggregation &a, const Aggregation &b);
bool operator==(const StatsRow &a, const StatsRow &b);
bool operator==(const CtxConfig &a, const CtxConfig &b);

} // namespace damonctl
