// SPDX-License-Identifier: GPL-2.0
// The field checks that the JSON file parsers share (config.cpp, the
// schemes' formats): each problem is a UsageError "PREFIXWHERE: WHAT",
// WHERE the JSON path of the field.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace damonctl {

class JsonFields {
public:
	// @prefix names the file: "config ", "schemes: "
	constexpr explicit JsonFields(const char *prefix) noexcept
		: prefix_(prefix)
	{
	}

	[[noreturn]] void fail(const std::string &where,
			       const std::string &what) const;
	// An object whose keys are all among @keys.
	void only_keys(const nlohmann::json &obj, const std::string &where,
		       std::initializer_list<const char *> keys) const;
	bool get_bool(const nlohmann::json &v, const std::string &where) const;
	std::string get_string(const nlohmann::json &v,
			       const std::string &where) const;

private:
	const char *prefix_;
};

} // namespace damonctl
