// SPDX-License-Identifier: GPL-2.0
#include "client.hpp"

#include <cerrno>
#include <cstdlib>
#include <poll.h>
#include <sys/socket.h>

#include <linux/damon_perf.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "errors.hpp"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace damonctl {

void NlSockDeleter::operator()(nl_sock *sock) const
{
	nl_socket_free(sock);
}

namespace {

struct FreeDeleter {
	void operator()(unsigned char *p) const { std::free(p); }
};

void nl_check(int ret, const char *what)
{
	if (ret < 0)
		throw std::system_error(-ret, nl_category(), what);
}

// One datagram's messages; none when the receive was interrupted (or,
// with @overrun, failed with ENOBUFS: then *@overrun is set).
struct Datagram {
	std::unique_ptr<unsigned char, FreeDeleter> buf;
	int len = 0;

	nlmsghdr *first() const
	{
		return reinterpret_cast<nlmsghdr *>(buf.get());
	}
};

Datagram receive(nl_sock *sock, const char *what, bool *overrun = nullptr)
{
	sockaddr_nl peer{};
	unsigned char *raw = nullptr;
	int n = nl_recv(sock, &peer, &raw, nullptr);
	Datagram d{std::unique_ptr<unsigned char, FreeDeleter>(raw), 0};

	if (n == -NLE_INTR || n == -NLE_AGAIN)
		return d;
	// libnl's name for ENOBUFS: the kernel dropped messages for this
	// socket (its receive buffer was full) and says so once
	if (n == -NLE_NOMEM && overrun) {
		*overrun = true;
		return d;
	}
	nl_check(n, what);
	d.len = n;
	return d;
}

} // namespace

nl_sock *Client::sock()
{
	int one = 1;

	if (sock_)
		return sock_.get();
	NlSock sock(nl_socket_alloc());
	if (!sock)
		throw std::system_error(NLE_NOMEM, nl_category(),
					"allocating a netlink socket");
	nl_check(genl_connect(sock.get()), "connecting to generic netlink");
	nl_socket_enable_msg_peek(sock.get());
	nl_socket_disable_auto_ack(sock.get());
	nl_socket_set_buffer_size(sock.get(), 1 << 20, 0);
	int fd = nl_socket_get_fd(sock.get());
	// best effort: kernels without them still work, with less detail
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	int family = genl_ctrl_resolve(sock.get(), DAMON_PERF_GENL_NAME);
	if (family == -NLE_OBJ_NOTFOUND)
		throw ModuleNotLoaded();
	nl_check(family, "resolving the damon_perf family");
	family_ = family;
	sock_ = std::move(sock);
	return sock_.get();
}

NlMsg Client::new_request(uint8_t cmd, bool dump)
{
	sock();
	return new_msg(family_, cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
}

void Client::transact(NlMsg msg, const ReplyFn &on_reply)
{
	try {
		exchange(msg.get(), on_reply);
	} catch (const KernelError &e) {
		// Generic netlink itself refuses a family id it does not know
		// with ENOENT and no message (the module's errors all carry
		// one): the module was unloaded, or reloaded under a new id,
		// since this socket resolved it. The request never reached
		// the module, so it can be sent once more to the new id.
		if (e.err() != ENOENT || !e.extack().empty())
			throw;
		int family =
			genl_ctrl_resolve(sock_.get(), DAMON_PERF_GENL_NAME);
		if (family < 0) {
			sock_.reset();
			throw ModuleNotLoaded();
		}
		family_ = family;
		nlmsg_hdr(msg.get())->nlmsg_type =
			static_cast<uint16_t>(family);
		exchange(msg.get(), on_reply);
	}
}

void Client::exchange(nl_msg *msg, const ReplyFn &on_reply)
{
	nl_check(nl_send_auto(sock_.get(), msg), "sending a request");
	uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;

	for (;;) {
		Datagram d = receive(sock_.get(), "receiving a reply");
		int n = d.len;

		for (auto *nlh = d.first(); nlmsg_ok(nlh, n);
		     nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_seq != seq)
				continue; // a notification or a stale reply
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				Ack ack = parse_ack(nlh);
				if (ack.error < 0)
					throw KernelError(-ack.error,
							  ack.message);
				return;
			}
			if (nlh->nlmsg_type == NLMSG_NOOP ||
			    nlh->nlmsg_type == NLMSG_OVERRUN)
				continue;
			if (on_reply)
				on_reply(nlh);
		}
	}
}

