// SPDX-License-Identifier: GPL-2.0
// The scheme file: damonctl's own format (scheme_own.cpp) or damo's JSON
// (scheme_damo.cpp), told apart by its shape, and the names of its
// schemes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scheme.hpp"

namespace damonctl {

// Parses a scheme file: damonctl's {"schemes": [...]}, damo's full
// `damo args damon` output ({"kdamonds": ...}), or a JSON array of damo
// schemes. Throws UsageError naming the JSON path of the first problem.
std::vector<Scheme> parse_schemes(const nlohmann::json &doc);
std::vector<Scheme> load_schemes_file(const std::string &path);

} // namespace damonctl
