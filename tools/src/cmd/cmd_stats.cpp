// SPDX-License-Identifier: GPL-2.0
// damonctl stats: the per-CPU counters and event states (as debugfs
// perf_stats), as a table, JSON, or OpenMetrics text.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "render.hpp"

namespace damonctl {

namespace {

struct StatsOptions {
	bool per_cpu = false;
	bool json = false;
	bool openmetrics = false;
};

void run_stats(const StatsOptions &o, Transport &t)
{
	auto rows = t.stats();

	if (o.openmetrics) {
		fmt::print("{}", render_openmetrics(rows));
		return;
	}
	if (o.json) {
		nlohmann::json j = nlohmann::json::array();
		for (const auto &r : rows)
			if (o.per_cpu || !r.cpu)
				j.push_back(to_json(r));
		std::cout << j.dump(2) << "\n";
		return;
	}
	fmt::print("{}", render_stats(rows, o.per_cpu));
}

} // namespace

void setup_stats(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<StatsOptions>();
	auto *sub = app.add_subcommand(
		"stats", "Sampling counters and perf event states, total or "
			 "per CPU");

	sub->add_flag("-c,--per-cpu", o->per_cpu,
		      "One column per CPU besides the total");
	sub->add_flag("--json", o->json, "Print JSON");
	sub->add_flag("--openmetrics", o->openmetrics,
		      "Print OpenMetrics text (per CPU) for node_exporter's "
		      "textfile collector")
		->excludes("--json");
	sub->footer("Counters are described in Documentation/perf_stats.rst.\n"
		    "Example:\n  damonctl stats --openmetrics > "
		    "/var/lib/node_exporter/damon_perf.prom\n");
	sub->callback([o, &t] { run_stats(*o, t); });
}

} // namespace damonctl