template <typename T>
std::vector<T> Client::dump(uint8_t cmd, T (*parse)(const nlmsghdr *))
{
	std::vector<T> rows;

	transact(new_request(cmd, true),
		 [&](const nlmsghdr *nlh) { rows.push_back(parse(nlh)); });
	return rows;
}

void Client::request(uint8_t cmd, const CtxRef &ref, const PutFn &put,
		     const ReplyFn &on_reply)
{
	auto msg = new_request(cmd);

	put_ctx_ref(msg.get(), ref);
	if (put)
		put(msg.get());
	transact(std::move(msg), on_reply);
}

CtxInfo Client::ctx_new(const std::string &name, Ops ops)
{
	auto msg = new_request(DAMON_PERF_CMD_CTX_NEW);
	std::optional<CtxInfo> info;

	put_ctx_new(msg.get(), name, ops);
	transact(std::move(msg),
		 [&](const nlmsghdr *nlh) { info = parse_ctx_info(nlh); });
	if (!info)
		throw ProtocolError("CTX_NEW: no reply");
	return *info;
}

void Client::ctx_del(const CtxRef &ref)
{
	request(DAMON_PERF_CMD_CTX_DEL, ref);
}

CtxInfo Client::ctx_get(const CtxRef &ref)
{
	std::optional<CtxInfo> info;

	request(DAMON_PERF_CMD_CTX_GET, ref, {},
		[&](const nlmsghdr *nlh) { info = parse_ctx_info(nlh); });
	if (!info)
		throw ProtocolError("CTX_GET: no reply");
	return *info;
}

std::vector<CtxInfo> Client::ctx_list()
{
	return dump(DAMON_PERF_CMD_CTX_GET, parse_ctx_info);
}

void Client::set_attrs(const CtxRef &ref, const Attrs &attrs)
{
	request(DAMON_PERF_CMD_SET_ATTRS, ref,
		[&](nl_msg *msg) { put_attrs(msg, attrs); });
}

void Client::target_add(const CtxRef &ref, const Target &target)
{
	request(DAMON_PERF_CMD_TARGET_ADD, ref,
		[&](nl_msg *msg) { put_target(msg, target); });
}

void Client::target_del(const CtxRef &ref, uint32_t target_id)
{
	request(DAMON_PERF_CMD_TARGET_DEL, ref, [&](nl_msg *msg) {
		put_u32_attr(msg, DAMON_PERF_A_TARGET_ID, target_id);
	});
}

uint32_t Client::probe_add(const CtxRef &ref, const Probe &probe)
{
	std::optional<uint32_t> idx;
	Probe p = probe;

	p.idx = 0;
	request(
		DAMON_PERF_CMD_PROBE_ADD, ref,
		[&](nl_msg *msg) { put_probe(msg, p); },
		[&](const nlmsghdr *nlh) { idx = parse_probe_idx(nlh); });
	return idx.value_or(0);
}

void Client::probe_del(const CtxRef &ref, uint32_t idx)
{
	request(DAMON_PERF_CMD_PROBE_DEL, ref, [&](nl_msg *msg) {
		put_u32_attr(msg, DAMON_PERF_A_PROBE_IDX, idx);
	});
}

void Client::set_filters(const CtxRef &ref, const std::vector<Filter> &filters)
{
	request(DAMON_PERF_CMD_SET_FILTERS, ref,
		[&](nl_msg *msg) { put_filters(msg, filters); });
}

