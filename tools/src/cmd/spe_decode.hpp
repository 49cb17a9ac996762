// SPDX-License-Identifier: GPL-2.0
// Offline decoder of raw SPE AUX data (damonctl spe decode): the packet
// dump of `perf report -D` plus one summary line per record, or JSON.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace damonctl {

struct SpeDecodeResult {
	uint64_t records = 0;
	uint64_t errors = 0;
	uint64_t dropped = 0;
	uint64_t trailing = 0; // bytes of a record cut by the end of the data
};

// Text: one line per packet ". OFFSET:  BYTES  DESCRIPTION", and after
// each record "  => record ...". Returns the totals.
SpeDecodeResult spe_decode_text(const std::vector<uint8_t> &data,
				std::ostream &out);

// JSON: {"records": [...], "errors": N, "dropped": N, "trailing": N}.
nlohmann::json spe_decode_json(const std::vector<uint8_t> &data);

// One packet as perf prints it ("VA 0x...", "LAT 42 TOT", ...).
std::string spe_packet_desc(unsigned int type, unsigned int index,
			    uint64_t payload);

} // namespace damonctl
