// SPDX-License-Identifier: GPL-2.0
// The engine of `damonctl schemes`: given one aggregation, it picks the
// regions each scheme's access pattern matches, ranks them by DAMOS's
// priority when the quota is short, cuts them to the target's mappings and
// the filters, and applies the action through a SchemeBackend (the system
// calls in scheme_backend.cpp; a fake in the tests), keeping DAMOS's
// per-scheme stats.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model.hpp"
#include "scheme.hpp"

namespace damonctl {

// One mapping of a target process (/proc/PID/maps).
struct Mapping {
	uint64_t start = 0;
	uint64_t end = 0;
	bool anon = false;
};

// What one action on one range did.
struct ApplyResult {
	uint64_t sz_applied = 0;        // bytes the action took effect on
	std::map<int, uint64_t> failed; // errno -> pages that failed
};

// Where the actions go.
class SchemeBackend {
public:
	virtual ~SchemeBackend() = default;
	// The mappings of @pid in address order; throws std::system_error
	// (the errno) when they cannot be read (ESRCH/ENOENT: it exited).
	virtual std::vector<Mapping> mappings(uint32_t pid) = 0;
	// Applies @action (to @node for migrations) to [start, end) of @pid.
	virtual ApplyResult apply(uint32_t pid, SchemeAction action, int node,
				  uint64_t start, uint64_t end) = 0;
	// Free memory of the system in permil of its total (MemFree).
	virtual uint32_t free_mem_permil() = 0;
	// A monotonic clock (ns), to charge the time quota.
	virtual uint64_t now_ns() = 0;
};

// The system calls: move_pages(2) and process_madvise(2) on a pidfd.
std::unique_ptr<SchemeBackend> make_system_backend();

// DAMOS's per-scheme stats, plus the pages that failed by errno.
struct SchemeStats {
	uint64_t nr_tried = 0;
	uint64_t sz_tried = 0;
	uint64_t nr_applied = 0;
	uint64_t sz_applied = 0;
	uint64_t qt_exceeds = 0;
	std::map<int, uint64_t> failed; // errno -> pages
	uint64_t nr_aggregations = 0;   // aggregations it was applied to
	uint64_t nr_inactive = 0;       // skipped: watermarks off
};

nlohmann::json to_json(const Scheme &s, const SchemeStats &st);

class SchemeEngine {
public:
	SchemeEngine(std::vector<Scheme> schemes, SchemeBackend &backend);

	// Applies every scheme to @agg (its time_ns is the clock of apply
	// intervals, quota reset intervals and watermark checks).
	void apply(const Aggregation &agg);

	size_t size() const { return states_.size(); }
	const Scheme &scheme(size_t i) const { return states_[i].scheme; }
	const SchemeStats &stats(size_t i) const { return states_[i].stats; }
	// Whether the watermarks let scheme @i run at the last aggregation.
	bool active(size_t i) const { return states_[i].active; }
	// The bytes scheme @i may still charge in this quota window
	// (UINT64_MAX: no quota).
	uint64_t quota_left(size_t i) const;

	// DAMOS's priority of @r for @s (0 .. 99, higher first), with
	// @max_nr_accesses the aggregation's highest nr_accesses.
	static unsigned int score(const Scheme &s, const Region &r,
				  uint32_t max_nr_accesses, uint64_t aggr_us);
	// Whether @r matches the access pattern of @s.
	static bool matches(const Scheme &s, const Region &r,
			    uint32_t max_nr_accesses, uint64_t aggr_us);

private:
	struct State {
		Scheme scheme;
		SchemeStats stats;
		bool applied_once = false;
		uint64_t next_apply_ns = 0;
		bool active = true;
		bool wmark_checked = false;
		uint64_t next_wmark_ns = 0;
		bool window_open = false;
		uint64_t window_start_ns = 0;
		uint64_t charged_sz = 0;
		uint64_t charged_ns = 0;
		uint64_t total_charged_sz = 0;
		uint64_t total_charged_ns = 0;
		uint64_t esz = 0; // effective size quota, 0: none
	};

	bool check_watermarks(State &st, uint64_t now);
	void adjust_quota(State &st, uint64_t now);
	void apply_scheme(State &st, const Aggregation &agg,
			  uint32_t max_nr_accesses);

	std::vector<State> states_;
	SchemeBackend &backend_;
	// the mappings of each pid, read once per aggregation
	std::map<uint32_t, std::vector<Mapping>> maps_;
	std::map<uint32_t, int> maps_err_;
};

} // namespace damonctl
