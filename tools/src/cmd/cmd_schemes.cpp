// SPDX-License-Identifier: GPL-2.0
// damonctl schemes: DAMOS-style schemes applied to every aggregation of
// the contexts named, until a limit or SIGINT/SIGTERM, then the stats of
// each scheme (Documentation/schemes.rst). Unattended, it re-creates its
// contexts or waits for them when the module is reloaded, keeps a state
// file for `status` and `export`, and defers work over its CPU budget.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <netlink/errno.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "events.hpp"
#include "scheme_engine.hpp"
#include "scheme_file.hpp"
#include "scheme_procs.hpp"
#include "scheme_state.hpp"
#include "stream.hpp"
#include "textfile.hpp"

namespace damonctl {

namespace {

struct SchemesOptions {
	std::string file;
	StreamLimits limits;
	bool json = false;
	bool check = false;
	std::string cpu_budget;
	std::string state;
	bool no_state = false;
};

// Between two checks that the module (and the engine's subscription)
// is still there.
constexpr std::chrono::seconds PROBE_INTERVAL{1};
// Between two writes of the state file while aggregations come.
constexpr std::chrono::seconds STATE_INTERVAL{1};
// At most between two reads of a context's attributes (CTX_GET) while
// its aggregation interval stays the same.
constexpr uint64_t ATTRS_INTERVAL_NS = 1000000000;

uint64_t cpu_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

uint64_t mono_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

void say(const std::string &msg)
{
	fmt::print(stderr, "damonctl: {}\n", msg);
}

// The schemes file, with the contexts to start and keep (a "contexts"
// list as `damonctl start --config` takes it) when it has them.
struct EngineFile {
	std::vector<CtxConfig> contexts;
	std::vector<Scheme> schemes;
};

EngineFile load_engine_file(const std::string &path)
{
	nlohmann::json doc = read_json_file(path, "schemes file");
	EngineFile f;

	if (doc.is_object() && doc.contains("contexts") &&
	    doc.contains("schemes")) {
		f.contexts = parse_config({{"contexts", doc["contexts"]}},
					  sysfs_root());
		doc.erase("contexts");
	}
	f.schemes = parse_schemes(doc);
	return f;
}

// Each aggregation completed (a notification carries neither the
// targets, nor the sample interval an nr_accesses percentage needs, nor,
// when truncated, every region), then given to the engine
// unless the CPU budget defers it; a new failure reason of a scheme is
// reported once on stderr, a target's exit, exec or refusal once by
// TargetProcs.
class SchemesSink : public AggregationSink {
public:
	SchemesSink(Transport &dumps, SchemeEngine &engine, TargetProcs &procs,
		    CpuBudget &budget, EngineCounters &counters)
		: dumps_(dumps)
		, engine_(engine)
		, procs_(procs)
		, budget_(budget)
		, counters_(counters)
	{
	}

	void put(Aggregation &agg) override
	{
		counters_.aggregations++;
		if (!budget_.admit(mono_ns(), process_cpu_ns())) {
			counters_.deferred++;
			return;
		}
		uint64_t c0 = cpu_ns();
		try {
			complete(agg);
			engine_.apply(agg);
		} catch (...) {
			// the module or the context went away meanwhile
			counters_.engine_cpu_ns += cpu_ns() - c0;
			counters_.skipped++;
			throw;
		}
		counters_.engine_cpu_ns += cpu_ns() - c0;
		counters_.passes++;
		for (const auto &m : procs_.take_messages())
			say(m);
		for (size_t i = 0; i < engine_.size(); i++)
			for (const auto &[err, pages] : engine_.stats(i).failed)
				if (err != ESRCH && err != EPERM &&
				    reported_.insert({i, err}).second)
					say(fmt::format(
						"scheme '{}' ({}): {} pages "
						"failed with {} ({}); counted "
						"in its stats from now on",
						engine_.scheme(i).name,
						to_string(engine_.scheme(i)
								  .action),
						pages, errno_name(err),
						std::strerror(err)));
	}

