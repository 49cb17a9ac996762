// SPDX-License-Identifier: GPL-2.0
// damonctl report: the latest aggregation of each context (regions table,
// hottest regions, working-set size), or a recording read back (--input),
// optionally drawn as an address-over-time heatmap.
#include <iostream>
#include <map>
#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "recording.hpp"
#include "render.hpp"

namespace damonctl {

namespace {

struct ReportOptions {
	std::vector<std::string> names;
	size_t hot = 0;
	bool json = false;
	std::string input;
	bool heatmap = false;
	size_t rows = 20;
	size_t cols = 60;
	uint32_t wss_min = 1;
};

bool wanted(const ReportOptions &o, const std::string &name)
{
	return o.names.empty() ||
	       std::find(o.names.begin(), o.names.end(), name) != o.names.end();
}

void print(const ReportOptions &o, const std::vector<Aggregation> &latest)
{
	if (o.json) {
		nlohmann::json j = nlohmann::json::array();
		for (const auto &a : latest) {
			auto ja = to_json(a);
			ja["working_set_bytes"] =
				working_set_size(a, o.wss_min);
			if (o.hot) {
				Aggregation h = a;
				std::stable_sort(
					h.regions.begin(), h.regions.end(),
					[](const Region &x, const Region &y) {
						return x.nr_accesses >
						       y.nr_accesses;
					});
				if (h.regions.size() > o.hot)
					h.regions.resize(o.hot);
				ja["regions"] = to_json(h)["regions"];
			}
			j.push_back(ja);
		}
		std::cout << j.dump(2) << "\n";
		return;
	}
	if (latest.empty())
		fmt::print("no aggregation yet\n");
	for (const auto &a : latest) {
		fmt::print("{}", render_regions(a, o.hot));
		if (o.wss_min != 1)
			fmt::print("working set (nr_accesses >= {}): {}\n",
				   o.wss_min,
				   human_size(working_set_size(a, o.wss_min)));
	}
}

void run_report(const ReportOptions &o)
{
	std::vector<Aggregation> latest;

	if (!o.input.empty()) {
		auto all = read_recording_file(o.input);
		std::vector<Aggregation> sel;
		for (auto &a : all)
			if (wanted(o, a.ctx_name))
				sel.push_back(a);
		for (const auto &name : o.names)
			if (std::none_of(all.begin(), all.end(),
					 [&](const Aggregation &a) {
						 return a.ctx_name == name;
					 }))
				throw UsageError("no context named '" + name +
						 "' in " + o.input);
		if (o.heatmap) {
			std::map<uint32_t, std::vector<Aggregation>> by_ctx;
			for (auto &a : sel)
				by_ctx[a.ctx_id].push_back(a);
			if (by_ctx.empty())
				fmt::print("no aggregation in {}\n", o.input);
			for (auto &[id, aggs] : by_ctx) {
				fmt::print("context {} \"{}\"\n", id,
					   aggs.front().ctx_name);
				fmt::print("{}",
					   render_heatmap(aggs, o.rows, o.cols,
							  isatty(1)));
			}
			return;
		}
		std::map<uint32_t, Aggregation> last;
		for (auto &a : sel)
			last[a.ctx_id] = a;
		for (auto &[id, a] : last)
			latest.push_back(a);
		print(o, latest);
		return;
	}
	if (o.heatmap)
		throw UsageError("--heatmap draws a recording: give --input "
				 "FILE (make one with damonctl record)");
	auto t = connect();
	auto ctxs = t->ctx_list();
	for (const auto &name : o.names)
		if (std::none_of(
			    ctxs.begin(), ctxs.end(),
			    [&](const CtxInfo &c) { return c.name == name; }))
			throw UsageError("no context named '" + name + "'");
	for (const auto &c : ctxs) {
		if (!wanted(o, c.name))
			continue;
		auto agg = t->snapshot(CtxRef::by_id(c.id));
		if (agg) {
			agg->ctx_name = c.name;
			latest.push_back(*agg);
		}
	}
	print(o, latest);
}

} // namespace

void setup_report(CLI::App &app)
{
	auto o = std::make_shared<ReportOptions>();
	auto *sub = app.add_subcommand(
		"report", "Show monitored regions: access counts, hottest "
			  "regions, working set, heatmap");

	sub->add_option("names", o->names, "Contexts to show (default: all)");
	sub->add_option("--hot", o->hot,
			"Show only the N most accessed regions");
	sub->add_option("--wss-min", o->wss_min,
			"Count a region in the working set from this many "
			"accesses")
		->capture_default_str()
		->check(CLI::PositiveNumber);
	sub->add_flag("--json", o->json, "Print JSON");
	sub->add_option("-i,--input", o->input,
			"Read a recording (from damonctl record) instead of "
			"the kernel")
		->check(CLI::ExistingFile);
	sub->add_flag("--heatmap", o->heatmap,
		      "Draw address (rows) over time (columns) from --input");
	sub->add_option("--rows", o->rows, "Heatmap rows")
		->capture_default_str()
		->check(CLI::Range(1, 500));
	sub->add_option("--cols", o->cols,
			"Heatmap columns (at most one "
			"per aggregation)")
		->capture_default_str()
		->check(CLI::Range(1, 1000));
	sub->footer("Examples:\n"
		    "  damonctl report --hot 10\n"
		    "  damonctl record -o rec.jsonl --duration 10 && "
		    "damonctl report -i rec.jsonl --heatmap\n");
	sub->callback([o] { run_report(*o); });
}

} // namespace damonctl
