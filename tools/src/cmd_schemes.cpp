// SPDX-License-Identifier: GPL-2.0
// damonctl schemes: DAMOS-style schemes applied to every aggregation of
// the contexts named, until a limit or SIGINT/SIGTERM, then the stats of
// each scheme (Documentation/schemes.rst).
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "errors.hpp"
#include "scheme_engine.hpp"
#include "stream.hpp"

namespace damonctl {

namespace {

struct SchemesOptions {
	std::string file;
	StreamLimits limits;
	bool json = false;
	bool check = false;
};

uint64_t cpu_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

// Each aggregation completed (a notification carries neither the
// targets nor, when truncated, every region), then given to the engine;
// a new failure reason of a scheme is reported once on stderr.
class SchemesSink : public AggregationSink {
public:
	SchemesSink(Transport &dumps, SchemeEngine &engine)
		: dumps_(dumps)
		, engine_(engine)
	{
	}

	void begin() override
	{
		fmt::print(stderr, "applying {} scheme{} (Ctrl-C to stop)\n",
			   engine_.size(), engine_.size() == 1 ? "" : "s");
	}

	void put(Aggregation &agg) override
	{
		complete(agg);
		uint64_t c0 = cpu_ns();
		engine_.apply(agg);
		cpu_ns_ += cpu_ns() - c0;
		for (size_t i = 0; i < engine_.size(); i++)
			for (const auto &[err, pages] : engine_.stats(i).failed)
				if (reported_.insert({i, err}).second)
					fmt::print(
						stderr,
						"damonctl: scheme '{}' ({}): "
						"{} pages failed with {} "
						"({}); counted in its stats "
						"from now on\n",
						engine_.scheme(i).name,
						to_string(engine_.scheme(i)
								  .action),
						pages, errno_name(err),
						std::strerror(err));
	}

	uint64_t engine_cpu_ns() const { return cpu_ns_; }

private:
	void complete(Aggregation &agg)
	{
		if (agg.truncated) {
			auto full = dumps_.snapshot(CtxRef::by_id(agg.ctx_id));
			if (full && full->seq == agg.seq) {
				std::string name = agg.ctx_name;
				agg = *full;
				agg.ctx_name = name;
			}
		}
		if (!agg.targets.empty())
			return;
		bool known = targets_.count(agg.ctx_id);
		for (const auto &r : agg.regions) {
			if (!known)
				break;
			bool found = false;
			for (const auto &t : targets_[agg.ctx_id])
				found = found || t.id == r.target_id;
			known = found;
		}
		if (!known) {
			try {
				targets_[agg.ctx_id] =
					dumps_.ctx_get(
						      CtxRef::by_id(agg.ctx_id))
						.targets;
			} catch (const KernelError &) {
				// gone since: its regions have no pid
			}
		}
		agg.targets = targets_[agg.ctx_id];
	}

