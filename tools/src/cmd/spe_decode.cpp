// SPDX-License-Identifier: GPL-2.0
#include "spe_decode.hpp"

#include <fmt/format.h>

#include "spe_parse.h"

namespace damonctl {
namespace {

const char *addr_name(unsigned int index)
{
	switch (index) {
	case DAMON_PERF_SPE_ADDR_PC:
		return "PC";
	case DAMON_PERF_SPE_ADDR_BRANCH:
		return "TGT";
	case DAMON_PERF_SPE_ADDR_DATA_VA:
		return "VA";
	case DAMON_PERF_SPE_ADDR_DATA_PA:
		return "PA";
	}
	return "ADDR";
}

const char *cnt_name(unsigned int index)
{
	switch (index) {
	case DAMON_PERF_SPE_CNT_TOTAL_LAT:
		return "TOT";
	case DAMON_PERF_SPE_CNT_ISSUE_LAT:
		return "ISSUE";
	case DAMON_PERF_SPE_CNT_XLAT_LAT:
		return "XLAT";
	}
	return "?";
}

std::string flags_desc(uint32_t f)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{DAMON_PERF_SPE_REC_LOAD, "load"},
		{DAMON_PERF_SPE_REC_STORE, "store"},
		{DAMON_PERF_SPE_REC_OP_BRANCH, "branch"},
		{DAMON_PERF_SPE_REC_OP_OTHER, "other"},
		{DAMON_PERF_SPE_REC_PA_NS, "pa-ns"},
		{DAMON_PERF_SPE_REC_PC_NS, "pc-ns"},
	};
	std::string s;

	for (const auto &n : names) {
		if (!(f & n.bit))
			continue;
		if (!s.empty())
			s += ',';
		s += n.name;
	}
	return s.empty() ? "-" : s;
}

nlohmann::json record_json(const damon_perf_spe_record &r)
{
	nlohmann::json j;

	j["op"] = flags_desc(r.flags & (DAMON_PERF_SPE_REC_LOAD |
					DAMON_PERF_SPE_REC_STORE |
					DAMON_PERF_SPE_REC_OP_BRANCH |
					DAMON_PERF_SPE_REC_OP_OTHER));
	if (r.flags & DAMON_PERF_SPE_REC_PC) {
		j["pc"] = r.pc;
		j["el"] = r.el;
	}
	if (r.flags & DAMON_PERF_SPE_REC_BRANCH)
		j["branch_target"] = r.branch_target;
	if (r.flags & DAMON_PERF_SPE_REC_VADDR)
		j["vaddr"] = r.vaddr;
	if (r.flags & DAMON_PERF_SPE_REC_PADDR) {
		j["paddr"] = r.paddr;
		j["pa_ns"] = bool(r.flags & DAMON_PERF_SPE_REC_PA_NS);
	}
	if (r.flags & DAMON_PERF_SPE_REC_LATENCY)
		j["latency"] = r.latency;
	if (r.flags & DAMON_PERF_SPE_REC_ISSUE_LAT)
		j["issue_latency"] = r.issue_latency;
	if (r.flags & DAMON_PERF_SPE_REC_XLAT_LAT)
		j["xlat_latency"] = r.xlat_latency;
	if (r.flags & DAMON_PERF_SPE_REC_EVENTS)
		j["events"] = r.events;
	if (r.flags & DAMON_PERF_SPE_REC_DATA_SOURCE)
		j["data_source"] = r.data_source;
	if (r.flags & DAMON_PERF_SPE_REC_CONTEXT)
		j["context_id"] = r.context_id;
	if (r.flags & DAMON_PERF_SPE_REC_TIMESTAMP)
		j["timestamp"] = r.timestamp;
	return j;
}

std::string record_line(const damon_perf_spe_record &r)
{
	std::string s = fmt::format("  => record {}", flags_desc(r.flags));

	if (r.flags & DAMON_PERF_SPE_REC_VADDR)
		s += fmt::format(" vaddr=0x{:x}", r.vaddr);
	if (r.flags & DAMON_PERF_SPE_REC_PADDR)
		s += fmt::format(" paddr=0x{:x}", r.paddr);
	if (r.flags & DAMON_PERF_SPE_REC_PC)
		s += fmt::format(" pc=0x{:x} el{}", r.pc, r.el);
	if (r.flags & DAMON_PERF_SPE_REC_LATENCY)
		s += fmt::format(" lat={}", r.latency);
	if (r.flags & DAMON_PERF_SPE_REC_CONTEXT)
		s += fmt::format(" ctx={}", r.context_id);
	if (r.flags & DAMON_PERF_SPE_REC_TIMESTAMP)
		s += fmt::format(" ts={}", r.timestamp);
	return s;
}

bool keep_one(const damon_perf_spe_record *rec, void *arg)
{
	*static_cast<damon_perf_spe_record *>(arg) = *rec;
	return true;
}

bool push_json(const damon_perf_spe_record *rec, void *arg)
{
	static_cast<nlohmann::json *>(arg)->push_back(record_json(*rec));
	return true;
}

} // namespace

