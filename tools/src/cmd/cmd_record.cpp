// SPDX-License-Identifier: GPL-2.0
// damonctl record: every aggregation, as it happens, to a JSON-lines file.
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.hpp"
#include "damo_format.hpp"
#include "errors.hpp"
#include "recording.hpp"
#include "stream.hpp"

namespace damonctl {

namespace {

struct RecordOptions {
	std::string output;
	StreamLimits limits;
	std::string format = "jsonl";
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

// Each aggregation completed and given its intervals, then written.
class RecordSink : public AggregationSink {
public:
	explicit RecordSink(Transport &dumps)
		: dumps_(dumps)
		, intervals_(dumps)
	{
	}

	void put(Aggregation &agg) final
	{
		complete(dumps_, agg);
		intervals_.fill(agg);
		write(agg);
	}

protected:
	virtual void write(Aggregation &agg) = 0;

private:
	Transport &dumps_;
	Intervals intervals_;
};

// damonctl's JSON lines, written as they come.
class JsonlSink : public RecordSink {
public:
	JsonlSink(Transport &dumps, std::ostream &out)
		: RecordSink(dumps)
		, out_(out)
	{
	}

protected:
	void write(Aggregation &agg) override
	{
		write_aggregation(out_, agg);
		out_.flush();
	}

private:
	std::ostream &out_;
};

// damo's json_compressed, written when the stream ends.
class DamoSink : public RecordSink {
public:
	DamoSink(Transport &dumps, std::string path)
		: RecordSink(dumps)
		, path_(std::move(path))
	{
	}

	void end(uint64_t) override { write_damo_file(path_, kept_); }

protected:
	void write(Aggregation &agg) override
	{
		kept_.push_back(std::move(agg));
	}

private:
	std::string path_;
	std::vector<Aggregation> kept_;
};

void run_record(const RecordOptions &o, Transport &t, Transport &dumps)
{
	std::ofstream file;
	std::ostream *out = &std::cout;
	bool damo = o.format == "damo";

	if (damo && o.output == "-")
		throw UsageError("--format damo writes a file: give -o FILE");
	if (o.output != "-" && !damo) {
		file.open(o.output, std::ios::out | std::ios::trunc);
		if (!file)
			throw UsageError("cannot write '" + o.output + "'");
		out = &file;
	}
	uint64_t n;
	if (damo) {
		DamoSink sink(dumps, o.output);
		n = stream_aggregations(t, o.limits, sink);
	} else {
		JsonlSink sink(dumps, *out);
		n = stream_aggregations(t, o.limits, sink);
	}
	if (o.output != "-")
		fmt::print(stderr, "recorded {} aggregations to {}{}\n", n,
			   o.output, damo ? " (damo json_compressed)" : "");
}

} // namespace

void setup_record(CLI::App &app, Transport &t, Transport &dumps)
{
	auto o = std::make_shared<RecordOptions>();
	auto *sub = app.add_subcommand(
		"record", "Write every aggregation to a JSON-lines file");

	sub->add_option("-o,--output", o->output,
			"File to write ('-' for standard output)")
		->required();
	sub->add_option("names", o->limits.names,
			"Contexts to record (default: all)");
	sub->add_option("-f,--format", o->format,
			"jsonl (damonctl's, one aggregation a line, written "
			"as it comes) or damo (damo's json_compressed, "
			"written when recording stops)")
		->capture_default_str()
		->check(CLI::IsMember({"jsonl", "damo"}));
	sub->add_option("-n,--count", o->limits.count,
			"Stop after this many aggregations");
	sub->add_option("-d,--duration", o->limits.duration,
			"Stop after this many seconds (default: until "
			"interrupted)");
	add_rcvbuf_option(sub, o->limits);
	sub->footer("Read it back with `damonctl report --input FILE` "
		    "(add --heatmap for a picture over time); a damo file "
		    "with `damo report heatmap|access|wss --input FILE`. "
		    "`damonctl convert` turns a jsonl recording into a damo "
		    "one.\n"
		    "Examples:\n  damonctl record -o rec.jsonl --duration 30\n"
		    "  damonctl record -f damo -o damon.data --duration 30 && "
		    "damo report heatmap --input damon.data\n");
	sub->callback([o, &t, &dumps] { run_record(*o, t, dumps); });
}

} // namespace damonctl