void Client::start(const CtxRef &ref)
{
	request(DAMON_PERF_CMD_START, ref);
}

void Client::stop(const CtxRef &ref)
{
	request(DAMON_PERF_CMD_STOP, ref);
}

std::optional<Aggregation> Client::snapshot(const CtxRef &ref)
{
	auto msg = new_request(DAMON_PERF_CMD_SNAPSHOT_GET, true);
	Aggregation agg;
	bool any = false;

	put_ctx_ref(msg.get(), ref);
	transact(std::move(msg), [&](const nlmsghdr *nlh) {
		parse_aggregation(nlh, agg);
		any = true;
	});
	if (!any)
		return std::nullopt;
	return agg;
}

std::vector<StatsRow> Client::stats()
{
	return dump(DAMON_PERF_CMD_STATS_GET, parse_stats_row);
}

void Client::aux_attach(const CtxRef &ref, const AuxAttach &aux)
{
	request(DAMON_PERF_CMD_AUX_ATTACH, ref,
		[&](nl_msg *msg) { put_aux(msg, aux); });
}

LruResult Client::lru_prio(const CtxRef &ref, uint64_t start, uint64_t end)
{
	std::optional<LruResult> r;

	request(
		DAMON_PERF_CMD_LRU_PRIO, ref,
		[&](nl_msg *msg) { put_lru(msg, start, end); },
		[&](const nlmsghdr *nlh) { r = parse_lru(nlh); });
	if (!r)
		throw ProtocolError("LRU_PRIO reply without an lru nest");
	return *r;
}

void Client::subscribe()
{
	transact(new_request(DAMON_PERF_CMD_MONITOR_SUBSCRIBE));
}

void Client::unsubscribe()
{
	transact(new_request(DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE));
}

void Client::set_receive_buffer(int bytes)
{
	int fd = nl_socket_get_fd(sock());

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)))
		throw std::system_error(errno, std::generic_category(),
					"setting the receive buffer");
}

std::optional<Aggregation> Client::next_aggregation(int timeout_ms)
{
	pollfd pfd{nl_socket_get_fd(sock()), POLLIN, 0};

	for (;;) {
		int ret = poll(&pfd, 1, timeout_ms);

		if (ret < 0 && errno == EINTR)
			return std::nullopt;
		if (ret < 0)
			throw std::system_error(errno, std::generic_category(),
						"waiting for notifications");
		if (ret == 0)
			return std::nullopt;

		bool overrun = false;
		Datagram d = receive(sock_.get(), "receiving a notification",
				     &overrun);
		int n = d.len;

		if (overrun)
			overruns_++;

		for (auto *nlh = d.first(); nlmsg_ok(nlh, n);
		     nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_type != family_ ||
			    msg_cmd(nlh) != DAMON_PERF_CMD_AGGREGATION)
				continue;
			Aggregation agg;
			parse_aggregation(nlh, agg);
			return agg;
		}
	}
}

size_t Client::raw_request(const RawRequest &req)
{
	auto msg = new_request(req.cmd, req.dump);
	size_t replies = 0;

	set_genl_header(msg.get(), req.version, req.reserved);
	for (const auto &a : req.attrs)
		put_raw_attr(msg.get(), a.type, a.data.data(), a.data.size());
	transact(std::move(msg), [&](const nlmsghdr *) { replies++; });
	return replies;
}

int Client::join_monitor_group()
{
	if (mcgrp_ < 0) {
		mcgrp_ = genl_ctrl_resolve_grp(sock(), DAMON_PERF_GENL_NAME,
					       DAMON_PERF_GENL_MCGRP_MONITOR);
		if (mcgrp_ < 0)
			return -ENOENT;
	}
	int ret = nl_socket_add_membership(sock_.get(), mcgrp_);
	if (ret == 0)
		return 0;
	return ret == -NLE_PERM ? -EPERM : -EINVAL;
}

} // namespace damonctl
