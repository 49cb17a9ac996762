// SPDX-License-Identifier: GPL-2.0
#include "damo_format.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <utility>

#include <zlib.h>

#include "errors.hpp"

using nlohmann::json;

namespace damonctl {

namespace {

json damo_region(const Region &r)
{
	// nr_accesses is a sample count as in DAMON (the percent is derived
	// by damo from the intervals); age counts aggregation intervals.
	return {{"start", r.start},
		{"end", r.end},
		{"nr_accesses",
		 {{"samples", r.nr_accesses}, {"percent", nullptr}}},
		{"age", {{"usec", nullptr}, {"aggr_intervals", r.age}}},
		{"probe_hits", r.probe_hits},
		{"sz_filter_passed", 0}};
}

} // namespace

json to_damo_json(const std::vector<Aggregation> &aggs)
{
	// (ctx_id, target_id) -> index in out, in order of first appearance
	std::map<std::pair<uint32_t, uint32_t>, size_t> index;
	std::map<uint32_t, uint32_t> ctx_idx;
	json out = json::array();

	for (const auto &a : aggs) {
		if (!ctx_idx.count(a.ctx_id)) {
			auto n = uint32_t(ctx_idx.size());
			ctx_idx[a.ctx_id] = n;
		}
		uint64_t sample_us =
			a.sample_us.value_or(DAMO_DEFAULT_SAMPLE_US);
		uint64_t aggr_us = a.aggr_us ? a.aggr_us : 100000;
		uint64_t end_ns = a.time_ns;
		uint64_t start_ns =
			end_ns >= aggr_us * 1000 ? end_ns - aggr_us * 1000 : 0;
		// the targets of this aggregation: declared ones first, then
		// any that only regions name
		std::vector<uint32_t> tids;
		for (const auto &t : a.targets)
			tids.push_back(t.id);
		for (const auto &r : a.regions)
			if (std::find(tids.begin(), tids.end(), r.target_id) ==
			    tids.end())
				tids.push_back(r.target_id);
		for (uint32_t tid : tids) {
			auto key = std::make_pair(a.ctx_id, tid);
			if (!index.count(key)) {
				index[key] = out.size();
				out.push_back(
					{{"kdamond_idx", 0},
					 {"context_idx", ctx_idx[a.ctx_id]},
					 {"intervals",
					  {{"sample_us", sample_us},
					   {"aggr_us", aggr_us},
					   {"ops_update_us",
					    a.update_us.value_or(
						    DAMO_DEFAULT_UPDATE_US)}}},
					 {"scheme_idx", nullptr},
					 {"target_id", tid},
					 {"scheme_filters", json::array()},
					 {"snapshots", json::array()},
					 {"data_source", "damon_perf"}});
			}
			json regions = json::array();
			uint64_t total = 0;
			for (const auto &r : a.regions) {
				if (r.target_id != tid)
					continue;
				regions.push_back(damo_region(r));
				total += r.size();
			}
			out[index[key]]["snapshots"].push_back(
				{{"start_time", start_ns},
				 {"end_time", end_ns},
				 {"regions", regions},
				 {"total_bytes", total},
				 {"damos_stats", nullptr},
				 {"sample_interval_us", sample_us}});
		}
	}
	return out;
}

std::string zlib_compress(const std::string &data)
{
	uLongf len = compressBound(uLong(data.size()));
	std::string out(len, '\0');

	if (compress2(reinterpret_cast<Bytef *>(out.data()), &len,
		      reinterpret_cast<const Bytef *>(data.data()),
		      uLong(data.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
		throw std::runtime_error("zlib: compression failed");
	out.resize(len);
	return out;
}

std::string zlib_decompress(const std::string &data)
{
	z_stream zs{};
	std::string out;
	char buf[65536];

	if (inflateInit(&zs) != Z_OK)
		throw std::runtime_error("zlib: inflateInit failed");
	zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
	zs.avail_in = uInt(data.size());
	int ret;
	do {
		zs.next_out = reinterpret_cast<Bytef *>(buf);
		zs.avail_out = sizeof(buf);
		ret = inflate(&zs, Z_NO_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END) {
			inflateEnd(&zs);
			throw UsageError(
				"not a zlib stream (damo json_compressed "
				"record)");
		}
		out.append(buf, sizeof(buf) - zs.avail_out);
	} while (ret != Z_STREAM_END && (zs.avail_in || !zs.avail_out));
	inflateEnd(&zs);
	if (ret != Z_STREAM_END)
		throw UsageError("truncated zlib stream");
	return out;
}

void write_damo_file(const std::string &path,
		     const std::vector<Aggregation> &aggs)
{
	std::string data = zlib_compress(to_damo_json(aggs).dump(1));
	std::string tmp = path + ".tmp";
	{
		std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
		if (!f)
			throw UsageError("cannot write '" + tmp + "'");
		f.write(data.data(), std::streamsize(data.size()));
		f.close();
		if (!f) {
			std::remove(tmp.c_str());
			throw UsageError("cannot write '" + tmp + "'");
		}
	}
	if (std::rename(tmp.c_str(), path.c_str()) != 0) {
		std::remove(tmp.c_str());
		throw UsageError("cannot rename '" + tmp + "' to '" + path +
				 "'");
	}
}

} // namespace damonctl