std::string spe_packet_desc(unsigned int type, unsigned int index,
			    uint64_t payload)
{
	switch (type) {
	case DAMON_PERF_SPE_PKT_PAD:
	case DAMON_PERF_SPE_PKT_END:
		return damon_perf_spe_pkt_name(type);
	case DAMON_PERF_SPE_PKT_TIMESTAMP:
		return fmt::format("TS {}", payload);
	case DAMON_PERF_SPE_PKT_ADDRESS:
		if (index == DAMON_PERF_SPE_ADDR_DATA_PA)
			return fmt::format("PA 0x{:x} ns={}",
					   payload & ((1ULL << 56) - 1),
					   payload >> 63);
		if (index <= DAMON_PERF_SPE_ADDR_BRANCH)
			return fmt::format("{} 0x{:x} el{} ns={}",
					   addr_name(index),
					   payload & ((1ULL << 56) - 1),
					   (payload >> 61) & 3, payload >> 63);
		if (index == DAMON_PERF_SPE_ADDR_DATA_VA)
			return fmt::format("VA 0x{:x}",
					   payload & ((1ULL << 56) - 1));
		return fmt::format("ADDR[{}] 0x{:x}", index, payload);
	case DAMON_PERF_SPE_PKT_COUNTER:
		return fmt::format("LAT {} {}", payload, cnt_name(index));
	case DAMON_PERF_SPE_PKT_CONTEXT:
		return fmt::format("CONTEXT 0x{:x} el{}", payload,
				   index ? 2 : 1);
	case DAMON_PERF_SPE_PKT_OP_TYPE:
		switch (index) {
		case DAMON_PERF_SPE_OP_LDST:
			return fmt::format("LD/ST 0x{:02x} {}", payload,
					   (payload & 1) ? "ST" : "LD");
		case DAMON_PERF_SPE_OP_BRANCH:
			return fmt::format("B 0x{:02x}", payload);
		default:
			return fmt::format("OTHER 0x{:02x}", payload);
		}
	case DAMON_PERF_SPE_PKT_EVENTS:
		return fmt::format("EV 0x{:x}", payload);
	case DAMON_PERF_SPE_PKT_DATA_SOURCE:
		return fmt::format("DATA-SOURCE {}", payload);
	}
	return "BAD";
}

SpeDecodeResult spe_decode_text(const std::vector<uint8_t> &data,
				std::ostream &out)
{
	SpeDecodeResult res;
	size_t pos = 0, start = 0;
	bool in_rec = false;

	while (pos < data.size()) {
		damon_perf_spe_pkt pkt;
		int ret = damon_perf_spe_get_packet(
			data.data() + pos, data.size() - pos, pos, &pkt);
		if (ret == DAMON_PERF_SPE_NEED_MORE)
			break;
		size_t n = ret < 0 ? 1 : size_t(ret);
		std::string hex;
		for (size_t i = 0; i < n && i < DAMON_PERF_SPE_PKT_MAX; i++)
			hex += fmt::format("{:02x} ", data[pos + i]);
		out << fmt::format(". {:08x}:  {:<30} {}\n", pos, hex,
				   ret < 0 ? "BAD"
					   : spe_packet_desc(pkt.type,
							     pkt.index,
							     pkt.payload));
		if (ret < 0) {
			res.errors++;
			if (in_rec)
				res.dropped++;
			in_rec = false;
			pos++;
			start = pos;
			continue;
		}
		pos += n;
		if (pkt.type == DAMON_PERF_SPE_PKT_PAD) {
			if (!in_rec)
				start = pos;
			continue;
		}
		if (pkt.type != DAMON_PERF_SPE_PKT_END &&
		    pkt.type != DAMON_PERF_SPE_PKT_TIMESTAMP) {
			in_rec = true;
			continue;
		}
		if (in_rec) {
			/* the parser decides what the record says */
			damon_perf_spe_record rec{};
			damon_perf_spe_stats st{};
			damon_perf_spe_parse(data.data() + start, pos - start,
					     start, &st, keep_one, &rec);
			if (st.records == 1) {
				res.records++;
				out << record_line(rec) << '\n';
			}
		}
		in_rec = false;
		start = pos;
	}
	res.trailing = data.size() - start;
	if (res.trailing)
		out << fmt::format("# {} trailing bytes of a cut record\n",
				   res.trailing);
	out << fmt::format("# {} records, {} bad bytes, {} dropped records\n",
			   res.records, res.errors, res.dropped);
	return res;
}

nlohmann::json spe_decode_json(const std::vector<uint8_t> &data)
{
	nlohmann::json recs = nlohmann::json::array();
	damon_perf_spe_stats st{};
	size_t used = damon_perf_spe_parse(data.data(), data.size(), 0, &st,
					   push_json, &recs);

	return {
		{"records", recs},
		{"errors", st.errors},
		{"dropped", st.dropped},
		{"trailing", data.size() - used},
	};
}

} // namespace damonctl
