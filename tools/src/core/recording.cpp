// SPDX-License-Identifier: GPL-2.0
#include "recording.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "render.hpp"

namespace damonctl {

void write_aggregation(std::ostream &out, const Aggregation &agg)
{
	out << to_json(agg).dump() << '\n';
}

std::vector<Aggregation> read_recording(std::istream &in)
{
	std::vector<Aggregation> aggs;
	std::string line;
	size_t n = 0;

	while (std::getline(in, line)) {
		n++;
		if (line.find_first_not_of(" \t\r") == std::string::npos)
			continue;
		try {
			aggs.push_back(aggregation_from_json(
				nlohmann::json::parse(line)));
		} catch (const nlohmann::json::exception &e) {
			throw UsageError("recording line " + std::to_string(n) +
					 ": " + e.what());
		} catch (const UsageError &e) {
			throw UsageError("line " + std::to_string(n) + ": " +
					 e.what());
		}
	}
	return aggs;
}

std::vector<Aggregation> read_recording_file(const std::string &path)
{
	std::ifstream in(path);

	if (!in)
		throw UsageError("cannot read recording '" + path + "'");
	return read_recording(in);
}

} // namespace damonctl
