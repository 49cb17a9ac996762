// SPDX-License-Identifier: GPL-2.0
// damonctl convert: a jsonl recording (damonctl record) to damo's record
// format, for damo report heatmap|access|wss.
#include <fmt/format.h>

#include "commands.hpp"
#include "damo_format.hpp"
#include "errors.hpp"
#include "recording.hpp"
#include "validators.hpp"

namespace damonctl {

namespace {

struct ConvertOptions {
	std::string input;
	std::string output;
	std::string format = "damo";
	std::optional<uint64_t> sample_us;
};

void run_convert(const ConvertOptions &o)
{
	auto aggs = read_recording_file(o.input);

	for (auto &a : aggs)
		if (o.sample_us || !a.sample_us)
			a.sample_us =
				o.sample_us.value_or(DAMO_DEFAULT_SAMPLE_US);
	write_damo_file(o.output, aggs);
	fmt::print(stderr, "converted {} aggregations from {} to {} (damo)\n",
		   aggs.size(), o.input, o.output);
}

} // namespace

void setup_convert(CLI::App &app)
{
	auto o = std::make_shared<ConvertOptions>();
	auto *sub = app.add_subcommand(
		"convert", "Convert a recording into damo's record format");

	sub->add_option("input", o->input,
			"Recording from damonctl record (jsonl)")
		->required()
		->check(CLI::ExistingFile);
	sub->add_option("output", o->output, "File to write")->required();
	sub->add_option("-f,--format", o->format,
			"Output format: damo (json_compressed)")
		->capture_default_str()
		->check(CLI::IsMember({"damo"}));
	sub->add_option("--sample-us", o->sample_us,
			"Sampling interval to state for every aggregation "
			"(default: the one recorded, else 5000)")
		->check(positive_integer(UINT32_MAX));
	sub->footer("Each (context, target) becomes one damo record and each "
		    "aggregation a snapshot of it; nr_accesses, age and "
		    "probe_hits carry over.\n"
		    "Example:\n  damonctl convert rec.jsonl damon.data && "
		    "damo report access --input damon.data\n");
	sub->callback([o] { run_convert(*o); });
}

} // namespace damonctl
