// SPDX-License-Identifier: GPL-2.0
// damonctl start: create, configure and start monitoring contexts.
#include <iostream>

#include <fmt/format.h>
#include <linux/damon_perf.h>

#include "commands.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "events.hpp"
#include "validators.hpp"

namespace damonctl {

namespace {

struct StartOptions {
	std::string config;
	std::string name = "default";
	std::string ops = "vaddr";
	std::vector<uint32_t> pids;
	std::vector<std::string> ranges;
	std::vector<std::string> events;
	std::optional<uint64_t> period;
	std::optional<uint64_t> freq;
	std::optional<uint32_t> weight;
	bool phys_addr = false;
	bool exclude_kernel = false;
	std::optional<uint64_t> sample_us, aggr_us, update_us;
	std::optional<uint32_t> samples_goal, goal_aggrs;
	std::optional<uint64_t> min_aggr_us, max_aggr_us;
	std::optional<uint32_t> min_nr_regions, max_nr_regions, ring_size;
	std::string mode;
	std::string split;
	std::string cpu_budget;
	std::vector<std::string> filters;
	bool replace = false;
	bool flags_given = false;
};

CtxConfig config_from_flags(const StartOptions &o)
{
	CtxConfig cfg;
	auto ops = ops_from_string(o.ops);

	if (!ops)
		throw UsageError("--ops must be vaddr or paddr");
	cfg.name = o.name;
	cfg.ops = *ops;
	for (auto pid : o.pids) {
		if (cfg.ops != Ops::vaddr)
			throw UsageError("--pid needs --ops vaddr");
		Target t;
		t.pid = pid;
		cfg.targets.push_back(t);
	}
	for (const auto &r : o.ranges) {
		if (cfg.ops != Ops::paddr)
			throw UsageError("--range needs --ops paddr");
		cfg.targets.push_back(parse_range(r));
	}
	if (cfg.targets.empty())
		throw UsageError(
			cfg.ops == Ops::vaddr
				? "give at least one --pid (or --config)"
				: "give at least one --range (or --config)");
	std::vector<std::string> events = o.events;
	if (events.empty())
		events.emplace_back("page-faults");
	for (const auto &e : events) {
		ProbeSpec spec;
		spec.event = e;
		spec.period = o.period;
		spec.freq = o.freq;
		spec.weight = o.weight;
		spec.phys_addr = o.phys_addr;
		spec.exclude_kernel = o.exclude_kernel;
		cfg.probes.push_back(make_probe(spec, sysfs_root()));
	}
	cfg.attrs.sample_us = o.sample_us;
	cfg.attrs.aggr_us = o.aggr_us;
	cfg.attrs.update_us = o.update_us;
	cfg.attrs.min_nr_regions = o.min_nr_regions;
	cfg.attrs.max_nr_regions = o.max_nr_regions;
	cfg.attrs.ring_size = o.ring_size;
	cfg.attrs.samples_goal = o.samples_goal;
	cfg.attrs.goal_aggrs = o.goal_aggrs;
	cfg.attrs.min_aggr_us = o.min_aggr_us;
	cfg.attrs.max_aggr_us = o.max_aggr_us;
	if (!o.mode.empty()) {
		auto mode = mode_from_string(o.mode);
		if (!mode)
			throw UsageError("--mode must be presence or count");
		cfg.attrs.mode = *mode;
	}
	if (!o.split.empty())
		cfg.attrs.split = parse_split_option(o.split);
	if (!o.cpu_budget.empty())
		cfg.attrs.cpu_budget = parse_cpu_budget_option(o.cpu_budget);
	for (const auto &f : o.filters)
		cfg.filters.push_back(parse_filter_spec(f));
	validate(cfg, "(flags)");
	return cfg;
}

} // namespace

CtxInfo start_context(Transport &t, const CtxConfig &cfg, bool replace)
{
	CtxRef ref = CtxRef::by_name(cfg.name);

	if (replace) {
		for (const auto &c : t.ctx_list()) {
			if (c.name != cfg.name)
				continue;
			if (c.state == CtxState::running)
				t.stop(ref);
			t.ctx_del(ref);
		}
	}
	CtxInfo info = t.ctx_new(cfg.name, cfg.ops);
	ref = CtxRef::by_id(info.id);
	try {
		if (!cfg.attrs.empty())
			t.set_attrs(ref, cfg.attrs);
		for (const auto &target : cfg.targets)
			t.target_add(ref, target);
		for (const auto &probe : cfg.probes)
			t.probe_add(ref, probe);
		if (!cfg.filters.empty())
			t.set_filters(ref, cfg.filters);
		t.start(ref);
	} catch (...) {
		// leave nothing half-configured behind
		try {
			t.ctx_del(ref);
		} catch (...) {
		}
		throw;
	}
	return info;
}

namespace {

void apply(Transport &t, const CtxConfig &cfg, bool replace)
{
	CtxInfo info = start_context(t, cfg, replace);

	fmt::print("started context {} \"{}\" ({} targets, {} probes)\n",
		   info.id, cfg.name, cfg.targets.size(), cfg.probes.size());
}

void run_start(const StartOptions &o, Transport &t)
{
	std::vector<CtxConfig> configs;

	if (!o.config.empty()) {
		if (o.flags_given)
			throw UsageError("give either --config or context "
					 "flags, not both");
		configs = load_config_file(o.config, sysfs_root());
	} else {
		configs.push_back(config_from_flags(o));
	}
	for (const auto &cfg : configs)
		apply(t, cfg, o.replace);
}

} // namespace

void setup_start(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<StartOptions>();
	auto *sub = app.add_subcommand(
		"start", "Create, configure and start a monitoring context");

	sub->add_option("-c,--config", o->config,
			"JSON file describing one or more contexts "
			"(see Documentation/damonctl.rst)")
		->check(CLI::ExistingFile);
	std::vector<CLI::Option *> flags;
	flags.push_back(sub->add_option("-n,--name", o->name,
					"Context name (1-31 characters)")
				->capture_default_str());
	flags.push_back(sub->add_option("--ops", o->ops,
					"Address space: vaddr (processes) or "
					"paddr (physical ranges)")
				->capture_default_str());
	flags.push_back(sub->add_option("-p,--pid", o->pids,
					"Process to monitor (vaddr; repeat "
					"for several)"));
	flags.push_back(sub->add_option("-r,--range", o->ranges,
					"Physical range START-END (paddr; "
					"repeat for several)"));
	flags.push_back(sub->add_option("-e,--event", o->events,
					"Perf event string (repeat for up to "
					"3 probes; default page-faults)"));
	flags.push_back(sub->add_option("--period", o->period,
					"Sample period for every --event")
				->check(positive_integer(
					DAMON_PERF_SAMPLE_PERIOD_MAX)));
	flags.push_back(sub->add_option("--freq", o->freq,
					"Sample frequency (Hz) for every "
					"--event")
				->excludes("--period")
				->check(positive_integer(
					DAMON_PERF_SAMPLE_PERIOD_MAX)));
	flags.push_back(
		sub->add_option("--weight", o->weight,
				"Credit weight of each probe's samples"));
	flags.push_back(sub->add_flag("--phys-addr", o->phys_addr,
				      "Ask the PMU for physical addresses"));
	flags.push_back(sub->add_flag("--exclude-kernel", o->exclude_kernel,
				      "Do not sample kernel execution"));
	flags.push_back(sub->add_option("--sample-us", o->sample_us,
					"Sample (drain) interval in us"));
	flags.push_back(sub->add_option("--aggr-us", o->aggr_us,
					"Aggregation interval in us"));
	flags.push_back(sub->add_option("--update-us", o->update_us,
					"Target update interval in us"));
	add_goal_options(sub, o->samples_goal, o->goal_aggrs, o->min_aggr_us,
			 o->max_aggr_us, flags);
	flags.push_back(sub->add_option("--min-nr-regions", o->min_nr_regions,
					"Lower bound of regions per target"));
	flags.push_back(sub->add_option("--max-nr-regions", o->max_nr_regions,
					"Upper bound of regions per target"));
	flags.push_back(
		sub->add_option("--mode", o->mode,
				"presence (at most one access per "
				"region per sample interval) or count"));
	flags.push_back(sub->add_option(
		"--split", o->split,
		"samples (default: cut regions where the sample density "
		"changes) or random (DAMON's random split points)"));
	flags.push_back(sub->add_option(
		"--cpu-budget", o->cpu_budget,
		"CPU budget, percent of one CPU (e.g. 0.5): the probes' "
		"periods rise while the handlers and the drain cost more "
		"(default 0: none)"));
	flags.push_back(sub->add_option("--ring-size", o->ring_size,
					"Report ring entries per CPU (power "
					"of two)"));
	flags.push_back(sub->add_option(
		"-f,--filter", o->filters,
		"Sample filter: [!]cpumask:LIST, [!]tid:TID[,TID], [!]write "
		"('!' rejects what matches)"));
	sub->add_flag(
		"--replace", o->replace,
		"Stop and delete existing contexts of the same name first");
	sub->footer(
		"Examples:\n"
		"  damonctl start --pid 1234\n"
		"      monitor process 1234 with the page-faults software "
		"event\n"
		"  damonctl start -n db -p 1234 -e 'cpu/mem-loads,ldlat=30/P' "
		"--period 1000\n"
		"  damonctl start --ops paddr -r 0x100000000-0x140000000 "
		"-e ibs_op// --phys-addr\n"
		"  damonctl start --config monitor.json\n"
		"Check an event string first with: damonctl events --resolve "
		"EVENT\n");
	sub->callback([o, flags, &t] {
		o->flags_given = false;
		for (auto *f : flags)
			o->flags_given = o->flags_given || f->count() > 0;
		run_start(*o, t);
	});
}

} // namespace damonctl
