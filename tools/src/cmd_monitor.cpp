// SPDX-License-Identifier: GPL-2.0
// damonctl monitor: a live view refreshed on every aggregation.
#include <chrono>
#include <iostream>
#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "render.hpp"

namespace damonctl {

namespace {

struct MonitorOptions {
	std::vector<std::string> names;
	size_t hot = 20;
	uint64_t count = 0;
	double duration = 0;
	bool json = false;
	bool no_clear = false;
};

void run_monitor(const MonitorOptions &o)
{
	auto t = connect();
	t->subscribe();
	install_interrupt_handler();
	bool clear = !o.no_clear && !o.json && isatty(1);
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double>(o.duration);
	uint64_t n = 0;

	if (!o.json)
		fmt::print("waiting for aggregations (Ctrl-C to stop)\n");
	while (!interrupted() && (!o.count || n < o.count)) {
		if (o.duration > 0 && std::chrono::steady_clock::now() >= end)
			break;
		auto agg = t->next_aggregation(200);
		if (!agg)
			continue;
		if (!o.names.empty() &&
		    std::find(o.names.begin(), o.names.end(), agg->ctx_name) ==
			    o.names.end())
			continue;
		n++;
		if (o.json) {
			std::cout << to_json(*agg).dump() << std::endl;
			continue;
		}
		if (clear)
			fmt::print("\x1b[H\x1b[2J");
		fmt::print("{}", render_regions(*agg, o.hot));
		if (agg->truncated)
			fmt::print("(regions did not fit in one notification; "
				   "see damonctl report)\n");
		std::fflush(stdout);
	}
	if (o.count && n < o.count)
		throw std::runtime_error(
			fmt::format("got {} of {} aggregations", n, o.count));
}

} // namespace

void setup_monitor(CLI::App &app)
{
	auto o = std::make_shared<MonitorOptions>();
	auto *sub = app.add_subcommand(
		"monitor", "Live view of the hottest regions, refreshed on "
			   "every aggregation");

	sub->add_option("names", o->names, "Contexts to show (default: all)");
	sub->add_option("--hot", o->hot, "Regions to show")
		->capture_default_str();
	sub->add_option("-n,--count", o->count,
			"Stop after this many aggregations (exit 4 if the "
			"duration ends first)");
	sub->add_option("-d,--duration", o->duration,
			"Stop after this many seconds");
	sub->add_flag("--json", o->json,
		      "Print each aggregation as one JSON line");
	sub->add_flag("--no-clear", o->no_clear,
		      "Append instead of redrawing the screen");
	sub->footer("Notifications need CAP_SYS_ADMIN or CAP_PERFMON, like "
		    "every command.\nExample:\n  damonctl monitor --hot 10\n");
	sub->callback([o] { run_monitor(*o); });
}

} // namespace damonctl
