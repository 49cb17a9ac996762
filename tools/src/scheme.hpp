// SPDX-License-Identifier: GPL-2.0
// DAMOS-style schemes applied in userspace: the model (access pattern,
// action, apply interval, quota, watermarks, filters) and its parser, for
// damonctl's own JSON format and the `schemes` part of damo 3.3's JSON.
// Documentation/schemes.rst says where they differ from DAMOS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace damonctl {

enum class SchemeAction {
	migrate_hot,
	migrate_cold,
	pageout,
	cold,
	willneed,
	collapse,
	stat,
};

std::string to_string(SchemeAction a);
std::optional<SchemeAction> scheme_action_from_string(const std::string &s);
// Whether DAMOS ranks regions for @a by hotness (else by coldness).
bool action_prefers_hot(SchemeAction a);

// A closed range [min, max], as DAMOS's access pattern bounds.
struct MinMax {
	uint64_t min = 0;
	uint64_t max = UINT64_MAX;
};

// nr_accesses as a count, or a percentage (0 .. 100) of the highest
// nr_accesses of the aggregation.
enum class AccessUnit { count, percent };
// age in aggregations, or in microseconds (damo's default unit)
enum class AgeUnit { aggrs, usec };

struct AccessPattern {
	MinMax sz;
	MinMax nr_accesses;
	AccessUnit nr_accesses_unit = AccessUnit::count;
	MinMax age;
	AgeUnit age_unit = AgeUnit::aggrs;
};

// DAMOS quota: at most @sz bytes and @ms milliseconds of action time per
// @reset_interval_ms; 0 means no limit. Weights (permil) rank the regions
// when the quota is short.
struct Quota {
	uint64_t ms = 0;
	uint64_t sz = 0;
	uint64_t reset_interval_ms = 0;
	uint32_t weight_sz = 0;
	uint32_t weight_nr_accesses = 0;
	uint32_t weight_age = 0;

	bool limited() const { return ms || sz; }
};

enum class WmarkMetric { none, free_mem_rate };

// Active while the metric (permil) stays in [low, high] after it came
// down to mid or below (DAMOS's watermarks).
struct Watermarks {
	WmarkMetric metric = WmarkMetric::none;
	uint64_t interval_us = 0;
	uint32_t high = 1000;
	uint32_t mid = 1000;
	uint32_t low = 0;
};

enum class SchemeFilterType { addr, anon, target };

// DAMOS filter: it matches when the property (inside the address range,
// anonymous memory, the target) equals @matching; the first filter that
// matches decides (@allow: applied, else skipped); when none matches, the
// memory is skipped if the last filter allows.
struct SchemeFilter {
	SchemeFilterType type = SchemeFilterType::anon;
	bool matching = true;
	bool allow = false;
	uint64_t start = 0;     // addr
	uint64_t end = 0;       // addr
	uint32_t target_id = 0; // target: the context's target id
};

struct Scheme {
	std::string name; // "scheme0" .. unless given
	SchemeAction action = SchemeAction::stat;
	std::optional<int> node; // migrate_hot, migrate_cold
	AccessPattern pattern;
	uint64_t apply_interval_us = 0; // 0: every aggregation
	Quota quota;
	Watermarks wmarks;
	std::vector<SchemeFilter> filters;
};

// Parses a scheme file: damonctl's {"schemes": [...]}, damo's full
// `damo args damon` output ({"kdamonds": ...}), or a JSON array of damo
// schemes. Throws UsageError naming the JSON path of the first problem.
std::vector<Scheme> parse_schemes(const nlohmann::json &doc);
std::vector<Scheme> load_schemes_file(const std::string &path);

// A size as damo writes one: 4096, "4096", "4 KiB", "4K", "1,024", "max".
uint64_t parse_scheme_bytes(const std::string &s, const std::string &where);
// A time in microseconds: "5 s", "100 ms", "1 m 3 s", a bare number is
// taken in @unit_us microseconds ("max" is UINT64_MAX).
uint64_t parse_scheme_time_us(const std::string &s, uint64_t unit_us,
			      const std::string &where);

} // namespace damonctl
