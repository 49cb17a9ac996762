// SPDX-License-Identifier: GPL-2.0
// What the subcommands share: the interrupt flag, the selection of
// contexts by name, and the options start and tune both parse.
#include "commands.hpp"

#include <linux/damon_perf.h>

#include <algorithm>
#include <csignal>

#include "errors.hpp"
#include "validators.hpp"

namespace damonctl {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_signal(int)
{
	stop_requested = 1;
}

} // namespace

bool interrupted()
{
	return stop_requested != 0;
}

void install_interrupt_handler()
{
	struct sigaction sa = {};

	sa.sa_handler = on_signal; // no SA_RESTART: poll() returns EINTR
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
}

Split parse_split_option(const std::string &s)
{
	auto split = split_from_string(s);

	if (!split)
		throw UsageError("--split must be samples or random");
	return *split;
}

uint32_t parse_cpu_budget_option(const std::string &s)
{
	auto budget = cpu_budget_from_string(s);

	if (!budget)
		throw UsageError(
			"--cpu-budget must be a percentage of one CPU, "
			"0 .. 100 with at most two decimals (0 = no "
			"budget)");
	return *budget;
}

void add_goal_options(CLI::App *sub, std::optional<uint32_t> &samples_goal,
		      std::optional<uint32_t> &goal_aggrs,
		      std::optional<uint64_t> &min_aggr_us,
		      std::optional<uint64_t> &max_aggr_us,
		      std::vector<CLI::Option *> &added)
{
	added.push_back(
		sub->add_option("--samples-goal", samples_goal,
				"Samples each aggregation should hold: the "
				"aggregation interval adapts to it (0: a "
				"fixed --aggr-us, the default)")
			->check(integer_range(0, DAMON_PERF_SAMPLES_GOAL_MAX)));
	added.push_back(
		sub->add_option("--goal-aggrs", goal_aggrs,
				"Aggregations each tuning step observes "
				"(default 3)")
			->check(positive_integer(DAMON_PERF_GOAL_AGGRS_MAX)));
	added.push_back(
		sub->add_option("--min-aggr-us", min_aggr_us,
				"Shortest tuned aggregation interval in us "
				"(0: a tenth of --aggr-us)")
			->check(integer_range(0, DAMON_PERF_INTERVAL_US_MAX)));
	added.push_back(
		sub->add_option("--max-aggr-us", max_aggr_us,
				"Longest tuned aggregation interval in us "
				"(0: ten times --aggr-us)")
			->check(integer_range(0, DAMON_PERF_INTERVAL_US_MAX)));
}

bool wanted(const std::vector<std::string> &names, const std::string &name)
{
	return names.empty() ||
	       std::find(names.begin(), names.end(), name) != names.end();
}

void check_names(const std::vector<CtxInfo> &ctxs,
		 const std::vector<std::string> &names)
{
	for (const auto &name : names)
		if (std::none_of(
			    ctxs.begin(), ctxs.end(),
			    [&](const CtxInfo &c) { return c.name == name; }))
			throw UsageError("no context named '" + name + "'");
}

} // namespace damonctl
