// SPDX-License-Identifier: GPL-2.0
#include "scheme_engine.hpp"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <set>
#include <system_error>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "errors.hpp"

namespace damonctl {

namespace {

// DAMON's constants (mm/damon/ops-common.c, include/linux/damon.h)
const int MAX_SUBSCORE = 100;
const int MAX_AGE_IN_LOG = 32;
const int MAX_SCORE = 99;

// @pct percent of @max, as DAMOS turns a percentage into a count
// (floored), but never 0 for a percentage
// above 0: 20 % of a maximum of 4 is 1, not 0, which would match idle
// regions.
uint64_t pct_of(uint64_t pct, uint32_t max)
{
	uint64_t n = uint64_t((unsigned __int128)pct * max / 100);

	return pct && !n ? 1 : n;
}

// A usec age bound in aggregations, as DAMOS converts it.
uint64_t age_bound(uint64_t v, AgeUnit unit, uint64_t aggr_us)
{
	if (unit == AgeUnit::aggrs || v == UINT64_MAX)
		return v;
	return v / (aggr_us ? aggr_us : 1);
}

// A piece of a region: in one mapping (@mstart, @mend) and on one side of
// every address filter's bounds.
struct Piece {
	uint64_t start;
	uint64_t end;
	bool anon;
	uint64_t mstart = 0;
	uint64_t mend = 0;
};

bool filter_matches(const SchemeFilter &f, const Piece &p, uint32_t target)
{
	bool prop = false;

	switch (f.type) {
	case SchemeFilterType::addr:
		prop = f.start <= p.start && p.end <= f.end;
		break;
	case SchemeFilterType::anon:
		prop = p.anon;
		break;
	case SchemeFilterType::target:
		prop = target == f.target_id;
		break;
	}
	return prop == f.matching;
}

// DAMOS (6.15): the first filter that matches decides; with none, the
// opposite of the last filter's.
bool filters_pass(const std::vector<SchemeFilter> &fs, const Piece &p,
		  uint32_t target)
{
	for (const auto &f : fs)
		if (filter_matches(f, p, target))
			return f.allow;
	return fs.empty() || !fs.back().allow;
}

// [start, end) cut at the address filters' bounds.
void cut_at_filters(const std::vector<SchemeFilter> &fs, Piece p, uint64_t page,
		    std::vector<Piece> &out)
{
	std::vector<uint64_t> cuts;

	for (const auto &f : fs) {
		if (f.type != SchemeFilterType::addr)
			continue;
		for (uint64_t a : {f.start & ~(page - 1), f.end & ~(page - 1)})
			if (a > p.start && a < p.end)
				cuts.push_back(a);
	}
	std::sort(cuts.begin(), cuts.end());
	cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
	for (uint64_t a : cuts) {
		out.push_back({p.start, a, p.anon, p.mstart, p.mend});
		p.start = a;
	}
	out.push_back(p);
}

void add_failed(std::map<int, uint64_t> &to,
		const std::map<int, uint64_t> &from)
{
	for (const auto &[err, n] : from)
		to[err] += n;
}

// The huge page of @hps (in address order) that holds @a, or null.
const HugePage *huge_page_at(const std::vector<HugePage> &hps, uint64_t a)
{
	auto it = std::upper_bound(
		hps.begin(), hps.end(), a,
		[](uint64_t x, const HugePage &h) { return x < h.start; });

	if (it == hps.begin())
		return nullptr;
	--it;
	return a < it->end ? &*it : nullptr;
}

// The regions of @target over [@start, @end) as one region: nr_accesses,
// age and size weighted by the bytes each overlaps, nullopt when none
// does.
std::optional<Region> weighted_region(const std::vector<Region> &regions,
				      uint32_t target, uint64_t start,
				      uint64_t end)
{
	unsigned __int128 nr = 0, age = 0, size = 0;
	uint64_t covered = 0;

	for (const auto &r : regions) {
		if (r.target_id != target || r.end <= start || r.start >= end)
			continue;
		uint64_t o = std::min(r.end, end) - std::max(r.start, start);
		nr += (unsigned __int128)r.nr_accesses * o;
		age += (unsigned __int128)r.age * o;
		size += (unsigned __int128)r.size() * o;
		covered += o;
	}
	if (!covered)
		return std::nullopt;
	Region w;
	w.target_id = target;
	w.start = 0;
	w.end = uint64_t(size / covered);
	w.nr_accesses = uint32_t(nr / covered);
	w.age = uint32_t(age / covered);
	return w;
}

} // namespace

uint64_t system_page_size()
{
	static const uint64_t page = [] {
		long v = sysconf(_SC_PAGESIZE);
		return v > 0 ? uint64_t(v) : uint64_t{4096};
	}();

	return page;
}

SchemeEngine::SchemeEngine(std::vector<Scheme> schemes, SchemeBackend &backend)
	: backend_(backend)
	, page_(backend.page_size())
{
	for (auto &s : schemes) {
		State st;
		st.scheme = std::move(s);
		const auto &goals = st.scheme.quota.goals;
		st.start_psi.assign(goals.size(), 0);
		for (size_t g = 0; g < goals.size(); g++) {
			std::string where = "schemes: " + st.scheme.name +
					    ": quota goal " +
					    std::to_string(g) + " (" +
					    to_string(goals[g].metric) + "): ";
			if (goals[g].nid && !backend_.node_mem(*goals[g].nid))
				throw UsageError(
					where + "node " +
					std::to_string(*goals[g].nid) +
					" has no memory (no /sys/devices/"
					"system/node/node" +
					std::to_string(*goals[g].nid) +
					"/meminfo)");
			if (goals[g].metric != GoalMetric::some_mem_psi_us)
				continue;
			auto psi = backend_.some_mem_psi_total_us();
			if (!psi)
				throw UsageError(where +
						 "no /proc/pressure/memory "
						 "(a kernel without "
						 "CONFIG_PSI, or booted with "
						 "psi=0)");
			// each context's first window counts from here, not
			// from boot
			st.start_psi[g] = *psi;
		}
		states_.push_back(std::move(st));
	}
}

uint64_t SchemeEngine::feed_loop_next_input(uint64_t last_input, uint64_t score)
{
	const uint64_t goal = 10000;
	// the smallest input, so that the compensation is never 0
	const uint64_t min_input = 10000;

	if (score == goal)
		return last_input;
	if (score >= goal * 2)
		return min_input;
	bool over_achieving = score > goal;
	uint64_t diff = over_achieving ? score - goal : goal - score;
	uint64_t compensation = last_input < UINT64_MAX / diff
					? last_input * diff / goal
					: last_input / goal * diff;
	if (over_achieving)
		return std::max(last_input - compensation, min_input);
	if (last_input < UINT64_MAX - compensation)
		return last_input + compensation;
	return UINT64_MAX;
}

uint64_t SchemeEngine::goal_score(uint64_t current, uint64_t target)
{
	unsigned __int128 s =
		(unsigned __int128)current * 10000 / (target ? target : 1);

	return s > UINT64_MAX ? UINT64_MAX : uint64_t(s);
}

SchemeEngine::Run &SchemeEngine::run_of(State &st, const Aggregation &agg)
{
	std::string key = agg.ctx_name.empty()
				  ? "#" + std::to_string(agg.ctx_id)
				  : agg.ctx_name;
	auto it = st.runs.find(key);

	if (it != st.runs.end())
		return it->second;
	Run &run = st.runs[key];
	run.goal_current.assign(st.scheme.quota.goals.size(), 0);
	run.goal_last_psi = st.start_psi;
	return run;
}

// damos_set_quota_goal_current_value() of mm/damon/core.c
uint64_t SchemeEngine::goal_metric(const State &st, Run &run, size_t g)
{
	const QuotaGoal &goal = st.scheme.quota.goals[g];

	switch (goal.metric) {
	case GoalMetric::user_input:
		return goal.current_value;
	case GoalMetric::some_mem_psi_us: {
		uint64_t now = backend_.some_mem_psi_total_us().value_or(
			run.goal_last_psi[g]);
		uint64_t v = now >= run.goal_last_psi[g]
				     ? now - run.goal_last_psi[g]
				     : 0;
		run.goal_last_psi[g] = now;
		return v;
	}
	case GoalMetric::node_mem_used_bp:
	case GoalMetric::node_mem_free_bp: {
		auto m = backend_.node_mem(goal.nid.value_or(-1));
		bool used = goal.metric == GoalMetric::node_mem_used_bp;
		// a node gone since: DAMOS's values for an invalid node
		if (!m || !m->total)
			return used ? 0 : 10000;
		uint64_t free = std::min(m->free, m->total);
		uint64_t n = used ? m->total - free : free;
		return uint64_t((unsigned __int128)n * 10000 / m->total);
	}
	}
	return 0;
}

// damos_quota_score(): the highest score, the least aggressive
uint64_t SchemeEngine::quota_score(const State &st, Run &run)
{
	uint64_t highest = 0;

	for (size_t g = 0; g < st.scheme.quota.goals.size(); g++) {
		run.goal_current[g] = goal_metric(st, run, g);
		highest = std::max(
			highest,
			goal_score(run.goal_current[g],
				   st.scheme.quota.goals[g].target_value));
	}
	return highest;
}

uint64_t SchemeEngine::quota_left(size_t i) const
{
	const Run &run = last(i);

	if (!run.esz)
		return UINT64_MAX;
	return run.charged_sz >= run.esz ? 0 : run.esz - run.charged_sz;
}

uint32_t SchemeEngine::max_nr_accesses(const Aggregation &agg)
{
	uint32_t max_nr = 1;

	for (const auto &r : agg.regions)
		max_nr = std::max(max_nr, r.nr_accesses);
	if (agg.sample_us && *agg.sample_us) {
		uint64_t bound = agg.aggr_us / *agg.sample_us;
		if (bound > max_nr)
			max_nr =
				uint32_t(std::min<uint64_t>(bound, UINT32_MAX));
	}
	return max_nr;
}

bool SchemeEngine::matches(const Scheme &s, const Region &r,
			   uint32_t max_nr_accesses, uint64_t aggr_us)
{
	const AccessPattern &p = s.pattern;
	uint64_t nmin = p.nr_accesses.min, nmax = p.nr_accesses.max;

	if (p.nr_accesses_unit == AccessUnit::percent) {
		nmin = pct_of(nmin, max_nr_accesses);
		nmax = pct_of(nmax, max_nr_accesses);
	}
	return p.sz.min <= r.size() && r.size() <= p.sz.max &&
	       nmin <= r.nr_accesses && r.nr_accesses <= nmax &&
	       age_bound(p.age.min, p.age_unit, aggr_us) <= r.age &&
	       r.age <= age_bound(p.age.max, p.age_unit, aggr_us);
}

unsigned int SchemeEngine::score(const Scheme &s, const Region &r,
				 uint32_t max_nr_accesses, uint64_t aggr_us)
{
	// damon_hot_score() of mm/damon/ops-common.c
	int freq_weight = int(s.quota.weight_nr_accesses);
	int age_weight = int(s.quota.weight_age);
	int freq = int(uint64_t(r.nr_accesses) * MAX_SUBSCORE /
		       (max_nr_accesses ? max_nr_accesses : 1));
	uint64_t age_in_sec = uint64_t(r.age) * aggr_us / 1000000;
	int age_in_log = 0;

	freq = std::min(freq, MAX_SUBSCORE);
	for (; age_in_log < MAX_AGE_IN_LOG && age_in_sec; age_in_log++)
		age_in_sec >>= 1;
	if (freq == 0)
		age_in_log = -age_in_log;
	age_in_log += MAX_AGE_IN_LOG;
	int age_sub = age_in_log * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2;
	int64_t hot =
		int64_t(freq_weight) * freq + int64_t(age_weight) * age_sub;
	if (freq_weight + age_weight)
		hot /= freq_weight + age_weight;
	hot = hot * MAX_SCORE / MAX_SUBSCORE;
	hot = std::max<int64_t>(std::min<int64_t>(hot, MAX_SCORE), 0);
	if (action_prefers_hot(s.action))
		return unsigned(hot);
	return unsigned(MAX_SCORE - hot);
}

bool SchemeEngine::check_watermarks(const State &st, Run &run, uint64_t now)
{
	const Watermarks &w = st.scheme.wmarks;

	if (w.metric == WmarkMetric::none)
		return true;
	if (run.wmark_checked && now < run.next_wmark_ns)
		return run.active;
	run.wmark_checked = true;
	run.next_wmark_ns = now + w.interval_us * 1000;
	uint32_t m = backend_.free_mem_permil();
	// damos_wmark_wait_us() of mm/damon/core.c
	if (m > w.high || m < w.low)
		run.active = false;
	else if (m >= w.mid && !run.active)
		; // inactive until the metric comes down to mid
	else
		run.active = true;
	return run.active;
}

void SchemeEngine::adjust_quota(State &st, Run &run, uint64_t now)
{
	const Quota &q = st.scheme.quota;

	if (!q.limited())
		return;
	// damo's "max" reset interval: saturated, not wrapped
	uint64_t reset_ns = q.reset_interval_ms > UINT64_MAX / 1000000
				    ? UINT64_MAX
				    : q.reset_interval_ms * 1000000;
	bool reset =
		!run.window_open || (now >= run.window_start_ns &&
				     now - run.window_start_ns >= reset_ns);
	if (!reset)
		return;
	if (run.window_open && run.esz && run.charged_sz >= run.esz)
		st.stats.qt_exceeds++;
	run.total_charged_sz += run.charged_sz;
	run.total_charged_ns += run.charged_ns;
	run.charged_sz = 0;
	run.charged_ns = 0;
	run.window_open = true;
	run.window_start_ns = now;
	// damos_set_effective_quota()
	if (!q.ms && q.goals.empty()) {
		run.esz = q.sz;
		return;
	}
	uint64_t esz = UINT64_MAX;
	if (!q.goals.empty()) {
		uint64_t score = quota_score(st, run);
		if (q.goal_tuner == GoalTuner::consist)
			run.esz_bp = feed_loop_next_input(
				std::max<uint64_t>(run.esz_bp, 10000), score);
		else if (score >= 10000)
			// damos_goal_tune_esz_bp_temporal() sets 0, which
			// its esz takes for no limit; 1 byte stops it
			run.esz_bp = 10000;
		else if (q.sz)
			run.esz_bp = q.sz < UINT64_MAX / 10000 ? q.sz * 10000
							       : UINT64_MAX;
		else
			run.esz_bp = UINT64_MAX;
		esz = run.esz_bp / 10000;
	}
	if (q.ms) {
		uint64_t throughput =
			run.total_charged_ns
				? uint64_t((unsigned __int128)
						   run.total_charged_sz *
					   1000000 / run.total_charged_ns)
				: page_ * 1024; // bytes per ms
		esz = std::min(std::max<uint64_t>(throughput * q.ms, page_),
			       esz);
	}
	if (q.sz && q.sz < esz)
		esz = q.sz;
	run.esz = esz;
}

void SchemeEngine::apply(const Aggregation &agg)
{
	uint32_t max_nr = max_nr_accesses(agg);

	// a carried answer was acted on already, a low one is a guess
	if (!agg.met_floor()) {
		for (auto &st : states_)
			st.stats.nr_below_floor++;
		return;
	}
	maps_.clear();
	maps_err_.clear();
	hps_.clear();
	// what was found placed too long ago, or of a pid no longer a
	// target, is asked about again
	seq_++;
	std::set<uint32_t> live;
	for (const auto &t : agg.targets)
		if (t.pid)
			live.insert(*t.pid);
	for (auto it = placed_.begin(); it != placed_.end();) {
		auto &m = it->second;
		for (auto r = m.begin(); r != m.end();)
			r = seq_ - r->second.seq >= PLACED_TRUST ? m.erase(r)
								 : std::next(r);
		if (m.empty() || !live.count(it->first.first))
			it = placed_.erase(it);
		else
			++it;
	}
	for (auto &st : states_) {
		uint64_t now = agg.time_ns;
		Run &run = run_of(st, agg);
		st.last = &run;
		if (run.applied_once && now < run.next_apply_ns)
			continue;
		if (!check_watermarks(st, run, now)) {
			st.stats.nr_inactive++;
			continue;
		}
		run.applied_once = true;
		run.next_apply_ns = now + st.scheme.apply_interval_us * 1000;
		adjust_quota(st, run, now);
		apply_scheme(st, run, agg, max_nr);
		st.stats.nr_aggregations++;
	}
}

// DAMOS under a quota (damos_adjust_quota(), damos_skip_charged_region()):
// only the regions of the highest scores that cover the quota, in address
// order, starting where the last window's quota ran out; the regions
// before that point come last (DAMOS leaves them to the window after).
std::vector<const Region *>
SchemeEngine::quota_order(const State &st, Run &run,
			  std::vector<const Region *> cands, uint32_t max_nr,
			  uint64_t aggr_us)
{
	const Scheme &s = st.scheme;
	uint64_t hist[MAX_SCORE + 1] = {};
	std::vector<unsigned int> scores;
	unsigned int min_score = 0;

	for (const Region *r : cands) {
		scores.push_back(score(s, *r, max_nr, aggr_us));
		hist[scores.back()] += r->size();
	}
	uint64_t cumulated = 0;
	for (int sc = MAX_SCORE; sc >= 0; sc--) {
		cumulated += hist[sc];
		min_score = unsigned(sc);
		if (cumulated >= run.esz)
			break;
	}
	std::vector<const Region *> top;
	for (size_t i = 0; i < cands.size(); i++)
		if (scores[i] >= min_score)
			top.push_back(cands[i]);
	if (!run.resume)
		return top;
	// the first region of the resumed target that ends after the point,
	// else the first region after that target's
	size_t first = 0;
	bool seen = false, found = false;
	for (size_t i = 0; i < top.size() && !found; i++) {
		bool same = top[i]->target_id == run.resume_target;
		if ((same && top[i]->end > run.resume_addr) ||
		    (seen && !same)) {
			first = i;
			found = true;
		}
		seen = seen || same;
	}
	if (!found)
		return top;
	std::rotate(top.begin(), top.begin() + long(first), top.end());
	return top;
}

namespace {

// Marks [@a, @b) found placed at @seq in @m (disjoint ranges): the parts
// of older ranges outside it stay.
void mark_placed(std::map<uint64_t, SchemeEngine::Placed> &m, uint64_t a,
		 uint64_t b, uint64_t seq)
{
	auto it = m.lower_bound(a);
	if (it != m.begin()) {
		auto prev = std::prev(it);
		if (prev->second.end > a) {
			SchemeEngine::Placed tail = prev->second;
			prev->second.end = a;
			if (tail.end > b)
				m[b] = tail;
		}
	}
	it = m.lower_bound(a);
	while (it != m.end() && it->first < b) {
		if (it->second.end > b) {
			SchemeEngine::Placed t = it->second;
			m.erase(it);
			m[b] = t;
			break;
		}
		it = m.erase(it);
	}
	m[a] = {b, seq};
}

} // namespace

ApplyResult SchemeEngine::migrate_uncached(uint32_t pid, SchemeAction action,
					   int node, uint64_t start,
					   uint64_t end, uint64_t &cached)
{
	auto &m = placed_[{pid, node}];
	std::vector<std::pair<uint64_t, uint64_t>> gaps;
	uint64_t pos = start;

	auto it = m.upper_bound(start);
	if (it != m.begin())
		--it;
	for (; it != m.end() && it->first < end; ++it) {
		if (it->second.end <= pos)
			continue;
		if (it->first > pos)
			gaps.emplace_back(pos, it->first);
		uint64_t e = std::min(end, it->second.end);
		cached += e - std::max(pos, it->first);
		pos = e;
	}
	if (pos < end)
		gaps.emplace_back(pos, end);
	ApplyResult total;
	for (const auto &[a, b] : gaps) {
		ApplyResult r = backend_.apply(pid, action, node, a, b);
		total.sz_applied += r.sz_applied;
		total.sz_placed += r.sz_placed;
		add_failed(total.failed, r.failed);
		// every page on the node, none failed or absent
		if (backend_.reports_placement() && r.failed.empty() &&
		    r.sz_applied + r.sz_placed == b - a)
			mark_placed(m, a, b, seq_);
	}
	return total;
}

const std::vector<HugePage> &
SchemeEngine::huge_pages(uint32_t pid, uint64_t mstart, uint64_t mend)
{
	auto key = std::make_pair(pid, mstart);
	auto it = hps_.find(key);

	if (it == hps_.end())
		it = hps_.emplace(key, backend_.huge_pages(pid, mstart, mend))
			     .first;
	return it->second;
}

void SchemeEngine::apply_scheme(State &st, Run &run, const Aggregation &agg,
				uint32_t max_nr)
{
	const Scheme &s = st.scheme;
	const uint64_t page = page_;
	std::vector<const Region *> cands;
	std::map<uint32_t, std::optional<uint32_t>> pids;

	for (const auto &t : agg.targets)
		pids[t.id] = t.pid;
	// less than a page of quota left: nothing more charged, as DAMOS
	// skips a region cut to 0 bytes
	auto spent = [&run, page] {
		return run.esz && (run.charged_sz >= run.esz ||
				   run.esz - run.charged_sz < page);
	};
	// (the resume point kept for the next window)
	if (spent())
		return;
	// migrate_hot moves the pages a region's samples fell on (the runs
	// of sampled pages, or their span), not the whole region: a page
	// outside them had no sample (a wide region a few samples made hot
	// holds cold pages, and two samples far apart, a thread's stack
	// and a hot range, hold cold pages between them); matched and
	// ranked by the whole region's counters, as DAMOS does
	std::deque<Region> spans; // stable addresses for cands
	for (const auto &r : agg.regions) {
		if (!matches(s, r, max_nr, agg.aggr_us))
			continue;
		if (s.action != SchemeAction::migrate_hot || !r.sampled() ||
		    r.sampled_start >= r.end || r.sampled_end <= r.start) {
			cands.push_back(&r);
			continue;
		}
		std::vector<std::pair<uint64_t, uint64_t>> runs =
			r.sampled_runs;
		if (runs.empty())
			runs.emplace_back(r.sampled_start, r.sampled_end);
		for (const auto &[b, e] : runs) {
			Region n = r;
			n.start = std::max(r.start, b / page * page);
			n.end = std::min(r.end, (e + page - 1) / page * page);
			if (n.start >= n.end)
				continue;
			n.sampled_runs.clear();
			spans.push_back(n);
			cands.push_back(&spans.back());
		}
	}
	uint64_t from = 0; // where the first region starts, when resumed
	if (run.esz) {
		bool resumed = run.resume;
		cands = quota_order(st, run, std::move(cands), max_nr,
				    agg.aggr_us);
		// the rest of the region the last window stopped in
		if (resumed && !cands.empty() &&
		    cands.front()->target_id == run.resume_target &&
		    cands.front()->start < run.resume_addr &&
		    run.resume_addr < cands.front()->end)
			from = run.resume_addr;
		run.resume = false;
	}
	// the huge pages (pid, start) this application took whole, so that
	// two pieces grown over the same one apply it once
	std::set<std::pair<uint32_t, uint64_t>> taken;
	bool halted = false;
	for (const Region *r : cands) {
		if (spent() || halted)
			break;
		uint64_t r_start = std::max(r->start, from);
		from = 0;
		auto pit = pids.find(r->target_id);
		std::optional<uint32_t> pid =
			pit == pids.end() ? std::nullopt : pit->second;
		std::vector<Piece> mapped;
		if (!pid) {
			// a physical address range: no mappings, no actions
			// but stat
			mapped.push_back({r_start, r->end, false});
		} else {
			if (!maps_.count(*pid) && !maps_err_.count(*pid)) {
				try {
					maps_[*pid] = backend_.mappings(*pid);
				} catch (const std::system_error &e) {
					maps_err_[*pid] = e.code().value();
				}
			}
			auto eit = maps_err_.find(*pid);
			if (eit != maps_err_.end()) {
				st.stats.nr_tried++;
				st.stats.sz_tried += r->size();
				st.stats.failed[eit->second] +=
					r->size() / page;
				continue;
			}
			for (const auto &m : maps_[*pid]) {
				uint64_t a = std::max(m.start, r_start);
				uint64_t b = std::min(m.end, r->end);
				if (a < b)
					mapped.push_back(
						{a, b, m.anon, m.start, m.end});
			}
		}
		std::vector<Piece> pieces;
		for (const auto &p : mapped)
			cut_at_filters(s.filters, p, page, pieces);
		for (size_t i = 0; i < pieces.size(); i++) {
			Piece p = pieces[i];
			if (!filters_pass(s.filters, p, r->target_id))
				continue;
			static const std::vector<HugePage> none;
			const std::vector<HugePage> &hps =
				pid ? huge_pages(*pid, p.mstart, p.mend) : none;
			// A huge page across the piece's edge moves whole or
			// not at all: decided once, by its own hotness (the
			// regions over it, weighted by bytes), so a huge page
			// across a hot/cold edge matches one of a hot and a
			// cold scheme, never both.
			auto takes = [&](const HugePage &h) {
				if (taken.count({*pid, h.start}))
					return false;
				Piece hp = {h.start, h.end, p.anon, p.mstart,
					    p.mend};
				if (!filters_pass(s.filters, hp, r->target_id))
					return false;
				auto w = weighted_region(agg.regions,
							 r->target_id, h.start,
							 h.end);
				return w && matches(s, *w, max_nr, agg.aggr_us);
			};
			if (const HugePage *h = huge_page_at(hps, p.start);
			    h && h->start < p.start)
				p.start = takes(*h) ? h->start : h->end;
			if (p.start < p.end) {
				const HugePage *h =
					huge_page_at(hps, p.end - 1);
				if (h && h->end > p.end)
					p.end = takes(*h) ? h->end : h->start;
			}
			if (p.start >= p.end)
				continue;
			// the end of what a quota cut leaves of the piece
			uint64_t rest_end = 0;
			if (run.esz) {
				if (spent())
					break;
				uint64_t left = (run.esz - run.charged_sz) &
						~(page - 1);
				if (p.end - p.start > left) {
					// DAMOS does not split a huge page:
					// stop before one the quota would cut
					uint64_t cut = p.start + left;
					const HugePage *h =
						huge_page_at(hps, cut);
					bool passed = false;
					if (h && h->start < cut &&
					    h->end - h->start > run.esz) {
						// never fits a window: passed
						passed = true;
						pieces.insert(
							pieces.begin() +
								long(i + 1),
							{h->end, p.end, p.anon,
							 p.mstart, p.mend});
						cut = h->start;
					} else if (h && h->start < cut) {
						// the next window starts
						// at the huge page
						cut = h->start;
						halted = true;
						run.resume = true;
						run.resume_target =
							r->target_id;
						run.resume_addr = cut;
					}
					if (cut <= p.start) {
						if (halted)
							break;
						continue;
					}
					if (!passed && !halted)
						rest_end = p.end;
					p.end = cut;
				}
			}
			uint64_t sz = p.end - p.start;
			st.stats.nr_tried++;
			st.stats.sz_tried += sz;
			ApplyResult res;
			uint64_t cached = 0; // found placed before: not asked
			uint64_t t0 = backend_.now_ns();
			if (s.action == SchemeAction::stat) {
				// DAMOS's stat applies nothing
			} else if (!pid) {
				res = backend_.apply_paddr(agg.ctx_id, s.action,
							   p.start, p.end);
			} else if (s.action == SchemeAction::lru_prio) {
				// a process's memory: DAMOS's vaddr has none
				res.failed[EOPNOTSUPP] = sz / page;
			} else if ((s.action == SchemeAction::migrate_hot ||
				    s.action == SchemeAction::migrate_cold) &&
				   s.node) {
				res = migrate_uncached(*pid, s.action, *s.node,
						       p.start, p.end, cached);
			} else {
				res = backend_.apply(*pid, s.action,
						     s.node.value_or(-1),
						     p.start, p.end);
			}
			for (auto h = std::lower_bound(
				     hps.begin(), hps.end(), p.start,
				     [](const HugePage &x, uint64_t a) {
					     return x.end <= a;
				     });
			     h != hps.end() && h->start < p.end; ++h)
				taken.insert({*pid, h->start});
			uint64_t t1 = backend_.now_ns();
			run.charged_ns += t1 > t0 ? t1 - t0 : 0;
			// the quota pays for what was not on the node
			// already (DAMOS charges the whole piece)
			run.charged_sz +=
				sz - std::min(sz, cached + res.sz_placed);
			if (spent()) {
				run.resume = true;
				run.resume_target = r->target_id;
				run.resume_addr = p.end;
			} else if (rest_end > p.end && !halted) {
				// pages found on the node cost nothing: on with
				// the rest while the quota lasts
				pieces.insert(pieces.begin() + long(i + 1),
					      {p.end, rest_end, p.anon,
					       p.mstart, p.mend});
			}
			if (res.sz_applied)
				st.stats.nr_applied++;
			st.stats.sz_applied += res.sz_applied;
			add_failed(st.stats.failed, res.failed);
			if (halted)
				break;
		}
	}
}

nlohmann::json to_json(const Scheme &s, const SchemeStats &st)
{
	nlohmann::json failed = nlohmann::json::object();

	for (const auto &[err, n] : st.failed)
		failed[errno_name(err)] = n;
	nlohmann::json j = {
		{"name", s.name},
		{"action", to_string(s.action)},
		{"nr_tried", st.nr_tried},
		{"sz_tried", st.sz_tried},
		{"nr_applied", st.nr_applied},
		{"sz_applied", st.sz_applied},
		{"qt_exceeds", st.qt_exceeds},
		{"failed_pages", failed},
		{"nr_aggregations", st.nr_aggregations},
		{"nr_inactive", st.nr_inactive},
		{"nr_below_floor", st.nr_below_floor},
	};
	if (s.node)
		j["node"] = *s.node;
	return j;
}

} // namespace damonctl
