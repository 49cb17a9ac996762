// SPDX-License-Identifier: GPL-2.0
// The engine of `damonctl schemes`: given one aggregation, it picks the
// regions each scheme's access pattern matches, ranks them by DAMOS's
// priority when the quota is short, cuts them to the target's mappings and
// the filters, and applies the action through a SchemeBackend (the system
// calls in scheme_backend.cpp; a fake in the tests), keeping DAMOS's
// per-scheme stats.
#pragma once

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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

// The base page size (sysconf(_SC_PAGESIZE), read once): 4 KiB on x86,
// 4, 16 or 64 KiB on arm64.
uint64_t system_page_size();

// [start, end) of one mapped transparent huge page.
struct HugePage {
	uint64_t start = 0;
	uint64_t end = 0;
};

// What one action on one range did.
struct ApplyResult {
	uint64_t sz_applied = 0;        // bytes the action took effect on
	std::map<int, uint64_t> failed; // errno -> pages that failed
	// migrate_hot/cold: bytes found on the node already (not moved,
	// not in sz_applied)
	uint64_t sz_placed = 0;
};

// A NUMA node's memory (/sys/devices/system/node/nodeN/meminfo), bytes.
struct NodeMem {
	uint64_t total = 0; // MemTotal: the node's managed memory
	uint64_t free = 0;  // MemFree
};

// Where the actions go.
class SchemeBackend {
public:
	virtual ~SchemeBackend() = default;
	// The memory of node @nid; nullopt when it has none (no such node).
	virtual std::optional<NodeMem> node_mem(int nid)
	{
		(void)nid;
		return std::nullopt;
	}
	// The total time (us) some task stalled on memory since boot
	// (/proc/pressure/memory); nullopt without PSI.
	virtual std::optional<uint64_t> some_mem_psi_total_us()
	{
		return std::nullopt;
	}
	// The base page size the actions step in and failures count in.
	virtual uint64_t page_size() { return system_page_size(); }
	// The transparent huge pages mapped in [@start, @end) of @pid (one
	// mapping), in address order. Empty when there are none, or when
	// where they are cannot be known (no frame numbers in the pagemap
	// without CAP_SYS_ADMIN): the engine then steps in base pages.
	virtual std::vector<HugePage> huge_pages(uint32_t pid, uint64_t start,
						 uint64_t end)
	{
		(void)pid;
		(void)start;
		(void)end;
		return {};
	}
	// The mappings of @pid in address order; throws std::system_error
	// (the errno) when they cannot be read (ESRCH/ENOENT: it exited).
	virtual std::vector<Mapping> mappings(uint32_t pid) = 0;
	// Applies @action (to @node for migrations) to [start, end) of @pid.
	virtual ApplyResult apply(uint32_t pid, SchemeAction action, int node,
				  uint64_t start, uint64_t end) = 0;
	// Whether a migration's sz_applied + sz_placed is what is on the node
	// after it (move_pages(2)'s statuses), so that a range found wholly
	// there need not be asked about for a while (PLACED_TRUST).
	virtual bool reports_placement() const { return false; }
	// Applies @action to [start, end) of the physical address space, a
	// target of the paddr context @ctx_id: lru_prio only (every other
	// action, and a backend without the module, fail with EOPNOTSUPP).
	virtual ApplyResult apply_paddr(uint32_t ctx_id, SchemeAction action,
					uint64_t start, uint64_t end)
	{
		(void)ctx_id;
		(void)action;
		ApplyResult r;
		const uint64_t page = page_size();

		r.failed[EOPNOTSUPP] = (end - start + page - 1) / page;
		return r;
	}
	// Free memory of the system in permil of its total (MemFree).
	virtual uint32_t free_mem_permil() = 0;
	// A monotonic clock (ns), to charge the time quota.
	virtual uint64_t now_ns() = 0;
};

// The system calls: move_pages(2) and process_madvise(2) on a pidfd (no
// paddr actions).
std::unique_ptr<SchemeBackend> make_system_backend();

// What collapse asks MADV_COLLAPSE for of [@start, @end): the whole
// @block-aligned blocks inside it (@block a power of two, the huge page
// size), or nullopt when it holds none.
std::optional<std::pair<uint64_t, uint64_t>>
collapse_range(uint64_t start, uint64_t end, uint64_t block);

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
	uint64_t nr_below_floor = 0;    // skipped: carried or low confidence
};

nlohmann::json to_json(const Scheme &s, const SchemeStats &st);

class SchemeEngine {
public:
	SchemeEngine(std::vector<Scheme> schemes, SchemeBackend &backend);

	// Applies every scheme to @agg (its time_ns is the clock of apply
	// intervals, quota reset intervals and watermark checks); none to an
	// aggregation below the sample floor (carried or low), which each
	// scheme counts in nr_below_floor.
	void apply(const Aggregation &agg);

	// The stats are per scheme, summed over the contexts; the rest of a
	// scheme's state (apply interval, watermarks, quota window and goal
	// tuner, where the quota ran out) is per scheme and context, as each
	// DAMON context has its own schemes. The accessors below give that
	// of the context scheme @i was last applied to.
	size_t size() const { return states_.size(); }
	const Scheme &scheme(size_t i) const { return states_[i].scheme; }
	const SchemeStats &stats(size_t i) const { return states_[i].stats; }
	// Whether the watermarks let scheme @i run at the last aggregation.
	bool active(size_t i) const { return last(i).active; }
	// The bytes scheme @i may still charge in this quota window
	// (UINT64_MAX: no quota).
	uint64_t quota_left(size_t i) const;

