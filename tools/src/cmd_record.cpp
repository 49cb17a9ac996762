// SPDX-License-Identifier: GPL-2.0
// damonctl record: every aggregation, as it happens, to a JSON-lines file.
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.hpp"
#include "damo_format.hpp"
#include "errors.hpp"
#include "recording.hpp"

namespace damonctl {

namespace {

struct RecordOptions {
	std::string output;
	std::vector<std::string> names;
	std::string format = "jsonl";
	uint64_t count = 0;
	double duration = 0;
};

// The intervals of each context, from CTX_LIST, so a recording carries
// sample_us and update_us (damo needs them); refreshed for a context it
// has not seen.
class Intervals {
public:
	explicit Intervals(Transport &t)
		: t_(t)
	{
	}

	void fill(Aggregation &agg)
	{
		if (!known_.count(agg.ctx_id))
			for (const auto &c : t_.ctx_list())
				known_[c.id] = c.attrs;
		auto it = known_.find(agg.ctx_id);
		if (it == known_.end())
			return;
		agg.sample_us = it->second.sample_us;
		agg.update_us = it->second.update_us;
	}

private:
	Transport &t_;
	std::map<uint32_t, Attrs> known_;
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
	bool damo = o.format == "damo";
	std::vector<Aggregation> kept; // damo: written at the end

	if (damo && o.output == "-")
		throw UsageError("--format damo writes a file: give -o FILE");
	if (o.output != "-" && !damo) {
		file.open(o.output, std::ios::out | std::ios::trunc);
		if (!file)
			throw UsageError("cannot write '" + o.output + "'");
		out = &file;
	}
	auto t = connect();
	auto snapshots = connect(); // dumps may not interleave notifications
	t->subscribe();
	Intervals intervals(*snapshots);
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
		intervals.fill(*agg);
		if (damo) {
			kept.push_back(std::move(*agg));
		} else {
			write_aggregation(*out, *agg);
			out->flush();
		}
		n++;
	}
	if (damo)
		write_damo_file(o.output, kept);
	if (o.output != "-")
		fmt::print(stderr, "recorded {} aggregations to {}{}\n", n,
			   o.output, damo ? " (damo json_compressed)" : "");
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
	sub->add_option("-f,--format", o->format,
			"jsonl (damonctl's, one aggregation a line, written "
			"as it comes) or damo (damo's json_compressed, "
			"written when recording stops)")
		->capture_default_str()
		->check(CLI::IsMember({"jsonl", "damo"}));
	sub->add_option("-n,--count", o->count,
			"Stop after this many aggregations");
	sub->add_option("-d,--duration", o->duration,
			"Stop after this many seconds (default: until "
			"interrupted)");
	sub->footer("Read it back with `damonctl report --input FILE` "
		    "(add --heatmap for a picture over time); a damo file "
		    "with `damo report heatmap|access|wss --input FILE`. "
		    "`damonctl convert` turns a jsonl recording into a damo "
		    "one.\n"
		    "Examples:\n  damonctl record -o rec.jsonl --duration 30\n"
		    "  damonctl record -f damo -o damon.data --duration 30 && "
		    "damo report heatmap --input damon.data\n");
	sub->callback([o] { run_record(*o); });
}

} // namespace damonctl
