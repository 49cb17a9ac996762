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

} // namespace

Client::Client()
	: sock_(nl_socket_alloc())
{
	int one = 1;

	if (!sock_)
		throw std::system_error(NLE_NOMEM, nl_category(),
					"allocating a netlink socket");
	nl_check(genl_connect(sock_.get()), "connecting to generic netlink");
	nl_socket_enable_msg_peek(sock_.get());
	nl_socket_disable_auto_ack(sock_.get());
	nl_socket_set_buffer_size(sock_.get(), 1 << 20, 0);
	int fd = nl_socket_get_fd(sock_.get());
	// best effort: kernels without them still work, with less detail
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	family_ = genl_ctrl_resolve(sock_.get(), DAMON_PERF_GENL_NAME);
	if (family_ == -NLE_OBJ_NOTFOUND)
		throw ModuleNotLoaded();
	nl_check(family_, "resolving the damon_perf family");
}

NlMsg Client::new_request(uint8_t cmd, bool dump)
{
	return new_msg(family_, cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
}

void Client::transact(NlMsg msg, const ReplyFn &on_reply)
{
	nl_check(nl_send_auto(sock_.get(), msg.get()), "sending a request");
	uint32_t seq = nlmsg_hdr(msg.get())->nlmsg_seq;

	for (;;) {
		sockaddr_nl peer{};
		unsigned char *raw = nullptr;
		int n = nl_recv(sock_.get(), &peer, &raw, nullptr);
		std::unique_ptr<unsigned char, FreeDeleter> buf(raw);

		if (n == -NLE_INTR || n == -NLE_AGAIN)
			continue;
		nl_check(n, "receiving a reply");
		auto *nlh = reinterpret_cast<nlmsghdr *>(buf.get());
		for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
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
	auto msg = new_request(DAMON_PERF_CMD_CTX_DEL);

	put_ctx_ref(msg.get(), ref);
	transact(std::move(msg));
}

CtxInfo Client::ctx_get(const CtxRef &ref)
{
	auto msg = new_request(DAMON_PERF_CMD_CTX_GET);
	std::optional<CtxInfo> info;

	put_ctx_ref(msg.get(), ref);
	transact(std::move(msg),
		 [&](const nlmsghdr *nlh) { info = parse_ctx_info(nlh); });
	if (!info)
		throw ProtocolError("CTX_GET: no reply");
	return *info;
}

std::vector<CtxInfo> Client::ctx_list()
{
	std::vector<CtxInfo> list;

	transact(new_request(DAMON_PERF_CMD_CTX_GET, true),
		 [&](const nlmsghdr *nlh) {
			 list.push_back(parse_ctx_info(nlh));
		 });
	return list;
}

void Client::set_attrs(const CtxRef &ref, const Attrs &attrs)
{
	auto msg = new_request(DAMON_PERF_CMD_SET_ATTRS);

	put_ctx_ref(msg.get(), ref);
	put_attrs(msg.get(), attrs);
	transact(std::move(msg));
}

void Client::target_add(const CtxRef &ref, const Target &target)
{
	auto msg = new_request(DAMON_PERF_CMD_TARGET_ADD);

	put_ctx_ref(msg.get(), ref);
	put_target(msg.get(), target);
	transact(std::move(msg));
}

void Client::target_del(const CtxRef &ref, uint32_t target_id)
{
	auto msg = new_request(DAMON_PERF_CMD_TARGET_DEL);

	put_ctx_ref(msg.get(), ref);
	put_u32_attr(msg.get(), DAMON_PERF_A_TARGET_ID, target_id);
	transact(std::move(msg));
}

uint32_t Client::probe_add(const CtxRef &ref, const Probe &probe)
{
	auto msg = new_request(DAMON_PERF_CMD_PROBE_ADD);
	std::optional<uint32_t> idx;

	put_ctx_ref(msg.get(), ref);
	Probe p = probe;
	p.idx = 0;
	put_probe(msg.get(), p);
	transact(std::move(msg),
		 [&](const nlmsghdr *nlh) { idx = parse_probe_idx(nlh); });
	return idx.value_or(0);
}

void Client::probe_del(const CtxRef &ref, uint32_t idx)
{
	auto msg = new_request(DAMON_PERF_CMD_PROBE_DEL);

	put_ctx_ref(msg.get(), ref);
	put_u32_attr(msg.get(), DAMON_PERF_A_PROBE_IDX, idx);
	transact(std::move(msg));
}

void Client::set_filters(const CtxRef &ref, const std::vector<Filter> &filters)
{
	auto msg = new_request(DAMON_PERF_CMD_SET_FILTERS);

	put_ctx_ref(msg.get(), ref);
	put_filters(msg.get(), filters);
	transact(std::move(msg));
}

void Client::start(const CtxRef &ref)
{
	auto msg = new_request(DAMON_PERF_CMD_START);

	put_ctx_ref(msg.get(), ref);
	transact(std::move(msg));
}

void Client::stop(const CtxRef &ref)
{
	auto msg = new_request(DAMON_PERF_CMD_STOP);

	put_ctx_ref(msg.get(), ref);
	transact(std::move(msg));
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
	std::vector<StatsRow> rows;

	transact(new_request(DAMON_PERF_CMD_STATS_GET, true),
		 [&](const nlmsghdr *nlh) {
			 rows.push_back(parse_stats_row(nlh));
		 });
	return rows;
}

void Client::aux_attach(const CtxRef &ref, const AuxAttach &aux)
{
	auto msg = new_request(DAMON_PERF_CMD_AUX_ATTACH);

	put_ctx_ref(msg.get(), ref);
	put_aux(msg.get(), aux);
	transact(std::move(msg));
}

void Client::subscribe()
{
	transact(new_request(DAMON_PERF_CMD_MONITOR_SUBSCRIBE));
}

void Client::unsubscribe()
{
	transact(new_request(DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE));
}

std::optional<Aggregation> Client::next_aggregation(int timeout_ms)
{
	pollfd pfd{nl_socket_get_fd(sock_.get()), POLLIN, 0};

	for (;;) {
		int ret = poll(&pfd, 1, timeout_ms);

		if (ret < 0 && errno == EINTR)
			return std::nullopt;
		if (ret < 0)
			throw std::system_error(errno, std::generic_category(),
						"waiting for notifications");
		if (ret == 0)
			return std::nullopt;

		sockaddr_nl peer{};
		unsigned char *raw = nullptr;
		int n = nl_recv(sock_.get(), &peer, &raw, nullptr);
		std::unique_ptr<unsigned char, FreeDeleter> buf(raw);

		if (n == -NLE_INTR || n == -NLE_AGAIN)
			continue;
		nl_check(n, "receiving a notification");
		auto *nlh = reinterpret_cast<nlmsghdr *>(buf.get());
		for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_type != family_ ||
			    msg_cmd(nlh) != DAMON_PERF_CMD_AGGREGATION)
				continue;
			Aggregation agg;
			parse_aggregation(nlh, agg);
			return agg;
		}
	}
}

int Client::join_monitor_group()
{
	if (mcgrp_ < 0) {
		mcgrp_ =
			genl_ctrl_resolve_grp(sock_.get(), DAMON_PERF_GENL_NAME,
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