	// The module was reloaded: context ids may now name others.
	void forget_targets()
	{
		targets_.clear();
		attrs_.clear();
	}

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
		bool known = !agg.targets.empty() || targets_.count(agg.ctx_id);
		for (const auto &r : agg.regions) {
			if (!known || !agg.targets.empty())
				break;
			bool found = false;
			for (const auto &t : targets_[agg.ctx_id])
				found = found || t.id == r.target_id;
			known = found;
		}
		// the sample interval: asked again when the aggregation
		// interval changed, else at most every ATTRS_INTERVAL_NS
		// (damonctl tune can change it alone)
		uint64_t now = mono_ns();
		auto ait = attrs_.find(agg.ctx_id);
		bool fresh = ait != attrs_.end() &&
			     ait->second.aggr_us == agg.aggr_us &&
			     now - ait->second.read_ns < ATTRS_INTERVAL_NS;
		if (!known || (!agg.sample_us && !fresh)) {
			try {
				CtxInfo info = dumps_.ctx_get(
					CtxRef::by_id(agg.ctx_id));
				targets_[agg.ctx_id] = info.targets;
				attrs_[agg.ctx_id] = {info.attrs.sample_us,
						      agg.aggr_us, now};
			} catch (const KernelError &) {
				// gone since: its regions have no pid
			}
		}
		if (agg.targets.empty())
			agg.targets = targets_[agg.ctx_id];
		ait = attrs_.find(agg.ctx_id);
		if (!agg.sample_us && ait != attrs_.end())
			agg.sample_us = ait->second.sample_us;
	}

	struct CtxAttrs {
		std::optional<uint64_t> sample_us;
		uint64_t aggr_us = 0; // of the aggregation it was read at
		uint64_t read_ns = 0;
	};

	Transport &dumps_;
	SchemeEngine &engine_;
	TargetProcs &procs_;
	CpuBudget &budget_;
	EngineCounters &counters_;
	std::map<uint32_t, std::vector<Target>> targets_;
	std::map<uint32_t, CtxAttrs> attrs_;
	std::set<std::pair<size_t, int>> reported_;
};

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

// The unattended loop: aggregations to the sink, a check of the module
// every PROBE_INTERVAL (MONITOR_SUBSCRIBE again: "already subscribed"
// while the same module runs, accepted by a new one, refused while there
// is none), the engine's contexts re-created after a reload, the state
// file kept.
class SchemesRun {
public:
	SchemesRun(const SchemesOptions &o, Transport &t, Transport &dumps,
		   EngineFile f)
		: o_(o)
		, t_(t)
		, dumps_(dumps)
		, contexts_(std::move(f.contexts))
		, budget_(o.cpu_budget.empty()
				  ? 0
				  : parse_cpu_budget_option(o.cpu_budget))
		, backend_(make_system_backend(procs_, &dumps))
		, engine_(std::move(f.schemes), *backend_)
		, sink_(dumps, engine_, procs_, budget_, counters_)
		, name_(engine_name_of(o.file))
	{
		names_ = o.limits.names;
		if (names_.empty())
			for (const auto &c : contexts_)
				names_.push_back(c.name);
		if (!o.no_state)
			state_path_ = o.state.empty()
					      ? schemes_state_path(name_)
					      : o.state;
	}

	void run()
	{
		start_ns_ = mono_ns();
		cpu0_ = process_cpu_ns();
		install_interrupt_handler();
		ensure_contexts(true);
		std::vector<std::string> others;
		for (const auto &n : o_.limits.names)
			if (!configured(n))
				others.push_back(n);
		check_names(dumps_.ctx_list(), others);
		t_.subscribe();
		open_state();
		std::string which;
		for (const auto &n : names_)
			which += (which.empty() ? "" : ", ") + n;
		fmt::print(stderr,
			   "applying {} scheme{} to {} (Ctrl-C or SIGTERM to "
			   "stop)\n",
			   engine_.size(), engine_.size() == 1 ? "" : "s",
			   which.empty() ? "every context" : which);
		write_state(true);
		loop();
		finish();
	}

private:
	bool configured(const std::string &name) const
	{
		for (const auto &c : contexts_)
			if (c.name == name)
				return true;
		return false;
	}