	// The effective size quota of scheme @i in its current window (0: no
	// quota), and the goal tuner's last output in bp of a byte.
	uint64_t effective_quota(size_t i) const { return last(i).esz; }
	uint64_t esz_bp(size_t i) const { return last(i).esz_bp; }
	// The metric values goal @g of scheme @i last read.
	uint64_t goal_current(size_t i, size_t g) const
	{
		const auto &v = last(i).goal_current;
		return g < v.size() ? v[g] : 0;
	}

	// The highest nr_accesses of @agg's context, which an nr_accesses
	// percentage is of: aggr_us / sample_us (DAMOS's
	// damon_max_nr_accesses(); presence mode never goes above it),
	// or the aggregation's highest when higher (count mode, whose counts
	// have no bound) or when the sample interval is not known.
	static uint32_t max_nr_accesses(const Aggregation &agg);

	// damon_feed_loop_next_input() of mm/damon/core.c: the next input
	// (esz_bp) for a score (10000: on target) the last input made.
	static uint64_t feed_loop_next_input(uint64_t last_input,
					     uint64_t score);
	// DAMOS's goal score: @current in bp of @target (10000: reached).
	static uint64_t goal_score(uint64_t current, uint64_t target);

	// DAMOS's priority of @r for @s (0 .. 99, higher first), with
	// @max_nr_accesses the context's highest (max_nr_accesses()).
	static unsigned int score(const Scheme &s, const Region &r,
				  uint32_t max_nr_accesses, uint64_t aggr_us);
	// Whether @r matches the access pattern of @s; a percentage is of
	// @max_nr_accesses, and one above 0 is at least 1.
	static bool matches(const Scheme &s, const Region &r,
			    uint32_t max_nr_accesses, uint64_t aggr_us);

private:
	// A scheme's state in one context.
	struct Run {
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
		uint64_t esz = 0;    // effective size quota, 0: none
		uint64_t esz_bp = 0; // the goal tuner's input, bp of a byte
		std::vector<uint64_t> goal_current;  // each goal's metric
		std::vector<uint64_t> goal_last_psi; // some_mem_psi_us's base
		// where the last window's quota ran out (DAMOS's
		// charge_target_from, charge_addr_from): the next starts there
		bool resume = false;
		uint32_t resume_target = 0;
		uint64_t resume_addr = 0;
	};
	struct State {
		Scheme scheme;
		SchemeStats stats;
		// some_mem_psi_us goals' base at the engine's start
		std::vector<uint64_t> start_psi;
		// by context: its name, else "#ID"
		std::map<std::string, Run> runs;
		const Run *last = nullptr;
	};

	const Run &last(size_t i) const
	{
		static const Run none;
		const Run *r = states_[i].last;
		return r ? *r : none;
	}
	Run &run_of(State &st, const Aggregation &agg);
	uint64_t goal_metric(const State &st, Run &run, size_t g);
	uint64_t quota_score(const State &st, Run &run);

	bool check_watermarks(const State &st, Run &run, uint64_t now);
	void adjust_quota(State &st, Run &run, uint64_t now);
	void apply_scheme(State &st, Run &run, const Aggregation &agg,
			  uint32_t max_nr_accesses);
	std::vector<const Region *> quota_order(const State &st, Run &run,
						std::vector<const Region *> c,
						uint32_t max_nr_accesses,
						uint64_t aggr_us);

	// The huge pages of the mapping [@mstart, @mend) of @pid, read once
	// per aggregation.
	const std::vector<HugePage> &huge_pages(uint32_t pid, uint64_t mstart,
						uint64_t mend);
	// migrate_hot/cold of [@start, @end) of @pid to @node, but for the
	// ranges found wholly on @node within PLACED_TRUST aggregations
	// (@cached: their bytes): nothing asked about them again.
	ApplyResult migrate_uncached(uint32_t pid, SchemeAction action,
				     int node, uint64_t start, uint64_t end,
				     uint64_t &cached);

public:
	// Aggregations a range found wholly on a node stays trusted there
	// without a move_pages(2) query: what NUMA balancing, reclaim or a
	// remap moves away again is back within as many.
	static constexpr uint64_t PLACED_TRUST = 8;
	// a range found wholly on a node: its end and the application
	struct Placed {
		uint64_t end;
		uint64_t seq;
	};

private:
	std::vector<State> states_;
	SchemeBackend &backend_;
	const uint64_t page_; // the backend's base page size
	// the huge pages of each (pid, mapping start), read once per
	// aggregation, when a piece first needs them
	std::map<std::pair<uint32_t, uint64_t>, std::vector<HugePage>> hps_;
	// the mappings of each pid, read once per aggregation
	std::map<uint32_t, std::vector<Mapping>> maps_;
	std::map<uint32_t, int> maps_err_;
	// applications (aggregations at or above the floor) so far
	uint64_t seq_ = 0;
	// what migrate_hot/cold found wholly on a node, by (pid, node):
	// disjoint ranges, start -> (end, seq_ when found)
	std::map<std::pair<uint32_t, int>, std::map<uint64_t, Placed>> placed_;
};

} // namespace damonctl
