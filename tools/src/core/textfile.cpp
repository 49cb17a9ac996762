// SPDX-License-Identifier: GPL-2.0
#include "textfile.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "render.hpp"

namespace damonctl {

namespace {

// A label value: backslash, double quote and newline escaped.
std::string label(const std::string &v)
{
	std::string out;

	for (char c : v) {
		if (c == '\\' || c == '"')
			out += '\\';
		if (c == '\n') {
			out += "\\n";
			continue;
		}
		out += c;
	}
	return out;
}

struct Family {
	const char *name;
	const char *type;
	const char *help;
};

const Family families[] = {
	{"damon_perf_ctx_info", "gauge",
	 "a monitoring context (always 1; labels: id, ops, state)"},
	{"damon_perf_ctx_running", "gauge", "1 while the context runs"},
	{"damon_perf_ctx_targets", "gauge", "targets of the context"},
	{"damon_perf_ctx_probes", "gauge", "probes of the context"},
	{"damon_perf_ctx_aggregation_seq", "gauge",
	 "sequence number of the latest aggregation"},
	{"damon_perf_ctx_regions", "gauge",
	 "regions in the latest aggregation"},
	{"damon_perf_ctx_monitored_bytes", "gauge",
	 "bytes the latest aggregation's regions cover"},
	{"damon_perf_ctx_working_set_bytes", "gauge",
	 "bytes of regions with at least wss_min accesses in the latest "
	 "aggregation"},
	{"damon_perf_ctx_hot_bytes", "gauge",
	 "bytes of regions with at least hot_min accesses in the latest "
	 "aggregation"},
	{"damon_perf_ctx_hot_min_accesses", "gauge",
	 "the nr_accesses threshold of damon_perf_ctx_hot_bytes"},
	{"damon_perf_ctx_samples", "gauge",
	 "samples credited to regions in the latest aggregation, per probe"},
	{"damon_perf_ctx_drops_total", "counter",
	 "samples of the context dropped, by reason (per-CPU reasons: the "
	 "damon_perf_*_total counters)"},
	{"damon_perf_ctx_arm_failures_total", "counter",
	 "perf events of the context that could not be armed"},
};

} // namespace

uint32_t hot_threshold(const Aggregation &agg, const TextfileOptions &o)
{
	uint32_t max = 0;

	if (o.hot_min)
		return o.hot_min;
	for (const auto &r : agg.regions)
		max = std::max(max, r.nr_accesses);
	return std::max<uint32_t>(1, (max + 1) / 2);
}

std::string render_textfile(const std::vector<CtxSnapshot> &ctxs,
			    const std::vector<StatsRow> &stats,
			    const TextfileOptions &o)
{
	std::string out = "# TYPE damon_perf_up gauge\n"
			  "# HELP damon_perf_up 1 when the damon_perf module "
			  "answered\n"
			  "damon_perf_up 1\n";
	// one block per family, every context's samples in it
	std::map<std::string, std::string> body;
	auto add = [&body](const char *family, const std::string &labels,
			   uint64_t v) {
		body[family] += fmt::format("{}{{{}}} {}\n", family, labels, v);
	};

	for (const auto &s : ctxs) {
		const CtxInfo &c = s.ctx;
		std::string ctx = "ctx=\"" + label(c.name) + "\"";

		add("damon_perf_ctx_info",
		    fmt::format("{},id=\"{}\",ops=\"{}\",state=\"{}\"", ctx,
				c.id, to_string(c.ops), to_string(c.state)),
		    1);
		add("damon_perf_ctx_running", ctx,
		    c.state == CtxState::running ? 1 : 0);
		add("damon_perf_ctx_targets", ctx, c.targets.size());
		add("damon_perf_ctx_probes", ctx, c.probes.size());
		add("damon_perf_ctx_drops_total", ctx + ",reason=\"stale\"",
		    c.stale_drops);
		add("damon_perf_ctx_arm_failures_total", ctx, c.arm_failures);
		if (!s.agg)
			continue; // no aggregation yet: no region metrics
		const Aggregation &a = *s.agg;
		uint64_t covered = 0;
		uint32_t hot = hot_threshold(a, o);
		std::vector<uint64_t> hits(c.probes.size());

		for (const auto &r : a.regions) {
			covered += r.size();
			if (r.probe_hits.size() > hits.size())
				hits.resize(r.probe_hits.size());
			for (size_t p = 0; p < r.probe_hits.size(); p++)
				hits[p] += r.probe_hits[p];
		}
		add("damon_perf_ctx_aggregation_seq", ctx, a.seq);
		add("damon_perf_ctx_regions", ctx, a.regions.size());
		add("damon_perf_ctx_monitored_bytes", ctx, covered);
		add("damon_perf_ctx_working_set_bytes", ctx,
		    working_set_size(a, o.wss_min));
		add("damon_perf_ctx_hot_bytes", ctx, working_set_size(a, hot));
		add("damon_perf_ctx_hot_min_accesses", ctx, hot);
		for (size_t p = 0; p < hits.size(); p++) {
			std::string l =
				fmt::format("{},probe=\"{}\"", ctx, p + 1);
			if (p < c.probes.size() && !c.probes[p].event.empty())
				l += ",event=\"" + label(c.probes[p].event) +
				     "\"";
			add("damon_perf_ctx_samples", l, hits[p]);
		}
	}
	for (const auto &f : families) {
		auto it = body.find(f.name);
		if (it == body.end())
			continue;
		out += fmt::format("# TYPE {} {}\n# HELP {} {}\n", f.name,
				   f.type, f.name, f.help);
		out += it->second;
	}
	return out + render_openmetrics(stats, true);
}

std::string render_textfile_down()
{
	return "# TYPE damon_perf_up gauge\n"
	       "# HELP damon_perf_up 1 when the damon_perf module answered\n"
	       "damon_perf_up 0\n";
}

void write_atomic(const std::string &dir, const std::string &name,
		  const std::string &content)
{
	std::string tmp = dir + "/." + name + ".tmp";
	std::string dst = dir + "/" + name;
	int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);

	if (fd < 0)
		throw std::system_error(errno, std::generic_category(),
					"cannot create " + tmp);
	auto fail = [&](const std::string &what) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		unlink(tmp.c_str());
		throw std::system_error(err, std::generic_category(), what);
	};
	size_t off = 0;
	while (off < content.size()) {
		ssize_t n =
			write(fd, content.data() + off, content.size() - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("cannot write " + tmp);
		off += size_t(n);
	}
	if (fsync(fd))
		fail("cannot sync " + tmp);
	if (close(fd)) {
		fd = -1;
		fail("cannot write " + tmp);
	}
	fd = -1;
	if (rename(tmp.c_str(), dst.c_str()))
		fail("cannot rename " + tmp + " to " + dst);
}

} // namespace damonctl
