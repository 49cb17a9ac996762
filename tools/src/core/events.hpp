// SPDX-License-Identifier: GPL-2.0
// Perf event strings, resolved against the PMU descriptions in sysfs
// (/sys/bus/event_source/devices/<pmu>/{type,format/*,events/*}). The
// environment variable DAMONCTL_SYSFS_ROOT replaces /sys.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace damonctl {

// One format term: which attr field it lands in and at which bits.
struct FormatField {
	std::string field;                     // config, config1, config2
	std::vector<std::pair<int, int>> bits; // inclusive [lo, hi] ranges
	int width() const;
	std::string spec() const; // "config:0-7,32-35"
};

struct Pmu {
	std::string name;
	uint32_t type = 0;
	std::map<std::string, FormatField> formats;
	std::map<std::string, std::string> aliases; // name -> terms
};

// What an event string resolves to (fields of struct perf_event_attr).
struct ResolvedEvent {
	std::string pmu; // PMU name, or "hardware"/"software"/"raw"
	uint32_t type = 0;
	uint64_t config = 0;
	uint64_t config1 = 0;
	uint64_t config2 = 0;
	uint8_t precise_ip = 0;
	std::optional<uint64_t> sample_period;
	std::optional<uint64_t> sample_freq;
	bool exclude_user = false;   // the 'k' modifier
	bool exclude_kernel = false; // the 'u' modifier
	bool exclude_hv = false;     // 'u' or 'k'
	std::string name;            // the name= term (a label; no attr field)
};

// $DAMONCTL_SYSFS_ROOT or /sys.
std::string sysfs_root();

// "config:0-7,32-35" (the contents of a format file).
FormatField parse_format(const std::string &spec);

std::vector<std::string> list_pmus(const std::string &root);
// Throws UsageError for an unknown PMU.
Pmu load_pmu(const std::string &root, const std::string &name);

// Resolves @event the way perf 6.1's parser does (see events --help and
// Documentation/damonctl.rst for the grammar and the deliberate
// differences). Throws UsageError with a message naming the problem:
// unknown PMU, unknown or unsupported term, value wider than its format,
// bad or unsupported modifier.
ResolvedEvent resolve_event(const std::string &event, const std::string &root);

} // namespace damonctl
