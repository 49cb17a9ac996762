// SPDX-License-Identifier: GPL-2.0
#include "scheme_units.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace damonctl {

namespace scheme_parse {

namespace {

std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t");
	size_t e = s.find_last_not_of(" \t");
	return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "1,024.5" -> 1024.5; nullopt unless the whole of @s is a number >= 0.
std::optional<long double> number(const std::string &s)
{
	std::string digits;

	for (char c : trim(s))
		if (c != ',')
			digits += c;
	if (digits.empty() || digits[0] == '-' || digits[0] == '+')
		return std::nullopt;
	char *end = nullptr;
	errno = 0;
	long double v = std::strtold(digits.c_str(), &end);
	if (errno || *end || !std::isfinite(v))
		return std::nullopt;
	return v;
}

uint64_t to_u64(long double v, const std::string &where)
{
	if (v >= 18446744073709551615.0L)
		return UINT64_MAX;
	if (v < 0)
		fail(where, "must not be negative");
	return uint64_t(std::llround(v));
}

} // namespace

std::string text(const json &v, const std::string &where)
{
	if (v.is_number_unsigned())
		return std::to_string(v.get<uint64_t>());
	if (v.is_number_integer())
		fail(where, "must not be negative");
	if (v.is_number_float()) {
		std::ostringstream os;
		os << v.get<double>();
		return os.str();
	}
	if (v.is_string())
		return trim(v.get<std::string>());
	fail(where, "must be a number or a string");
}

uint64_t get_uint(const json &v, const std::string &where, uint64_t max)
{
	std::string s = text(v, where);
	uint64_t n;

	if (s == "max") {
		n = UINT64_MAX;
	} else {
		auto x = number(s);
		if (!x || std::floor(*x) != *x)
			fail(where, "'" + s + "' is not a whole number");
		n = to_u64(*x, where);
	}
	if (n > max)
		fail(where, s + " is above " + std::to_string(max));
	return n;
}

uint32_t get_permil(const json &v, const std::string &where)
{
	std::string s = text(v, where);
	bool percent = !s.empty() && s.back() == '%';
	auto x = number(percent ? s.substr(0, s.size() - 1) : s);

	if (!x)
		fail(where, "'" + s + "' is not a permil (N or N %)");
	long double permil = percent ? *x * 10 : *x;
	if (permil > UINT32_MAX)
		fail(where, s + " is too large");
	return uint32_t(std::llround(permil));
}

uint64_t get_bytes(const json &v, const std::string &where)
{
	return parse_scheme_bytes(text(v, where), where);
}

uint64_t get_nr_accesses(const json &v, const std::string &where,
			 bool bare_percent, bool &percent)
{
	std::string s = text(v, where);
	std::string num = s;

	percent = bare_percent;
	if (!s.empty() && s.back() == '%') {
		percent = true;
		num = s.substr(0, s.size() - 1);
	} else if (s.size() > 8 && s.compare(s.size() - 7, 7, "samples") == 0) {
		percent = false;
		num = s.substr(0, s.size() - 7);
	}
	num = trim(num);
	uint64_t n;
	if (num == "max") {
		n = UINT64_MAX;
	} else if (num == "min") {
		n = 0;
	} else {
		auto x = number(num);
		if (!x)
			fail(where, "'" + s +
					    "' is not a count or a percentage "
					    "(N or N %)");
		n = to_u64(*x, where);
	}
	if (percent && n > 100) {
		// damo writes "max" of a percentage as ULONG_MAX %
		if (n != UINT64_MAX)
			fail(where, s + " is above 100 %");
		n = 100;
	}
	return n;
}

uint64_t get_age(const json &v, const std::string &where, bool bare_usec,
		 bool &usec)
{
	std::string s = text(v, where);
	const std::string aggrs[] = {"aggr_intervals", "aggrs"};

	if (s == "max" || s == "min") {
		usec = bare_usec;
		return s == "max" ? UINT64_MAX : 0;
	}
	for (const auto &u : aggrs)
		if (s.size() > u.size() &&
		    s.compare(s.size() - u.size(), u.size(), u) == 0) {
			usec = false;
			return get_uint(trim(s.substr(0, s.size() - u.size())),
					where);
		}
	auto x = number(s);
	if (x) {
		usec = bare_usec;
		if (std::floor(*x) != *x)
			fail(where, "'" + s + "' is not a whole number");
		return to_u64(*x, where);
	}
	usec = true;
	return parse_scheme_time_us(s, 1, where);
}

// A quota goal's target: a ratio in bp ("7000", "7,000") or percent
// ("70 %") for the node metrics, a time for some_mem_psi_us ("1 ms", bare
// microseconds), a whole number for user_input; above 0 in all cases.
uint64_t get_goal_target(GoalMetric m, const json &v, const std::string &where)
{
	std::string s = text(v, where);
	uint64_t target;

	switch (m) {
	case GoalMetric::node_mem_used_bp:
	case GoalMetric::node_mem_free_bp: {
		bool percent = !s.empty() && s.back() == '%';
		auto x = number(percent ? s.substr(0, s.size() - 1) : s);
		if (!x)
			fail(where, "'" + s +
					    "' is not a ratio in bp (N) or "
					    "percent (N %)");
		long double bp = percent ? *x * 100 : *x;
		if (bp > 10000)
			fail(where, s + " is above 10000 bp (100 %)");
		target = to_u64(bp, where);
		break;
	}
	case GoalMetric::some_mem_psi_us:
		target = parse_scheme_time_us(s, 1, where);
		break;
	default:
		target = get_uint(v, where);
		break;
	}
	if (!target)
		fail(where, "must be above 0 (the score divides by it)");
	return target;
}

} // namespace scheme_parse

