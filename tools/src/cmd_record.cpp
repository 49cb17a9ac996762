// SPDX-License-Identifier: GPL-2.0
// damonctl record: every aggregation, as it happens, to a JSON-lines file.
#include <chrono>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "recording.hpp"

namespace damonctl {

namespace {

struct RecordOptions {
	std::string output;
	std::vector<std::string> names;
	uint64_t count = 0;
	double duration = 0;
};

// Complete a notification whose regions did not fit in one message.
void complete(Transport &t, Aggregation &agg)
{
	if (!agg.truncated)
		return;
	auto full = t.snapshot(CtxRef::by_id(agg.ctx_id));
	if (full && full->seq == agg.seq) {
		std::string name = agg.ctx_name;
		agg = *full;
		agg.ctx_name = name;
	}
}

void run_record(const RecordOptions &o)
{
	std::ofstream file;
	std::ostream *out = &std::cout;

	if (o.output != "-") {
		file.open(o.output, std::ios::out | std::ios::trunc);
		if (!file)
			throw UsageError("cannot write '" + o.output + "'");
		out = &file;
	}
	auto t = connect();
	auto snapshots = connect(); // dumps may not interleave notifications
	t->subscribe();
	install_interrupt_handler();
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double>(o.duration);
	uint64_t n = 0;

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
		complete(*snapshots, *agg);
		write_aggregation(*out, *agg);
		out->flush();
		n++;
	}
	if (o.output != "-")
		fmt::print(stderr, "recorded {} aggregations to {}\n", n,
			   o.output);
}

} // namespace

void setup_record(CLI::App &app)
{
	auto o = std::make_shared<RecordOptions>();
	auto *sub = app.add_subcommand(
		"record", "Write every aggregation to a JSON-lines file");

	sub->add_option("-o,--output", o->output,
			"File to write ('-' for standard output)")
		->required();
	sub->add_option("names", o->names, "Contexts to record (default: all)");
	sub->add_option("-n,--count", o->count,
			"Stop after this many aggregations");
	sub->add_option("-d,--duration", o->duration,
			"Stop after this many seconds (default: until "
			"interrupted)");
	sub->footer("Read it back with `damonctl report --input FILE` "
		    "(add --heatmap for a picture over time).\n"
		    "Example:\n  damonctl record -o rec.jsonl --duration 30\n");
	sub->callback([o] { run_record(*o); });
}

} // namespace damonctl
