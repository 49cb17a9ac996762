// SPDX-License-Identifier: GPL-2.0
// The damon_perf generic netlink client: the only code that owns a netlink
// socket. Every request waits for the kernel's answer and throws
// KernelError (with the extack message) when the kernel refuses it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec.hpp"
#include "model.hpp"

struct nl_sock;

namespace damonctl {

// The operations subcommands need; a narrow interface so tests can fake it.
class Transport {
public:
	virtual ~Transport() = default;
	virtual CtxInfo ctx_new(const std::string &name, Ops ops) = 0;
	virtual void ctx_del(const CtxRef &ref) = 0;
	virtual CtxInfo ctx_get(const CtxRef &ref) = 0;
	virtual std::vector<CtxInfo> ctx_list() = 0;
	virtual void set_attrs(const CtxRef &ref, const Attrs &attrs) = 0;
	virtual void target_add(const CtxRef &ref, const Target &target) = 0;
	virtual void target_del(const CtxRef &ref, uint32_t target_id) = 0;
	virtual uint32_t probe_add(const CtxRef &ref, const Probe &probe) = 0;
	virtual void probe_del(const CtxRef &ref, uint32_t idx) = 0;
	virtual void set_filters(const CtxRef &ref,
				 const std::vector<Filter> &filters) = 0;
	virtual void start(const CtxRef &ref) = 0;
	virtual void stop(const CtxRef &ref) = 0;
	virtual std::optional<Aggregation> snapshot(const CtxRef &ref) = 0;
	virtual std::vector<StatsRow> stats() = 0;
	virtual void subscribe() = 0;
	virtual void unsubscribe() = 0;
	// The next AGGREGATION notification; nullopt after @timeout_ms.
	virtual std::optional<Aggregation> next_aggregation(int timeout_ms) = 0;
};

struct NlSockDeleter {
	void operator()(nl_sock *sock) const;
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;

class Client : public Transport {
public:
	// Connects and resolves the family; throws ModuleNotLoaded.
	Client();

	CtxInfo ctx_new(const std::string &name, Ops ops) override;
	void ctx_del(const CtxRef &ref) override;
	CtxInfo ctx_get(const CtxRef &ref) override;
	std::vector<CtxInfo> ctx_list() override;
	void set_attrs(const CtxRef &ref, const Attrs &attrs) override;
	void target_add(const CtxRef &ref, const Target &target) override;
	void target_del(const CtxRef &ref, uint32_t target_id) override;
	uint32_t probe_add(const CtxRef &ref, const Probe &probe) override;
	void probe_del(const CtxRef &ref, uint32_t idx) override;
	void set_filters(const CtxRef &ref,
			 const std::vector<Filter> &filters) override;
	void start(const CtxRef &ref) override;
	void stop(const CtxRef &ref) override;
	std::optional<Aggregation> snapshot(const CtxRef &ref) override;
	std::vector<StatsRow> stats() override;
	void subscribe() override;
	void unsubscribe() override;
	std::optional<Aggregation> next_aggregation(int timeout_ms) override;

	// Hands one CPU's AUX buffer to a context; the socket must stay open
	// while the buffer is in use (closing it tears the buffer down).
	void aux_attach(const CtxRef &ref, const AuxAttach &aux);

	// Raw access for `debug raw` and tests: a new message for @cmd, and a
	// request/response exchange calling @on_reply for every reply.
	NlMsg new_request(uint8_t cmd, bool dump = false);
	using ReplyFn = std::function<void(const nlmsghdr *)>;
	void transact(NlMsg msg, const ReplyFn &on_reply = {});
	// Join the "monitor" multicast group: 0 or a negative errno.
	int join_monitor_group();
	int family() const { return family_; }

private:
	NlSock sock_;
	int family_ = 0;
	int mcgrp_ = -1;
};

} // namespace damonctl
