// SPDX-License-Identifier: GPL-2.0
// A Transport without a kernel for the tests of the subcommands: it keeps
// contexts like the module does (ids from 1, states, attributes), records
// every request as one line ("start #2", "ctx_get db"), returns scripted
// notifications and snapshots, and fails the request a test names with
// the errno and extack message it gives.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "client.hpp"
#include "commands.hpp"
#include "errors.hpp"

namespace damonctl::test {

class FakeTransport : public Transport {
public:
	// Every request, in order: "OP", "OP #ID" or "OP NAME".
	std::vector<std::string> calls;
	std::vector<CtxInfo> ctxs;
	std::deque<Aggregation> notifications;
	// The receives that meet ENOBUFS: before the notification of each
	// index (counted from 0 over the ones next_aggregation returns).
	std::set<size_t> overrun_before;
	std::map<uint32_t, Aggregation> snapshots;
	std::vector<AuxAttach> aux;
	std::vector<RawRequest> raw;
	uint32_t next_id = 1;
	int join_result = 0;
	bool module_loaded =
		true; // false: every request throws ModuleNotLoaded

	// The @nth call (from 1) of @op throws KernelError(@err, @extack).
	void fail(const std::string &op, int err,
		  const std::string &extack = "", int nth = 1)
	{
		failures_[op].push_back({nth, err, extack});
	}

	// Adds a context as if an earlier command had created it.
	CtxInfo &add_ctx(const std::string &name,
			 CtxState state = CtxState::running)
	{
		CtxInfo c;

		c.id = next_id++;
		c.name = name;
		c.state = state;
		ctxs.push_back(c);
		return ctxs.back();
	}

	// How many requests of @op were made.
	size_t count(const std::string &op) const
	{
		return size_t(std::count_if(
			calls.begin(), calls.end(), [&](const std::string &c) {
				return c == op || c.rfind(op + " ", 0) == 0;
			}));
	}

	CtxInfo ctx_new(const std::string &name, Ops ops) override
	{
		request("ctx_new " + name);
		CtxInfo &c = add_ctx(name, CtxState::configured);
		c.ops = ops;
		return c;
	}

	void ctx_del(const CtxRef &ref) override
	{
		request("ctx_del", ref);
		CtxInfo &c = find(ref);
		ctxs.erase(ctxs.begin() + (&c - ctxs.data()));
	}

	CtxInfo ctx_get(const CtxRef &ref) override
	{
		request("ctx_get", ref);
		return find(ref);
	}

	std::vector<CtxInfo> ctx_list() override
	{
		request("ctx_list");
		return ctxs;
	}

	void set_attrs(const CtxRef &ref, const Attrs &attrs) override
	{
		request("set_attrs", ref);
		Attrs &a = find(ref).attrs;
		merge(a.sample_us, attrs.sample_us);
		merge(a.aggr_us, attrs.aggr_us);
		merge(a.update_us, attrs.update_us);
		merge(a.min_nr_regions, attrs.min_nr_regions);
		merge(a.max_nr_regions, attrs.max_nr_regions);
		merge(a.mode, attrs.mode);
		merge(a.ring_size, attrs.ring_size);
		merge(a.split, attrs.split);
		merge(a.cpu_budget, attrs.cpu_budget);
		merge(a.samples_goal, attrs.samples_goal);
		merge(a.goal_aggrs, attrs.goal_aggrs);
		merge(a.min_aggr_us, attrs.min_aggr_us);
		merge(a.max_aggr_us, attrs.max_aggr_us);
	}

	void target_add(const CtxRef &ref, const Target &target) override
	{
		request("target_add", ref);
		find(ref).targets.push_back(target);
	}

	void target_del(const CtxRef &ref, uint32_t) override
	{
		request("target_del", ref);
	}

	uint32_t probe_add(const CtxRef &ref, const Probe &probe) override
	{
		request("probe_add", ref);
		CtxInfo &c = find(ref);
		c.probes.push_back(probe);
		c.probes.back().idx = uint32_t(c.probes.size());
		return c.probes.back().idx;
	}

	void probe_del(const CtxRef &ref, uint32_t) override
	{
		request("probe_del", ref);
	}

	void set_filters(const CtxRef &ref,
			 const std::vector<Filter> &filters) override
	{
		request("set_filters", ref);
		find(ref).filters = filters;
	}

