// SPDX-License-Identifier: GPL-2.0
#include "cpulist.hpp"

#include <optional>
#include <set>

#include "errors.hpp"

namespace damonctl {

namespace {

// A CPU number: decimal digits only; CPU_LIST_MAX for one too large.
std::optional<unsigned> cpu_number(const std::string &s)
{
	unsigned v = 0;

	if (s.empty())
		return std::nullopt;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		v = v * 10 + unsigned(c - '0');
		if (v >= CPU_LIST_MAX)
			v = CPU_LIST_MAX; // stays below UINT_MAX / 10
	}
	return v;
}

} // namespace

std::vector<unsigned> parse_cpu_list(const std::string &list)
{
	std::set<unsigned> cpus;
	size_t pos = 0;

	if (list.empty())
		throw UsageError("empty cpu list");
	for (;;) {
		size_t comma = list.find(',', pos);
		std::string item = list.substr(
			pos, comma == std::string::npos ? comma : comma - pos);
		size_t dash = item.find('-');
		auto lo = cpu_number(item.substr(0, dash));
		auto hi = dash == std::string::npos
				  ? lo
				  : cpu_number(item.substr(dash + 1));

		if (!lo || !hi)
			throw UsageError("bad cpu list '" + list + "' at '" +
					 item + "'");
		if (*lo > *hi || *hi >= CPU_LIST_MAX)
			throw UsageError("bad cpu range '" + item + "'");
		for (unsigned c = *lo; c <= *hi; c++)
			cpus.insert(c);
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return {cpus.begin(), cpus.end()};
}

std::string format_cpu_list(const std::vector<unsigned> &cpus)
{
	std::string out;

	for (size_t i = 0; i < cpus.size();) {
		unsigned lo = cpus[i], hi = lo;

		for (i++; i < cpus.size() && cpus[i] == hi + 1; i++)
			hi = cpus[i];
		out += (out.empty() ? "" : ",") + std::to_string(lo);
		if (hi != lo)
			out += "-" + std::to_string(hi);
	}
	return out;
}

} // namespace damonctl
