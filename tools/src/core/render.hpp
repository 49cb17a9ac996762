// SPDX-License-Identifier: GPL-2.0
// Output: human tables (fmt), JSON (nlohmann) and OpenMetrics text. Pure
// functions of the data model so tests can check them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "events.hpp"
#include "model.hpp"

namespace damonctl {

nlohmann::json to_json(const CtxInfo &ctx);
nlohmann::json to_json(const Aggregation &agg);
nlohmann::json to_json(const StatsRow &row);
nlohmann::json to_json(const ResolvedEvent &ev);
nlohmann::json to_json(const Pmu &pmu);
// Inverse of to_json(Aggregation) for recordings; throws UsageError.
Aggregation aggregation_from_json(const nlohmann::json &j);

std::string render_status(const std::vector<CtxInfo> &ctxs);

// Regions with at least @min_accesses accesses, in bytes.
uint64_t working_set_size(const Aggregation &agg, uint32_t min_accesses = 1);
// @regions hottest first: by nr_accesses; of equal ones, by estimated access
// rate (the samples and the periods they stand for), then by target and
// address.
void sort_hottest(std::vector<Region> &regions);
// Regions table; @hot > 0 keeps the @hot hottest regions (sort_hottest).
// ", N samples, floor F, met|carried (age A)|low[, over W intervals]": the
// sample floor's verdict for a header line; "" when the module sent none.
std::string render_confidence(const Aggregation &agg);
std::string render_regions(const Aggregation &agg, size_t hot = 0);

std::string render_stats(const std::vector<StatsRow> &rows, bool per_cpu);
// OpenMetrics text, or with @prometheus the Prometheus text format that
// node_exporter's textfile collector parses (TYPE names a counter's _total
// sample, no "# EOF").
std::string render_openmetrics(const std::vector<StatsRow> &rows,
			       bool prometheus = false);

std::string render_pmus(const std::vector<Pmu> &pmus);
std::string render_resolved(const ResolvedEvent &ev);

std::string human_size(uint64_t bytes);

// Whether stdout takes terminal escapes (clearing the screen): it is a
// terminal and TERM is not "dumb".
bool stdout_takes_escapes();
// Whether stdout takes colour: stdout_takes_escapes() and NO_COLOR unset
// or empty (no-color.org).
bool stdout_takes_colour();

} // namespace damonctl