	Transport &dumps_;
	SchemeEngine &engine_;
	std::map<uint32_t, std::vector<Target>> targets_;
	std::set<std::pair<size_t, int>> reported_;
	uint64_t cpu_ns_ = 0;
};

std::string render_scheme_stats(const SchemeEngine &e, uint64_t n,
				uint64_t engine_ns)
{
	std::string out = fmt::format(
		"{} aggregations, engine CPU {:.3f} ms\n"
		"{:<12} {:<16} {:>9} {:>14} {:>10} {:>14} {:>10}  {}\n",
		n, double(engine_ns) / 1e6, "scheme", "action", "nr_tried",
		"sz_tried", "nr_applied", "sz_applied", "qt_exceeds",
		"failed pages");

	for (size_t i = 0; i < e.size(); i++) {
		const Scheme &s = e.scheme(i);
		const SchemeStats &st = e.stats(i);
		std::string action = to_string(s.action);
		if (s.node)
			action += " " + std::to_string(*s.node);
		std::string failed;
		for (const auto &[err, pages] : st.failed)
			failed += (failed.empty() ? "" : " ") +
				  errno_name(err) + "=" + std::to_string(pages);
		out += fmt::format("{:<12} {:<16} {:>9} {:>14} {:>10} {:>14} "
				   "{:>10}  {}\n",
				   s.name, action, st.nr_tried, st.sz_tried,
				   st.nr_applied, st.sz_applied, st.qt_exceeds,
				   failed.empty() ? "-" : failed);
	}
	return out;
}

// A scheme with quota goals: its last effective quota and each goal's
// last metric value, in damo's names.
void add_goals_json(nlohmann::json &j, const SchemeEngine &e, size_t i)
{
	const auto &goals = e.scheme(i).quota.goals;

	if (goals.empty())
		return;
	j["effective_sz_bytes"] = e.effective_quota(i);
	j["goals"] = nlohmann::json::array();
	for (size_t g = 0; g < goals.size(); g++) {
		nlohmann::json gj = {
			{"metric", to_string(goals[g].metric)},
			{"target_value", goals[g].target_value},
			{"current_value", e.goal_current(i, g)},
		};
		if (goals[g].nid)
			gj["nid"] = *goals[g].nid;
		j["goals"].push_back(gj);
	}
}

void run_schemes(const SchemesOptions &o, Transport &t, Transport &dumps)
{
	auto schemes = load_schemes_file(o.file);

	if (o.check) {
		for (const auto &s : schemes)
			fmt::print("{}: {}{}\n", s.name, to_string(s.action),
				   s.node ? " " + std::to_string(*s.node) : "");
		return;
	}
	auto ctxs = dumps.ctx_list();
	check_names(ctxs, o.limits.names);
	auto backend = make_system_backend();
	SchemeEngine engine(std::move(schemes), *backend);
	SchemesSink sink(dumps, engine);
	uint64_t n = stream_aggregations(t, o.limits, sink);

	if (o.json) {
		nlohmann::json j = {{"aggregations", n},
				    {"engine_cpu_ns", sink.engine_cpu_ns()},
				    {"schemes", nlohmann::json::array()}};
		for (size_t i = 0; i < engine.size(); i++) {
			j["schemes"].push_back(
				to_json(engine.scheme(i), engine.stats(i)));
			add_goals_json(j["schemes"].back(), engine, i);
		}
		std::cout << j.dump(2) << "\n";
	} else {
		fmt::print("{}", render_scheme_stats(engine, n,
						     sink.engine_cpu_ns()));
	}
}

} // namespace

void setup_schemes(CLI::App &app, Transport &t, Transport &dumps)
{
	auto o = std::make_shared<SchemesOptions>();
	auto *sub = app.add_subcommand(
		"schemes", "Apply DAMOS-style schemes (migrate, pageout, cold, "
			   "willneed, collapse, stat) to every aggregation");

	sub->add_option("-c,--config", o->file,
			"Schemes file: damonctl's {\"schemes\": [...]} or "
			"damo's JSON (Documentation/schemes.rst)")
		->required();
	sub->add_option("names", o->limits.names,
			"Contexts to act on (default: all)");
	sub->add_option("-n,--count", o->limits.count,
			"Stop after this many aggregations");
	sub->add_option("-d,--duration", o->limits.duration,
			"Stop after this many seconds (default: until "
			"SIGINT or SIGTERM)");
	sub->add_flag("--json", o->json, "Print the stats at exit as JSON");
	sub->add_flag("--check", o->check,
		      "Parse the schemes file, print each scheme and exit "
		      "(no module needed)");
	sub->footer("Actions on a process need ptrace access to it "
		    "(migrate_hot/migrate_cold another user's process also "
		    "CAP_SYS_NICE); a page that fails is counted by errno and "
		    "each new reason is reported once.\n"
		    "Example:\n  damonctl schemes -c tiering.json app\n");
	sub->callback([o, &t, &dumps] { run_schemes(*o, t, dumps); });
}

} // namespace damonctl