	void loop()
	{
		auto end = std::chrono::steady_clock::now() +
			   std::chrono::duration<double>(o_.limits.duration);
		auto next_probe =
			std::chrono::steady_clock::now() + PROBE_INTERVAL;
		auto next_state = next_probe;

		while (!interrupted() &&
		       (!o_.limits.count ||
			counters_.aggregations < o_.limits.count)) {
			auto now = std::chrono::steady_clock::now();
			if (o_.limits.duration > 0 && now >= end)
				break;
			// only with nothing queued: the reply must find room
			// in the socket's buffer, which a backlog of
			// notifications can fill (and aggregations coming
			// tell the module is there)
			if (now >= next_probe && (down_ || drained_)) {
				probe();
				next_probe = now + PROBE_INTERVAL;
			}
			if (now >= next_state) {
				write_state(true);
				next_state = now + STATE_INTERVAL;
			}
			if (down_) {
				std::this_thread::sleep_for(
					std::chrono::milliseconds(100));
				continue;
			}
			try {
				auto agg = t_.next_aggregation(200);
				// notifications lost (ENOBUFS), the next
				// ones come
				if (t_.overruns() && !overrun_said_) {
					say("notifications lost: the receive "
					    "buffer overran (the engine is "
					    "behind the aggregations); said "
					    "once");
					overrun_said_ = true;
				}
				drained_ = !agg;
				if (!agg || !wanted(names_, agg->ctx_name))
					continue;
				if (gap_open_) {
					counters_.gap_ns +=
						mono_ns() - gap_start_ns_;
					gap_open_ = false;
					write_state(true);
				}
				last_agg_ns_ = mono_ns();
				sink_.put(*agg);
			} catch (const ModuleNotLoaded &) {
				module_gone();
			} catch (const KernelError &e) {
				dump_error(e);
			}
		}
	}

	// A dump refused (its context deleted since): that aggregation is
	// skipped, the next goes on.
	void dump_error(const KernelError &e)
	{
		if (dump_errors_.insert(e.err()).second)
			say(fmt::format("an aggregation skipped: {} ({}); said "
					"once",
					e.extack().empty()
						? std::strerror(e.err())
						: e.extack(),
					errno_name(e.err())));
	}

	void probe()
	{
		try {
			t_.subscribe();
		} catch (const KernelError &e) {
			if (e.err() == EALREADY)
				return; // the same module, still subscribed
			throw;
		} catch (const ModuleNotLoaded &) {
			module_gone();
			return;
		} catch (const std::system_error &e) {
			// ENOBUFS pending on the socket (notifications
			// dropped since the drain): the next probe asks again
			if (e.code() !=
			    std::error_code(NLE_NOMEM, nl_category()))
				throw;
			return;
		}
		// accepted: a new instance of the module
		counters_.module_reloads++;
		if (!down_) {
			// reloaded between two probes: aggregations
			// stopped with the last one
			gap_start_ns_ = last_agg_ns_ ? last_agg_ns_ : mono_ns();
		}
		down_ = false;
		gap_open_ = true;
		sink_.forget_targets();
		say(fmt::format("the damon_perf module is back (reload {}): "
				"{}",
				counters_.module_reloads,
				contexts_.empty()
					? "waiting for the contexts"
					: "re-creating the contexts"));
		ensure_contexts(false);
		write_state(true);
	}

	void module_gone()
	{
		if (down_)
			return;
		down_ = true;
		counters_.module_unloads++;
		gap_start_ns_ = last_agg_ns_ ? last_agg_ns_ : mono_ns();
		say("the damon_perf module is gone: waiting for it (the "
		    "schemes go on once it is back)");
		write_state(true);
	}

