// SPDX-License-Identifier: GPL-2.0
// How damonctl reaches the kernel: Transport, the operations the
// subcommands use (tests fake it), and Client, the damon_perf generic
// netlink client behind it, the only code that owns a netlink socket.
// Every request waits for the kernel's answer and throws KernelError (with
// the extack message) when the kernel refuses it.
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

// One attribute of a raw request: its type (NLA_F_NESTED included) and
// payload, sent as given.
struct RawAttr {
	int type = 0;
	std::vector<unsigned char> data;
};

// A request built by hand (`debug raw`, for tests of the kernel's input
// validation): the genetlink header's fields and the attributes as given.
struct RawRequest {
	uint8_t cmd = 0;
	bool dump = false;
	uint8_t version = 1;
	uint16_t reserved = 0;
	std::vector<RawAttr> attrs;
};

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
	// The receive buffer (SO_RCVBUF, bytes) of the connection that
	// subscribes: notifications that find it full are dropped.
	virtual void set_receive_buffer(int bytes) = 0;
	// The next AGGREGATION notification; nullopt after @timeout_ms. A
	// receive that fails with ENOBUFS (notifications were dropped for a
	// full receive buffer) is counted in overruns() and the wait goes on.
	virtual std::optional<Aggregation> next_aggregation(int timeout_ms) = 0;
	// How many times receiving notifications met ENOBUFS.
	virtual uint64_t overruns() const = 0;
	// Hands one CPU's AUX buffer to a context; the connection must stay
	// open while the buffer is in use (closing it tears the buffer down).
	virtual void aux_attach(const CtxRef &ref, const AuxAttach &aux) = 0;
	// Marks the LRU folios of [@start, @end), physical addresses within
	// one target of the paddr context @ref, accessed (LRU_PRIO: at most
	// DAMON_PERF_LRU_PAGES_MAX pages, CAP_SYS_ADMIN).
	virtual LruResult lru_prio(const CtxRef &ref, uint64_t start,
				   uint64_t end) = 0;
	// Sends @req and returns the number of replies before the ack.
	virtual size_t raw_request(const RawRequest &req) = 0;
	// Join the "monitor" multicast group: 0 or a negative errno.
	virtual int join_monitor_group() = 0;
};

struct NlSockDeleter {
	void operator()(nl_sock *sock) const;
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;

// Connects and resolves the family on first use (so a command line error
// is reported before a missing module); every request throws
// ModuleNotLoaded then.
class Client : public Transport {
public:
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
	void set_receive_buffer(int bytes) override;
	std::optional<Aggregation> next_aggregation(int timeout_ms) override;
	uint64_t overruns() const override { return overruns_; }
	void aux_attach(const CtxRef &ref, const AuxAttach &aux) override;
	LruResult lru_prio(const CtxRef &ref, uint64_t start,
			   uint64_t end) override;
	size_t raw_request(const RawRequest &req) override;
	int join_monitor_group() override;

private:
	// A new message for @cmd, and a request/response exchange calling
	// @on_reply for every reply.
	NlMsg new_request(uint8_t cmd, bool dump = false);
	using ReplyFn = std::function<void(const nlmsghdr *)>;
	void transact(NlMsg msg, const ReplyFn &on_reply = {});
	// One send of @msg and its replies (transact resends once when the
	// family went away under it).
	void exchange(nl_msg *msg, const ReplyFn &on_reply);
	// A request for @cmd about the context @ref, with the attributes
	// @put adds.
	using PutFn = std::function<void(nl_msg *)>;
	void request(uint8_t cmd, const CtxRef &ref, const PutFn &put = {},
		     const ReplyFn &on_reply = {});
	// A dump of @cmd: every reply, parsed.
	template <typename T>
	std::vector<T> dump(uint8_t cmd, T (*parse)(const nlmsghdr *));
	// The socket, connected on the first call.
	nl_sock *sock();

	NlSock sock_;
	int family_ = 0;
	int mcgrp_ = -1;
	uint64_t overruns_ = 0;
};

} // namespace damonctl
