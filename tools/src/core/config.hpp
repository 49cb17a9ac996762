// SPDX-License-Identifier: GPL-2.0
// `start` configuration: JSON files in damo's spirit, and validation shared
// with the command-line flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model.hpp"

namespace damonctl {

// How one probe is asked for: an event string and its sampling knobs.
struct ProbeSpec {
	std::string event;
	std::optional<uint64_t> period;
	std::optional<uint64_t> freq;
	std::optional<uint32_t> weight;
	std::optional<uint32_t> wakeup_events;
	std::optional<uint8_t> precise_ip;
	bool phys_addr = false;
	bool sample_weight_struct = false;
	bool exclude_kernel = false;
	bool exclude_hv = false;
};

// Resolves the event string (against @sysfs_root) into every probe field.
// Without a period or frequency: 1 for software events, 10007 otherwise.
Probe make_probe(const ProbeSpec &spec, const std::string &sysfs_root);

// Parses a cpu list "0-3,8" into a canonical form; throws UsageError.
std::string canonical_cpulist(const std::string &list);

// Parses "START-END" or "START,END" (decimal or 0x hex) into a target.
Target parse_range(const std::string &range);

// "cpumask:0-3", "!cpumask:4", "tid:100,101", "write", "!write".
Filter parse_filter_spec(const std::string &spec);

// The JSON document in PATH; UsageError naming WHAT ("config file",
// "schemes file") when it cannot be read or is not JSON.
nlohmann::json read_json_file(const std::string &path, const char *what);

// Throws UsageError naming the JSON path of the first problem.
std::vector<CtxConfig> parse_config(const nlohmann::json &doc,
				    const std::string &sysfs_root);
std::vector<CtxConfig> load_config_file(const std::string &path,
					const std::string &sysfs_root);

// Checks relations between fields (intervals, region bounds, limits).
void validate(const CtxConfig &cfg, const std::string &where);

} // namespace damonctl
