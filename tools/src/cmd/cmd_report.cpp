// SPDX-License-Identifier: GPL-2.0
// damonctl report: the latest aggregation of each context (regions table,
// hottest regions, working-set size), or a recording read back (--input),
// optionally drawn as an address-over-time heatmap.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "heatmap.hpp"
#include "recording.hpp"
#include "render.hpp"
#include "validators.hpp"

namespace damonctl {

namespace {

struct ReportOptions {
	std::vector<std::string> names;
	size_t hot = 0;
	bool json = false;
	std::string input;
	bool heatmap = false;
	std::optional<size_t> rows;
	std::optional<size_t> cols;
	std::string output;
	std::string range;
	bool all_ranges = false;
	uint32_t wss_min = 1;
};

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
				sort_hottest(h.regions);
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

HeatmapSpec heatmap_spec(const ReportOptions &o, size_t rows, size_t cols)
{
	HeatmapSpec spec;

	spec.rows = o.rows.value_or(rows);
	spec.cols = o.cols.value_or(cols);
	spec.all_ranges = o.all_ranges;
	if (!o.range.empty())
		spec.range = parse_addr_range(o.range);
	return spec;
}

bool ends_with(const std::string &s, const std::string &suffix)
{
	return s.size() >= suffix.size() &&
	       s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// --output FILE.svg or FILE.png: one context per image.
void write_image(const ReportOptions &o,
		 const std::map<uint32_t, std::vector<Aggregation>> &by_ctx)
{
	bool png = ends_with(o.output, ".png");

	if (!png && !ends_with(o.output, ".svg"))
		throw UsageError("--output must name a .svg or .png file");
	if (by_ctx.size() > 1)
		throw UsageError("the recording has " +
				 std::to_string(by_ctx.size()) +
				 " contexts: name the one to draw");
	if (by_ctx.empty())
		return;
	HeatmapSpec spec = heatmap_spec(o, 200, 400);
	HeatGrid g = heat_grid(by_ctx.begin()->second, spec);
	if (!g.rows && !spec.all_ranges && !spec.range) {
		fmt::print(stderr, "no range saw an access; drawing every "
				   "monitored range\n");
		spec.all_ranges = true;
		g = heat_grid(by_ctx.begin()->second, spec);
	}
	if (!g.rows)
		throw UsageError("no regions to draw (none in the range)");
	if (png) {
		write_heatmap_png(o.output, g);
	} else {
		std::ofstream f(o.output, std::ios::trunc);
		f << heatmap_svg(g);
		if (!f.flush())
			throw UsageError("cannot write '" + o.output + "'");
	}
	fmt::print(stderr, "wrote {} ({} rows x {} columns, {} covered)\n",
		   o.output, g.rows, g.cols, human_size(g.covered));
}

void run_report(const ReportOptions &o, Transport &t)
{
	std::vector<Aggregation> latest;
	if (!o.heatmap &&
	    (!o.output.empty() || !o.range.empty() || o.all_ranges))
		throw UsageError("--output, --range and --all-ranges go with "
				 "--heatmap");

	if (!o.input.empty()) {
		auto all = read_recording_file(o.input);
		std::vector<Aggregation> sel;
		for (auto &a : all)
			if (wanted(o.names, a.ctx_name))
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
			if (!o.output.empty()) {
				write_image(o, by_ctx);
				return;
			}
			HeatmapSpec spec = heatmap_spec(o, 20, 60);
			for (auto &[id, aggs] : by_ctx) {
				fmt::print("context {} \"{}\"\n", id,
					   aggs.front().ctx_name);
				fmt::print(
					"{}",
					render_heatmap(aggs, spec,
						       stdout_takes_colour()));
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
	auto ctxs = t.ctx_list();
	check_names(ctxs, o.names);
	for (const auto &c : ctxs) {
		if (!wanted(o.names, c.name))
			continue;
		auto agg = t.snapshot(CtxRef::by_id(c.id));
		if (agg) {
			agg->ctx_name = c.name;
			latest.push_back(*agg);
		}
	}
	print(o, latest);
}

} // namespace

void setup_report(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<ReportOptions>();
	auto *sub = app.add_subcommand(
		"report", "Show monitored regions: access counts, hottest "
			  "regions, working set, heatmap");

	sub->add_option("names", o->names, "Contexts to show (default: all)");
	sub->add_option("--hot", o->hot,
			"Show only the N hottest regions (by nr_accesses, ties "
			"by rate)");
	sub->add_option("--wss-min", o->wss_min,
			"Count a region in the working set from this many "
			"accesses")
		->capture_default_str()
		->check(positive_integer(UINT32_MAX));
	sub->add_flag("--json", o->json, "Print JSON");
	sub->add_option("-i,--input", o->input,
			"Read a recording (from damonctl record) instead of "
			"the kernel")
		->check(CLI::ExistingFile);
	sub->add_flag("--heatmap", o->heatmap,
		      "Draw address (rows) over time (columns) from --input");
	sub->add_option("--rows", o->rows,
			"Heatmap rows (default: 20, images 200)")
		->check(CLI::Range(1, 2000));
	sub->add_option("--cols", o->cols,
			"Heatmap columns, at most one per aggregation "
			"(default: 60, images 400)")
		->check(CLI::Range(1, 2000));
	sub->add_option("-o,--output", o->output,
			"Write the heatmap as an image: FILE.svg or FILE.png");
	sub->add_option("--range", o->range,
			"Draw only the addresses START-END (hex or decimal)");
	sub->add_flag("--all-ranges", o->all_ranges,
		      "Draw every monitored range to scale (rows by bytes; "
		      "default: rows by accesses, idle stretches collapsed)");
	sub->footer("Examples:\n"
		    "  damonctl report --hot 10\n"
		    "  damonctl record -o rec.jsonl --duration 10 && "
		    "damonctl report -i rec.jsonl --heatmap\n"
		    "  damonctl report -i rec.jsonl --heatmap -o heat.svg "
		    "--range 0x7f0000000000-0x7f0004000000\n"
		    "The heatmap's rows go to the ranges that saw accesses, "
		    "by their accesses; each stretch without any is one row "
		    "marked ~. Text output has colour on a terminal unless "
		    "NO_COLOR is set or TERM is dumb.\n");
	sub->callback([o, &t] { run_report(*o, t); });
}

} // namespace damonctl