	// Starts every configured context that does not exist; at the
	// start a failure is the command's, later it is said once and
	// tried again at the next probe.
	void ensure_contexts(bool first)
	{
		if (contexts_.empty())
			return;
		std::vector<CtxInfo> have;
		try {
			have = dumps_.ctx_list();
		} catch (const ModuleNotLoaded &) {
			if (first)
				throw;
			module_gone();
			return;
		}
		for (const auto &c : contexts_) {
			bool exists = false;
			for (const auto &h : have)
				exists = exists || h.name == c.name;
			if (exists)
				continue;
			CtxConfig cfg = c;
			if (!first && !live_targets(cfg))
				continue;
			try {
				CtxInfo info =
					start_context(dumps_, cfg, false);
				owned_.insert(c.name);
				counters_.contexts_created++;
				failed_ctx_.erase(c.name);
				say(fmt::format("started context {} \"{}\" ({} "
						"targets, {} probes)",
						info.id, c.name,
						cfg.targets.size(),
						cfg.probes.size()));
			} catch (const KernelError &e) {
				if (first)
					throw;
				if (failed_ctx_.insert(c.name).second)
					say(fmt::format(
						"cannot start context \"{}\": "
						"{}; trying again every "
						"second",
						c.name,
						e.extack().empty()
							? std::strerror(e.err())
							: e.extack()));
				pending_ = true;
			}
		}
	}

	// Leaves out of @cfg the processes gone since the file was written
	// (said once); false when none is left.
	bool live_targets(CtxConfig &cfg)
	{
		std::vector<Target> live;

		for (const auto &t : cfg.targets) {
			if (!t.pid || procs_.alive(*t.pid)) {
				live.push_back(t);
				continue;
			}
			if (dropped_.insert(*t.pid).second)
				say(fmt::format("context \"{}\": target pid {} "
						"is gone, left out when the "
						"context is started again",
						cfg.name, *t.pid));
		}
		for (const auto &m : procs_.take_messages())
			say(m);
		bool any = !live.empty();
		if (!any && dropped_ctx_.insert(cfg.name).second)
			say(fmt::format("context \"{}\": every target is "
					"gone; not started again",
					cfg.name));
		cfg.targets = std::move(live);
		return any;
	}

	void open_state()
	{
		if (state_path_.empty())
			return;
		auto slash = state_path_.rfind('/');
		state_dir_ = slash == std::string::npos
				     ? "."
				     : state_path_.substr(0, slash);
		state_base_ = state_path_.substr(slash + 1);
		// /run/damon-perf, on tmpfs, is gone at each boot
		mkdir(state_dir_.c_str(), 0755);
	}

	nlohmann::json state(bool running)
	{
		nlohmann::json schemes = nlohmann::json::array();

		for (size_t i = 0; i < engine_.size(); i++) {
			schemes.push_back(
				to_json(engine_.scheme(i), engine_.stats(i)));
			add_goals_json(schemes.back(), engine_, i);
		}
		counters_.process_cpu_ns = process_cpu_ns() - cpu0_;
		counters_.wall_ns = mono_ns() - start_ns_;
		counters_.target_exits = procs_.events().exits;
		counters_.target_execs = procs_.events().execs;
		counters_.target_eperm = procs_.events().eperm;
		return engine_state_json(name_, uint32_t(getpid()), o_.file,
					 running, budget_.budget(), names_,
					 counters_, schemes);
	}

	void write_state(bool running)
	{
		if (pending_ && !down_) {
			pending_ = false;
			ensure_contexts(false);
		}
		if (state_path_.empty())
			return;
		try {
			write_atomic(state_dir_, state_base_,
				     state(running).dump(2) + "\n");
		} catch (const std::system_error &e) {
			if (!state_failed_)
				say(fmt::format("state file {}: {}; going on "
						"without it",
						state_path_, e.what()));
			state_failed_ = true;
		}
	}

	void finish()
	{
		for (const auto &m : procs_.take_messages())
			say(m);
		// the contexts the engine started end with it
		for (const auto &n : owned_) {
			try {
				dumps_.stop(CtxRef::by_name(n));
			} catch (const std::exception &) {
			}
			try {
				dumps_.ctx_del(CtxRef::by_name(n));
			} catch (const std::exception &) {
			}
		}
		nlohmann::json j = state(false);
		write_state(false);
		if (o_.json)
			std::cout << j.dump(2) << "\n";
		else
			fmt::print("{}", render_engine_status({j}));
	}

