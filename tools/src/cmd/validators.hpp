// SPDX-License-Identifier: GPL-2.0
// CLI11 validators with messages a user can act on. CLI11 2.1's
// PositiveNumber says "Value -5 not in range 0.000000 to 1797...": the
// range of a double, for options that take an integer.
#pragma once

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace damonctl {

// An integer from @min to @max, decimal or 0x-prefixed hexadecimal.
inline CLI::Validator integer_range(uint64_t min, uint64_t max)
{
	return CLI::Validator(
		[min, max](std::string &s) -> std::string {
			const char *p = s.c_str();
			char *end = nullptr;

			errno = 0;
			uint64_t v = (*p >= '0' && *p <= '9')
					     ? std::strtoull(p, &end, 0)
					     : 0;
			if (end && *end == '\0' && errno == 0 && v >= min &&
			    v <= max)
				return {};
			return "'" + s + "' is not an integer from " +
			       std::to_string(min) + " to " +
			       std::to_string(max);
		},
		"INT in [" + std::to_string(min) + " - " + std::to_string(max) +
			"]");
}

// An integer from 1 to @max, decimal or 0x-prefixed hexadecimal.
inline CLI::Validator positive_integer(uint64_t max = UINT64_MAX)
{
	return integer_range(1, max);
}

} // namespace damonctl
