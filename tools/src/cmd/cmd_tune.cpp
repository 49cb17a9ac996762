// SPDX-License-Identifier: GPL-2.0
// damonctl tune: change the monitoring attributes of a context, also
// while it runs (only the intervals and their goal, the mode and the CPU
// budget may change then).
#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"

namespace damonctl {

namespace {

struct TuneOptions {
	std::string name;
	Attrs attrs;
	std::string mode;
	std::string split;
	std::string cpu_budget;
};

void run_tune(const TuneOptions &o, Transport &t)
{
	Attrs a = o.attrs;

	if (!o.mode.empty()) {
		auto mode = mode_from_string(o.mode);
		if (!mode)
			throw UsageError("--mode must be presence or count");
		a.mode = *mode;
	}
	if (!o.split.empty())
		a.split = parse_split_option(o.split);
	if (!o.cpu_budget.empty())
		a.cpu_budget = parse_cpu_budget_option(o.cpu_budget);
	if (a.empty())
		throw UsageError("nothing to tune: give at least one of "
				 "--sample-us, --aggr-us, --update-us, "
				 "--min-nr-regions, --max-nr-regions, --mode, "
				 "--split, --ring-size, --cpu-budget, "
				 "--samples-goal, --goal-aggrs, "
				 "--min-aggr-us, --max-aggr-us");
	t.set_attrs(CtxRef::by_name(o.name), a);
	CtxInfo c = t.ctx_get(CtxRef::by_name(o.name));
	fmt::print("context {} \"{}\": sample {} us, aggr {} us, update {} "
		   "us, regions {}..{}\n",
		   c.id, c.name, c.attrs.sample_us.value_or(0),
		   c.attrs.aggr_us.value_or(0), c.attrs.update_us.value_or(0),
		   c.attrs.min_nr_regions.value_or(0),
		   c.attrs.max_nr_regions.value_or(0));
}

} // namespace

void setup_tune(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<TuneOptions>();
	auto *sub = app.add_subcommand(
		"tune", "Change the intervals or region bounds of a context");

	sub->add_option("name", o->name, "Context to tune")->required();
	sub->add_option("--sample-us", o->attrs.sample_us,
			"Sample (drain) interval in us");
	sub->add_option("--aggr-us", o->attrs.aggr_us,
			"Aggregation interval in us");
	sub->add_option("--update-us", o->attrs.update_us,
			"Target update interval in us");
	sub->add_option("--min-nr-regions", o->attrs.min_nr_regions,
			"Lower bound of regions per target (stopped only)");
	sub->add_option("--max-nr-regions", o->attrs.max_nr_regions,
			"Upper bound of regions per target (stopped only)");
	sub->add_option("--mode", o->mode, "presence or count (stopped only)");
	sub->add_option("--split", o->split,
			"samples or random (stopped only)");
	sub->add_option("--ring-size", o->attrs.ring_size,
			"Report ring entries per CPU (stopped only)");
	sub->add_option("--cpu-budget", o->cpu_budget,
			"CPU budget, percent of one CPU (e.g. 0.5; 0: none)");
	std::vector<CLI::Option *> goal;
	add_goal_options(sub, o->attrs.samples_goal, o->attrs.goal_aggrs,
			 o->attrs.min_aggr_us, o->attrs.max_aggr_us, goal);
	sub->footer(
		"Example:\n"
		"  damonctl tune default --sample-us 5000 --aggr-us 200000\n"
		"  damonctl tune default --cpu-budget 0.5\n"
		"  damonctl tune default --samples-goal 200\n");
	sub->callback([o, &t] { run_tune(*o, t); });
}

} // namespace damonctl
