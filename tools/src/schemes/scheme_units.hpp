// SPDX-License-Identifier: GPL-2.0
// The units of the scheme files, as damo writes them and damonctl's own
// format takes them: sizes, times, counts and percentages of nr_accesses,
// ages, permils and the targets of quota goals.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "json_fields.hpp"
#include "scheme.hpp"

namespace damonctl {

// A size as damo writes one: 4096, "4096", "4 KiB", "4K", "1,024", "max".
uint64_t parse_scheme_bytes(const std::string &s, const std::string &where);
// A time in microseconds: "5 s", "100 ms", "1 m 3 s", a bare number is
// taken in @unit_us microseconds ("max" is UINT64_MAX).
uint64_t parse_scheme_time_us(const std::string &s, uint64_t unit_us,
			      const std::string &where);

// The pieces of the scheme file parsers (scheme.cpp, scheme_own.cpp,
// scheme_damo.cpp); @where is the JSON path of the value.
namespace scheme_parse {

// A problem of a scheme file: UsageError "schemes: WHERE: WHAT".
inline constexpr JsonFields field{"schemes: "};

[[noreturn]] inline void fail(const std::string &where, const std::string &what)
{
	field.fail(where, what);
}

// A JSON number or string, as text.
std::string text(const nlohmann::json &v, const std::string &where);
// A whole number ("1,024", "max") of at most @max.
uint64_t get_uint(const nlohmann::json &v, const std::string &where,
		  uint64_t max = UINT64_MAX);
// A permil as damo writes it: "0.1 %" (= 1 permil), "500", "1.000000".
uint32_t get_permil(const nlohmann::json &v, const std::string &where);
// parse_scheme_bytes() of a JSON number or string.
uint64_t get_bytes(const nlohmann::json &v, const std::string &where);
// nr_accesses: "N %" is a percentage; a bare number is a count in
// damonctl's format (@bare_percent false) and a percentage in damo's;
// "N samples" (damo) is a count. @percent tells which it was.
uint64_t get_nr_accesses(const nlohmann::json &v, const std::string &where,
			 bool bare_percent, bool &percent);
// age: a time ("5 s", damo's bare numbers are microseconds) or a count of
// aggregations ("N aggr_intervals", damonctl's bare numbers). @usec tells
// which it was.
uint64_t get_age(const nlohmann::json &v, const std::string &where,
		 bool bare_usec, bool &usec);
// A quota goal's target in @m's unit, above 0.
uint64_t get_goal_target(GoalMetric m, const nlohmann::json &v,
			 const std::string &where);

} // namespace scheme_parse

} // namespace damonctl