using scheme_parse::fail;
using scheme_parse::number;
using scheme_parse::to_u64;
using scheme_parse::trim;

uint64_t parse_scheme_bytes(const std::string &s_, const std::string &where)
{
	static const struct {
		const char *unit;
		int shift;
	} units[] = {
		{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"PiB", 50},
		{"EiB", 60}, {"KB", 10},  {"MB", 20},  {"GB", 30},  {"TB", 40},
		{"PB", 50},  {"EB", 60},  {"K", 10},   {"M", 20},   {"G", 30},
		{"T", 40},   {"P", 50},   {"E", 60},   {"B", 0},
	};
	std::string s = trim(s_);

	if (s == "max")
		return UINT64_MAX;
	if (s == "min")
		return 0;
	for (const auto &u : units) {
		size_t n = std::char_traits<char>::length(u.unit);
		if (s.size() <= n || s.compare(s.size() - n, n, u.unit) != 0)
			continue;
		auto x = number(s.substr(0, s.size() - n));
		if (!x)
			break;
		return to_u64(*x * std::pow(2.0L, u.shift), where);
	}
	auto x = number(s);
	if (!x)
		fail(where, "'" + s + "' is not a size (N, N KiB, N M, max)");
	return to_u64(*x, where);
}

uint64_t parse_scheme_time_us(const std::string &s_, uint64_t unit_us,
			      const std::string &where)
{
	static const struct {
		const char *unit;
		long double us;
	} units[] = {
		{"ns", 0.001L},        {"us", 1},       {"ms", 1000},
		{"s", 1000000},        {"m", 60000000}, {"h", 3600000000.0L},
		{"d", 86400000000.0L},
	};
	std::string s = trim(s_);

	if (s == "max")
		return UINT64_MAX;
	if (s == "min")
		return 0;
	if (auto x = number(s))
		return to_u64(*x * unit_us, where);
	// "1 m 3 s", "5s", "100 ms": number-unit pairs
	std::istringstream in(s);
	std::vector<std::string> words;
	for (std::string w; in >> w;)
		words.push_back(w);
	long double total = 0;
	for (size_t i = 0; i < words.size(); i++) {
		std::string num = words[i], unit;
		if (number(num)) {
			if (i + 1 < words.size())
				unit = words[++i];
		} else {
			size_t k = num.find_first_not_of("0123456789.,");
			unit = num.substr(k);
			num = num.substr(0, k);
		}
		auto x = number(num);
		bool found = false;
		for (const auto &u : units)
			if (x && unit == u.unit) {
				total += *x * u.us;
				found = true;
			}
		if (!found)
			fail(where, "'" + s +
					    "' is not a time (N us, N ms, "
					    "N s, N m, N h)");
	}
	return to_u64(total, where);
}

} // namespace damonctl
