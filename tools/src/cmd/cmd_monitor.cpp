// SPDX-License-Identifier: GPL-2.0
// damonctl monitor: a live view refreshed on every aggregation.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "render.hpp"
#include "stream.hpp"

namespace damonctl {

namespace {

struct MonitorOptions {
	StreamLimits limits;
	size_t hot = 20;
	bool json = false;
	bool no_clear = false;
};

// One JSON line per aggregation.
class JsonSink : public AggregationSink {
public:
	void put(Aggregation &agg) override
	{
		std::cout << to_json(agg).dump() << std::endl;
	}
};

// The hottest regions, redrawn (on a terminal) or appended.
class ViewSink : public AggregationSink {
public:
	ViewSink(size_t hot, bool clear)
		: hot_(hot)
		, clear_(clear)
	{
	}

	void begin() override
	{
		fmt::print("waiting for aggregations (Ctrl-C to stop)\n");
	}

	void put(Aggregation &agg) override
	{
		if (clear_)
			fmt::print("\x1b[H\x1b[2J");
		fmt::print("{}", render_regions(agg, hot_));
		if (agg.truncated)
			fmt::print("(regions did not fit in one notification; "
				   "see damonctl report)\n");
		std::fflush(stdout);
	}

private:
	size_t hot_;
	bool clear_;
};

void run_monitor(const MonitorOptions &o, Transport &t)
{
	JsonSink json;
	ViewSink view(o.hot, !o.no_clear && !o.json && stdout_takes_escapes());
	uint64_t count = o.limits.count;
	uint64_t n = stream_aggregations(
		t, o.limits,
		o.json ? static_cast<AggregationSink &>(json)
		       : static_cast<AggregationSink &>(view));

	if (count && n < count)
		throw std::runtime_error(
			fmt::format("got {} of {} aggregations", n, count));
}

} // namespace

void setup_monitor(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<MonitorOptions>();
	auto *sub = app.add_subcommand(
		"monitor", "Live view of the hottest regions, refreshed on "
			   "every aggregation");

	sub->add_option("names", o->limits.names,
			"Contexts to show (default: all)");
	sub->add_option("--hot", o->hot, "Regions to show")
		->capture_default_str();
	sub->add_option("-n,--count", o->limits.count,
			"Stop after this many aggregations (exit 4 if the "
			"duration ends first)");
	sub->add_option("-d,--duration", o->limits.duration,
			"Stop after this many seconds");
	add_rcvbuf_option(sub, o->limits);
	sub->add_flag("--json", o->json,
		      "Print each aggregation as one JSON line");
	sub->add_flag("--no-clear", o->no_clear,
		      "Append instead of redrawing the screen (redrawing is "
		      "the default on a terminal whose TERM is not dumb)");
	sub->footer("Notifications need CAP_SYS_ADMIN or CAP_PERFMON, like "
		    "every command.\nExample:\n  damonctl monitor --hot 10\n");
	sub->callback([o, &t] { run_monitor(*o, t); });
}

} // namespace damonctl
