// SPDX-License-Identifier: GPL-2.0
// `damonctl export`: per-context metrics and the module's counters in the
// Prometheus text format, for node_exporter's textfile collector, and the
// atomic write of the file it reads. Pure functions but the write, so
// tests can check them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

namespace damonctl {

// One context and its latest aggregation (none before the first).
struct CtxSnapshot {
	CtxInfo ctx;
	std::optional<Aggregation> agg;
};

struct TextfileOptions {
	uint32_t wss_min = 1; // working set: regions with this many accesses
	// hot: regions with this many accesses; 0: half the aggregation's
	// highest nr_accesses, rounded up
	uint32_t hot_min = 0;
};

// The threshold hot bytes count from for @agg under @o.
uint32_t hot_threshold(const Aggregation &agg, const TextfileOptions &o);

// damon_perf_up 1, the per-context metrics, then render_openmetrics()'s
// counters in their Prometheus flavour.
std::string render_textfile(const std::vector<CtxSnapshot> &ctxs,
			    const std::vector<StatsRow> &stats,
			    const TextfileOptions &o);
// What the file says while the module is not loaded: damon_perf_up 0.
std::string render_textfile_down();

// Write @content to @dir/.@name.tmp, fsync it and rename it over
// @dir/@name, so a reader sees the old file or the new one, never a part.
// Throws std::system_error (the temporary file removed) on failure.
void write_atomic(const std::string &dir, const std::string &name,
		  const std::string &content);

} // namespace damonctl
