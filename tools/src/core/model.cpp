// SPDX-License-Identifier: GPL-2.0
#include "model.hpp"

#include <linux/damon_perf.h>

#include <tuple>

namespace damonctl {

std::string to_string(Ops ops)
{
	return ops == Ops::paddr ? "paddr" : "vaddr";
}

std::string to_string(CtxState state)
{
	switch (state) {
	case CtxState::configured:
		return "configured";
	case CtxState::running:
		return "running";
	case CtxState::stopped:
		return "stopped";
	}
	return "unknown(" + std::to_string(static_cast<uint32_t>(state)) + ")";
}

std::string to_string(Mode mode)
{
	return mode == Mode::count ? "count" : "presence";
}

std::string to_string(Split split)
{
	return split == Split::random ? "random" : "samples";
}

std::string to_string(Confidence c)
{
	switch (c) {
	case Confidence::met:
		return "met";
	case Confidence::carried:
		return "carried";
	case Confidence::low:
		return "low";
	}
	return "unknown";
}

std::optional<Confidence> confidence_from_string(const std::string &s)
{
	for (auto c : {Confidence::met, Confidence::carried, Confidence::low})
		if (to_string(c) == s)
			return c;
	return std::nullopt;
}

std::string to_string(FilterType type)
{
	switch (type) {
	case FilterType::cpumask:
		return "cpumask";
	case FilterType::tid:
		return "tid";
	case FilterType::write:
		return "write";
	}
	return "unknown";
}

std::optional<Ops> ops_from_string(const std::string &s)
{
	if (s == "vaddr")
		return Ops::vaddr;
	if (s == "paddr")
		return Ops::paddr;
	return std::nullopt;
}

std::optional<Mode> mode_from_string(const std::string &s)
{
	if (s == "presence")
		return Mode::presence;
	if (s == "count")
		return Mode::count;
	return std::nullopt;
}

std::optional<Split> split_from_string(const std::string &s)
{
	if (s == "samples")
		return Split::samples;
	if (s == "random")
		return Split::random;
	return std::nullopt;
}

std::optional<uint32_t> cpu_budget_from_string(const std::string &s)
{
	static_assert(DAMON_PERF_CPU_BUDGET_SCALE == 100,
		      "two decimals of a percent");
	// digits, then optionally '.' and one or two digits: exact, no
	// floating point
	uint64_t whole = 0;
	uint32_t frac = 0;
	size_t i = 0, digits = 0;

	while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 4) {
		whole = whole * 10 + uint64_t(s[i] - '0');
		i++;
		digits++;
	}
	if (!digits)
		return std::nullopt;
	if (i < s.size() && s[i] == '.') {
		size_t nfrac = 0;

		i++;
		while (i < s.size() && s[i] >= '0' && s[i] <= '9' &&
		       nfrac < 2) {
			frac = frac * 10 + uint32_t(s[i] - '0');
			i++;
			nfrac++;
		}
		if (!nfrac)
			return std::nullopt;
		if (nfrac == 1)
			frac *= 10;
	}
	if (i != s.size())
		return std::nullopt;
	uint64_t v = whole * DAMON_PERF_CPU_BUDGET_SCALE + frac;
	if (v > DAMON_PERF_CPU_BUDGET_MAX)
		return std::nullopt;
	return uint32_t(v);
}

std::string cpu_budget_to_string(uint32_t budget)
{
	std::string s = std::to_string(budget / DAMON_PERF_CPU_BUDGET_SCALE);
	uint32_t frac = budget % DAMON_PERF_CPU_BUDGET_SCALE;

	if (frac) {
		s += '.';
		s += char('0' + frac / 10);
		if (frac % 10)
			s += char('0' + frac % 10);
	}
	return s;
}

std::string cpu_cost_to_string(uint32_t cost)
{
	// DAMON_PERF_CPU_COST_SCALE is one CPU: 10000 per percent
	static_assert(DAMON_PERF_CPU_COST_SCALE == 1000000, "ppm of a CPU");
	std::string s = std::to_string(cost / 10000);
	std::string frac = std::to_string(cost % 10000);

	frac.insert(0, 4 - frac.size(), '0');
	while (!frac.empty() && frac.back() == '0')
		frac.pop_back();
	if (!frac.empty())
		s += "." + frac;
	return s;
}

std::optional<FilterType> filter_type_from_string(const std::string &s)
{
	if (s == "cpumask")
		return FilterType::cpumask;
	if (s == "tid")
		return FilterType::tid;
	if (s == "write")
		return FilterType::write;
	return std::nullopt;
}

