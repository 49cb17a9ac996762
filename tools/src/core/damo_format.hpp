// SPDX-License-Identifier: GPL-2.0
// damo's record format ("json_compressed": a zlib stream of a JSON list of
// records, one per monitoring target, each with its intervals and
// snapshots), so `damo report heatmap|access|wss --input FILE` reads a
// damon_perf recording. Written from the layout damo 3.3.0 reads; see
// Documentation/damonctl.rst ("damo interop") for the field mapping.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"

namespace damonctl {

// The module's default intervals, for recordings that do not carry them.
constexpr uint64_t DAMO_DEFAULT_SAMPLE_US = 5000;
constexpr uint64_t DAMO_DEFAULT_UPDATE_US = 1000000;

// One record per (context, target) in order of first appearance; each
// aggregation of that context is a snapshot of the target's regions.
nlohmann::json to_damo_json(const std::vector<Aggregation> &aggs);

std::string zlib_compress(const std::string &data);
// Throws UsageError on a stream that does not inflate.
std::string zlib_decompress(const std::string &data);

// Writes @aggs to @path (through a temporary file and a rename, so a
// reader never sees half a file). Throws UsageError when it cannot.
void write_damo_file(const std::string &path,
		     const std::vector<Aggregation> &aggs);

} // namespace damonctl
