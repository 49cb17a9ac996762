// SPDX-License-Identifier: GPL-2.0
#include "scheme_file.hpp"

#include <nlohmann/json.hpp>

#include "config.hpp"
#include "scheme_parse.hpp"

using nlohmann::json;

namespace damonctl {

namespace {

using scheme_parse::fail;
using scheme_parse::field;
using scheme_parse::get_damo_scheme;
using scheme_parse::get_own_scheme;

const size_t MAX_SCHEMES = 32;

void name_schemes(std::vector<Scheme> &schemes)
{
	for (size_t i = 0; i < schemes.size(); i++) {
		if (schemes[i].name.empty())
			schemes[i].name = "scheme" + std::to_string(i);
		for (size_t k = 0; k < i; k++)
			if (schemes[k].name == schemes[i].name)
				fail("schemes[" + std::to_string(i) + "].name",
				     "'" + schemes[i].name +
					     "' is the name of schemes[" +
					     std::to_string(k) + "] too");
	}
	if (schemes.empty())
		fail("schemes", "no scheme given");
	if (schemes.size() > MAX_SCHEMES)
		fail("schemes", "at most " + std::to_string(MAX_SCHEMES));
}

} // namespace

std::vector<Scheme> parse_schemes(const json &doc)
{
	std::vector<Scheme> out;

	if (doc.is_object() && doc.contains("kdamonds")) {
		const json &ks = doc["kdamonds"];
		if (!ks.is_array())
			fail("kdamonds", "must be an array");
		for (size_t k = 0; k < ks.size(); k++) {
			const json &cs = ks[k].value("contexts", json::array());
			for (size_t c = 0; c < cs.size(); c++) {
				const json &ss =
					cs[c].value("schemes", json::array());
				for (size_t i = 0; i < ss.size(); i++)
					out.push_back(get_damo_scheme(
						ss[i],
						"kdamonds[" +
							std::to_string(k) +
							"].contexts[" +
							std::to_string(c) +
							"].schemes[" +
							std::to_string(i) +
							"]"));
			}
		}
	} else if (doc.is_array()) {
		for (size_t i = 0; i < doc.size(); i++)
			out.push_back(get_damo_scheme(
				doc[i], "[" + std::to_string(i) + "]"));
	} else if (doc.is_object() && doc.contains("schemes")) {
		field.only_keys(doc, "file", {"schemes"});
		const json &ss = doc["schemes"];
		if (!ss.is_array())
			fail("schemes", "must be an array");
		for (size_t i = 0; i < ss.size(); i++) {
			std::string where =
				"schemes[" + std::to_string(i) + "]";
			if (ss[i].is_object() &&
			    ss[i].contains("access_pattern"))
				out.push_back(get_damo_scheme(ss[i], where));
			else
				out.push_back(get_own_scheme(ss[i], where));
		}
	} else {
		fail("file", "expected {\"schemes\": [...]}, damo's "
			     "{\"kdamonds\": ...} or an array of damo "
			     "schemes");
	}
	name_schemes(out);
	return out;
}

std::vector<Scheme> load_schemes_file(const std::string &path)
{
	return parse_schemes(read_json_file(path, "schemes file"));
}

} // namespace damonctl