bool operator==(const Attrs &a, const Attrs &b)
{
	return std::tie(a.sample_us, a.aggr_us, a.update_us, a.min_nr_regions,
			a.max_nr_regions, a.mode, a.ring_size, a.split,
			a.cpu_budget, a.samples_goal, a.goal_aggrs,
			a.min_aggr_us, a.max_aggr_us) ==
	       std::tie(b.sample_us, b.aggr_us, b.update_us, b.min_nr_regions,
			b.max_nr_regions, b.mode, b.ring_size, b.split,
			b.cpu_budget, b.samples_goal, b.goal_aggrs,
			b.min_aggr_us, b.max_aggr_us);
}

bool operator==(const Target &a, const Target &b)
{
	return std::tie(a.id, a.pid, a.start, a.end, a.dead, a.nr_regions) ==
	       std::tie(b.id, b.pid, b.start, b.end, b.dead, b.nr_regions);
}

bool operator==(const Probe &a, const Probe &b)
{
	return std::tie(a.idx, a.type, a.config, a.config1, a.config2,
			a.sample_period, a.freq, a.wakeup_events, a.weight,
			a.precise_ip, a.sample_phys_addr,
			a.sample_weight_struct, a.exclude_kernel, a.exclude_hv,
			a.exclude_user, a.effective_period) ==
	       std::tie(b.idx, b.type, b.config, b.config1, b.config2,
			b.sample_period, b.freq, b.wakeup_events, b.weight,
			b.precise_ip, b.sample_phys_addr,
			b.sample_weight_struct, b.exclude_kernel, b.exclude_hv,
			b.exclude_user, b.effective_period);
}

bool operator==(const Filter &a, const Filter &b)
{
	return std::tie(a.type, a.allow, a.cpus, a.tids) ==
	       std::tie(b.type, b.allow, b.cpus, b.tids);
}

bool operator==(const BudgetInfo &a, const BudgetInfo &b)
{
	return std::tie(a.cost, a.handler_ns, a.drain_ns, a.raises, a.lowers,
			a.refused) == std::tie(b.cost, b.handler_ns, b.drain_ns,
					       b.raises, b.lowers, b.refused);
}

bool operator==(const TuningInfo &a, const TuningInfo &b)
{
	return std::tie(a.aggr_us, a.min_aggr_us, a.max_aggr_us, a.samples,
			a.steps, a.ups, a.downs, a.period_div) ==
	       std::tie(b.aggr_us, b.min_aggr_us, b.max_aggr_us, b.samples,
			b.steps, b.ups, b.downs, b.period_div);
}

bool operator==(const CtxInfo &a, const CtxInfo &b)
{
	return std::tie(a.id, a.name, a.ops, a.state, a.attrs, a.targets,
			a.probes, a.filters, a.arm_failures, a.stale_drops,
			a.budget, a.tuning) ==
	       std::tie(b.id, b.name, b.ops, b.state, b.attrs, b.targets,
			b.probes, b.filters, b.arm_failures, b.stale_drops,
			b.budget, b.tuning);
}

bool operator==(const Region &a, const Region &b)
{
	return std::tie(a.target_id, a.start, a.end, a.nr_accesses, a.age,
			a.rate, a.probe_hits, a.sampled_start, a.sampled_end,
			a.sampled_runs) ==
	       std::tie(b.target_id, b.start, b.end, b.nr_accesses, b.age,
			b.rate, b.probe_hits, b.sampled_start, b.sampled_end,
			b.sampled_runs);
}

bool operator==(const Aggregation &a, const Aggregation &b)
{
	return std::tie(a.ctx_id, a.ctx_name, a.seq, a.time_ns, a.aggr_us,
			a.sample_us, a.update_us, a.nr_regions, a.truncated,
			a.nr_samples, a.floor, a.confidence, a.carried,
			a.windows, a.targets, a.regions) ==
	       std::tie(b.ctx_id, b.ctx_name, b.seq, b.time_ns, b.aggr_us,
			b.sample_us, b.update_us, b.nr_regions, b.truncated,
			b.nr_samples, b.floor, b.confidence, b.carried,
			b.windows, b.targets, b.regions);
}

bool operator==(const StatsRow &a, const StatsRow &b)
{
	return std::tie(a.cpu, a.state, a.state_name, a.counters) ==
	       std::tie(b.cpu, b.state, b.state_name, b.counters);
}

bool operator==(const CtxConfig &a, const CtxConfig &b)
{
	return std::tie(a.name, a.ops, a.attrs, a.targets, a.probes,
			a.filters) ==
	       std::tie(b.name, b.ops, b.attrs, b.targets, b.probes, b.filters);
}

} // namespace damonctl
