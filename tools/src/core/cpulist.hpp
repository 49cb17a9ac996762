// SPDX-License-Identifier: GPL-2.0
// CPU lists as the kernel prints them ("0-3,8"): cpumask filters, the
// online CPUs (/sys/devices/system/cpu/online) and `spe attach --cpus`.
#pragma once

#include <string>
#include <vector>

namespace damonctl {

// One more than the highest CPU a list may name (the largest NR_CPUS of a
// kernel configuration).
constexpr unsigned CPU_LIST_MAX = 8192;

// The CPUs of @list, ascending and each once: items N or N-M (decimal,
// N <= M) separated by commas. Throws UsageError: "empty cpu list", "bad
// cpu list 'LIST' at 'ITEM'" (not a number or range), "bad cpu range
// 'ITEM'" (reversed, or a CPU >= CPU_LIST_MAX).
std::vector<unsigned> parse_cpu_list(const std::string &list);

// Ascending CPUs without duplicates as a list with ranges: "0-3,8".
std::string format_cpu_list(const std::vector<unsigned> &cpus);

} // namespace damonctl