	const SchemesOptions &o_;
	Transport &t_;
	Transport &dumps_;
	std::vector<CtxConfig> contexts_;
	std::vector<std::string> names_;
	TargetProcs procs_;
	CpuBudget budget_;
	EngineCounters counters_;
	std::unique_ptr<SchemeBackend> backend_;
	SchemeEngine engine_;
	SchemesSink sink_;
	std::string name_;
	std::string state_path_, state_dir_, state_base_;
	bool state_failed_ = false;
	std::set<std::string> owned_, failed_ctx_, dropped_ctx_;
	std::set<uint32_t> dropped_;
	std::set<int> dump_errors_;
	bool drained_ = false;
	bool overrun_said_ = false;
	bool pending_ = false;
	bool down_ = false;
	bool gap_open_ = false;
	uint64_t gap_start_ns_ = 0;
	uint64_t last_agg_ns_ = 0;
	uint64_t start_ns_ = 0;
	uint64_t cpu0_ = 0;
};

void run_schemes(const SchemesOptions &o, Transport &t, Transport &dumps)
{
	EngineFile f = load_engine_file(o.file);

	if (!o.cpu_budget.empty())
		parse_cpu_budget_option(o.cpu_budget);
	if (o.check) {
		for (const auto &c : f.contexts)
			fmt::print("context {}: {} targets, {} probes\n",
				   c.name, c.targets.size(), c.probes.size());
		for (const auto &s : f.schemes)
			fmt::print("{}: {}{}\n", s.name, to_string(s.action),
				   s.node ? " " + std::to_string(*s.node) : "");
		return;
	}
	SchemesRun run(o, t, dumps, std::move(f));
	run.run();
}

} // namespace

void setup_schemes(CLI::App &app, Transport &t, Transport &dumps)
{
	auto o = std::make_shared<SchemesOptions>();
	auto *sub = app.add_subcommand(
		"schemes", "Apply DAMOS-style schemes (migrate, pageout, cold, "
			   "willneed, collapse, lru_prio, stat) to every "
			   "aggregation");

	sub->add_option("-c,--config", o->file,
			"Schemes file: damonctl's {\"schemes\": [...]} (with "
			"\"contexts\" to start and keep) or damo's JSON "
			"(Documentation/schemes.rst)")
		->required();
	sub->add_option("names", o->limits.names,
			"Contexts to act on (default: the file's contexts, "
			"else all)");
	sub->add_option("-n,--count", o->limits.count,
			"Stop after this many aggregations");
	sub->add_option("-d,--duration", o->limits.duration,
			"Stop after this many seconds (default: until "
			"SIGINT or SIGTERM)");
	sub->add_option("--cpu-budget", o->cpu_budget,
			"CPU budget of the engine, percent of one CPU (e.g. "
			"0.5): over it, aggregations are deferred (no scheme "
			"applied, counted) (default 0: none)");
	sub->add_option("--state", o->state,
			"State file status and export read (default "
			"/run/damon-perf/schemes-NAME.json, NAME the schemes "
			"file's base name)");
	sub->add_flag("--no-state", o->no_state, "Keep no state file");
	sub->add_flag("--json", o->json, "Print the stats at exit as JSON");
	sub->add_flag("--check", o->check,
		      "Parse the schemes file, print each scheme and exit "
		      "(no module needed)");
	sub->footer(
		"Runs until SIGINT or SIGTERM (exit 0, the stats printed and "
		"written), through module reloads: the file's contexts are "
		"started again, others waited for. Actions on a process "
		"need ptrace access to it (migrate_hot/migrate_cold another "
		"user's process also CAP_SYS_NICE); a page that fails is "
		"counted by errno, each new reason and each target that "
		"exits, execs or refuses the engine reported once.\n"
		"Examples:\n  damonctl schemes -c tiering.json app\n"
		"  systemctl start damonctl-schemes@tiering  (reads "
		"/etc/damon-perf/tiering.json)\n");
	sub->callback([o, &t, &dumps] { run_schemes(*o, t, dumps); });
}

} // namespace damonctl