	void start(const CtxRef &ref) override
	{
		request("start", ref);
		find(ref).state = CtxState::running;
	}

	void stop(const CtxRef &ref) override
	{
		request("stop", ref);
		find(ref).state = CtxState::stopped;
	}

	std::optional<Aggregation> snapshot(const CtxRef &ref) override
	{
		request("snapshot", ref);
		auto it = snapshots.find(find(ref).id);
		if (it == snapshots.end())
			return std::nullopt;
		return it->second;
	}

	std::vector<StatsRow> stats() override
	{
		request("stats");
		return {};
	}

	void subscribe() override { request("subscribe"); }
	void unsubscribe() override { request("unsubscribe"); }
	void set_receive_buffer(int bytes) override
	{
		request("rcvbuf " + std::to_string(bytes));
	}

	// The scripted notifications, then none (at once: no test waits).
	std::optional<Aggregation> next_aggregation(int) override
	{
		if (notifications.empty())
			return std::nullopt;
		if (overrun_before.count(returned_))
			overruns_++;
		returned_++;
		Aggregation a = std::move(notifications.front());
		notifications.pop_front();
		return a;
	}
	uint64_t overruns() const override { return overruns_; }

	void aux_attach(const CtxRef &ref, const AuxAttach &a) override
	{
		request("aux_attach", ref);
		aux.push_back(a);
	}

	size_t raw_request(const RawRequest &req) override
	{
		request("raw_request");
		raw.push_back(req);
		return 0;
	}

	// LRU_PRIO: each request's (start, end); the reply counts the pages
	// it overlaps (of lru_page bytes), lru_applied_permil of them applied.
	std::vector<std::pair<uint64_t, uint64_t>> lru;
	uint64_t lru_page = 4096;
	uint64_t lru_applied_permil = 1000;
	LruResult lru_prio(const CtxRef &ref, uint64_t start,
			   uint64_t end) override
	{
		request("lru_prio", ref);
		lru.emplace_back(start, end);
		LruResult r;
		r.nr_tried = (end + lru_page - 1) / lru_page - start / lru_page;
		r.nr_applied = r.nr_tried * lru_applied_permil / 1000;
		r.nr_skipped = r.nr_tried - r.nr_applied;
		return r;
	}

	int join_monitor_group() override { return join_result; }

private:
	struct Failure {
		int nth;
		int err;
		std::string extack;
	};
	std::map<std::string, std::vector<Failure>> failures_;
	std::map<std::string, int> seen_;
	size_t returned_ = 0;
	uint64_t overruns_ = 0;

	template <typename T>
	static void merge(std::optional<T> &to, const std::optional<T> &from)
	{
		if (from)
			to = from;
	}

	void request(const std::string &op, const CtxRef &ref)
	{
		request(op + (ref.id ? " #" + std::to_string(*ref.id)
				     : " " + ref.name.value_or("")));
	}

	void request(const std::string &line)
	{
		std::string op = line.substr(0, line.find(' '));
		int n = ++seen_[op];

		if (!module_loaded)
			throw ModuleNotLoaded();
		calls.push_back(line);
		for (const Failure &f : failures_[op])
			if (f.nth == n)
				throw KernelError(f.err, f.extack);
	}

	CtxInfo &find(const CtxRef &ref)
	{
		for (CtxInfo &c : ctxs)
			if (ref.id ? c.id == *ref.id : c.name == ref.name)
				return c;
		throw KernelError(ENOENT, "no such context");
	}
};

// Runs damonctl with @args (without the program name) over @t (and @dumps,
// record's second connection); the exit code and what it printed.
struct Outcome {
	int exit_code = -1;
	std::string out;
	std::string err;
};

inline Outcome run_damonctl(const std::vector<std::string> &args, Transport &t,
			    Transport &dumps)
{
	std::vector<const char *> argv{"damonctl"};
	Outcome r;

	for (const auto &a : args)
		argv.push_back(a.c_str());
	testing::internal::CaptureStdout();
	testing::internal::CaptureStderr();
	r.exit_code = run_main(int(argv.size()), argv.data(), t, dumps);
	r.err = testing::internal::GetCapturedStderr();
	r.out = testing::internal::GetCapturedStdout();
	return r;
}

inline Outcome run_damonctl(const std::vector<std::string> &args, Transport &t)
{
	return run_damonctl(args, t, t);
}

} // namespace damonctl::test
