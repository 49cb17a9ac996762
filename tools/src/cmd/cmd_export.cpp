// SPDX-License-Identifier: GPL-2.0
// damonctl export: per-context metrics and the module's counters written
// for node_exporter's textfile collector, atomically, every --interval
// seconds (or --once).
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <sys/stat.h>

#include "commands.hpp"
#include "errors.hpp"
#include "scheme_state.hpp"
#include "textfile.hpp"
#include "validators.hpp"

namespace damonctl {

namespace {

const char *const prom_name = "damon_perf.prom";

struct ExportOptions {
	std::string dir;
	double interval = 15;
	bool once = false;
	std::vector<std::string> names;
	TextfileOptions text;
};

// The schemes engines' stats (their state files), of the contexts named.
std::string schemes_metrics(const ExportOptions &o)
{
	return render_engine_textfile(
		engines_for(read_engine_states(SCHEMES_STATE_DIR), o.names));
}

std::string collect(const ExportOptions &o, Transport &t)
{
	std::vector<CtxSnapshot> snaps;
	auto ctxs = t.ctx_list();

	for (const auto &name : o.names)
		if (std::none_of(
			    ctxs.begin(), ctxs.end(),
			    [&](const CtxInfo &c) { return c.name == name; }))
			throw UsageError("no context named '" + name + "'");
	for (const auto &c : ctxs) {
		if (!o.names.empty() &&
		    std::find(o.names.begin(), o.names.end(), c.name) ==
			    o.names.end())
			continue;
		CtxSnapshot s{c, std::nullopt};
		try {
			s.agg = t.snapshot(CtxRef::by_id(c.id));
		} catch (const KernelError &e) {
			if (e.err() != ENOENT)
				throw;
			continue; // deleted between the list and the dump
		}
		snaps.push_back(std::move(s));
	}
	return render_textfile(snaps, t.stats(), o.text) + schemes_metrics(o);
}

void run_export(const ExportOptions &o, Transport &t)
{
	struct stat st;

	if (stat(o.dir.c_str(), &st) || !S_ISDIR(st.st_mode))
		throw UsageError("--textfile " + o.dir + ": not a directory");
	install_interrupt_handler();
	for (;;) {
		auto next = std::chrono::steady_clock::now() +
			    std::chrono::duration<double>(o.interval);
		try {
			write_atomic(o.dir, prom_name, collect(o, t));
		} catch (const ModuleNotLoaded &) {
			// the scraper learns it from damon_perf_up 0
			write_atomic(o.dir, prom_name,
				     render_textfile_down() +
					     schemes_metrics(o));
			if (o.once)
				throw;
		}
		if (o.once)
			return;
		while (!interrupted() &&
		       std::chrono::steady_clock::now() < next)
			std::this_thread::sleep_for(
				std::chrono::milliseconds(50));
		if (interrupted())
			return;
	}
}

} // namespace

void setup_export(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<ExportOptions>();
	auto *sub = app.add_subcommand(
		"export", "Write per-context metrics and the module's counters "
			  "for node_exporter's textfile collector");

	sub->add_option("names", o->names, "Contexts to export (default: all)");
	sub->add_option("--textfile", o->dir,
			"Directory node_exporter's textfile collector reads "
			"(writes DIR/damon_perf.prom)")
		->required();
	sub->add_option("--interval", o->interval,
			"Seconds between two writes (default 15)")
		->check(CLI::Range(0.1, 86400.0));
	sub->add_flag("--once", o->once, "Write the file once and exit");
	sub->add_option("--wss-min", o->text.wss_min,
			"Count a region in the working set from this many "
			"accesses (default 1)")
		->check(positive_integer(UINT32_MAX));
	sub->add_option("--hot-min", o->text.hot_min,
			"Count a region as hot from this many accesses "
			"(default: half the aggregation's highest)")
		->check(positive_integer(UINT32_MAX));
	sub->footer(
		"The file is written to DIR/.damon_perf.prom.tmp and renamed "
		"over DIR/damon_perf.prom, so a scrape never reads a partial "
		"file. While the module is not loaded it holds damon_perf_up "
		"0. "
		"Metrics are described in Documentation/admin-guide.rst.\n"
		"Examples:\n"
		"  damonctl export --textfile "
		"/var/lib/prometheus/node-exporter "
		"--interval 15\n"
		"  damonctl export --textfile /tmp/prom --once app\n");
	sub->callback([o, &t] { run_export(*o, t); });
}

} // namespace damonctl
