// SPDX-License-Identifier: GPL-2.0
#include "json_fields.hpp"

#include <nlohmann/json.hpp>

#include "errors.hpp"

using nlohmann::json;

namespace damonctl {

void JsonFields::fail(const std::string &where, const std::string &what) const
{
	throw UsageError(prefix_ + where + ": " + what);
}

void JsonFields::only_keys(const json &obj, const std::string &where,
			   std::initializer_list<const char *> keys) const
{
	if (!obj.is_object())
		fail(where, "must be an object");
	for (auto it = obj.begin(); it != obj.end(); ++it) {
		bool known = false;
		for (const char *k : keys)
			known = known || it.key() == k;
		if (known)
			continue;
		std::string list;
		for (const char *k : keys)
			list += (list.empty() ? "" : ", ") + std::string(k);
		fail(where, "unknown key '" + it.key() +
				    "' (expected one of: " + list + ")");
	}
}

bool JsonFields::get_bool(const json &v, const std::string &where) const
{
	if (!v.is_boolean())
		fail(where, "must be true or false");
	return v.get<bool>();
}

std::string JsonFields::get_string(const json &v,
				   const std::string &where) const
{
	if (!v.is_string())
		fail(where, "must be a string");
	return v.get<std::string>();
}

} // namespace damonctl
