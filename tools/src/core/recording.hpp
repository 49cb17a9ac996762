// SPDX-License-Identifier: GPL-2.0
// Recordings: one aggregation per line, JSON (see render.hpp to_json).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "model.hpp"

namespace damonctl {

void write_aggregation(std::ostream &out, const Aggregation &agg);
// Throws UsageError naming the line of the first bad record.
std::vector<Aggregation> read_recording(std::istream &in);
std::vector<Aggregation> read_recording_file(const std::string &path);

} // namespace damonctl
