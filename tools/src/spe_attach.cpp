// SPDX-License-Identifier: GPL-2.0
#include "spe_attach.hpp"

#include <linux/damon_perf.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <string>

#include "errors.hpp"

namespace damonctl {
namespace {

void check(int ret, const char *what)
{
	if (ret < 0)
		throw std::runtime_error(std::string("building AUX_ATTACH: ") +
					 what);
}

uint32_t u32_of(const nlattr *a, const char *what)
{
	if (nla_len(a) != sizeof(uint32_t))
		throw ProtocolError(std::string("AUX_ATTACH: bad ") + what);
	return nla_get_u32(const_cast<nlattr *>(a));
}

uint64_t u64_of(const nlattr *a, const char *what)
{
	if (nla_len(a) != sizeof(uint64_t))
		throw ProtocolError(std::string("AUX_ATTACH: bad ") + what);
	return nla_get_u64(const_cast<nlattr *>(a));
}

} // namespace

void put_aux_attach(nl_msg *msg, const AuxAttachRequest &req)
{
	put_ctx_ref(msg, req.ctx);
	nlattr *nest = nla_nest_start(msg, DAMON_PERF_A_AUX);

	if (!nest)
		check(-1, "nest");
	check(nla_put_u32(msg, DAMON_PERF_AUX_A_CPU, req.cpu), "cpu");
	check(nla_put_u32(msg, DAMON_PERF_AUX_A_FD, req.fd), "fd");
	check(nla_put_u64(msg, DAMON_PERF_AUX_A_USER_PAGE, req.user_page),
	      "user page");
	check(nla_put_u64(msg, DAMON_PERF_AUX_A_AUX_ADDR, req.aux_addr),
	      "AUX address");
	check(nla_put_u64(msg, DAMON_PERF_AUX_A_AUX_SIZE, req.aux_size),
	      "AUX size");
	if (req.pid)
		check(nla_put_u32(msg, DAMON_PERF_AUX_A_PID, *req.pid), "pid");
	check(nla_put_u32(msg, DAMON_PERF_AUX_A_PROBE_IDX, req.probe_idx),
	      "probe index");
	check(nla_nest_end(msg, nest), "nest end");
}

AuxAttachRequest parse_aux_attach(const nlmsghdr *nlh)
{
	nlattr *tb[DAMON_PERF_A_MAX + 1] = {};
	nlattr *aux[DAMON_PERF_AUX_A_MAX + 1] = {};
	AuxAttachRequest req;
	auto *h = const_cast<nlmsghdr *>(nlh);

	if (genlmsg_parse(h, 0, tb, DAMON_PERF_A_MAX, nullptr) < 0)
		throw ProtocolError("AUX_ATTACH: malformed message");
	if (tb[DAMON_PERF_A_CTX_ID])
		req.ctx.id = u32_of(tb[DAMON_PERF_A_CTX_ID], "context id");
	if (tb[DAMON_PERF_A_CTX_NAME])
		req.ctx.name = nla_get_string(tb[DAMON_PERF_A_CTX_NAME]);
	if (!tb[DAMON_PERF_A_AUX] ||
	    nla_parse_nested(aux, DAMON_PERF_AUX_A_MAX, tb[DAMON_PERF_A_AUX],
			     nullptr) < 0)
		throw ProtocolError("AUX_ATTACH: no AUX nest");
	if (!aux[DAMON_PERF_AUX_A_CPU] || !aux[DAMON_PERF_AUX_A_FD] ||
	    !aux[DAMON_PERF_AUX_A_USER_PAGE] ||
	    !aux[DAMON_PERF_AUX_A_AUX_ADDR] || !aux[DAMON_PERF_AUX_A_AUX_SIZE])
		throw ProtocolError("AUX_ATTACH: missing field");
	req.cpu = u32_of(aux[DAMON_PERF_AUX_A_CPU], "cpu");
	req.fd = u32_of(aux[DAMON_PERF_AUX_A_FD], "fd");
	req.user_page = u64_of(aux[DAMON_PERF_AUX_A_USER_PAGE], "user page");
	req.aux_addr = u64_of(aux[DAMON_PERF_AUX_A_AUX_ADDR], "AUX address");
	req.aux_size = u64_of(aux[DAMON_PERF_AUX_A_AUX_SIZE], "AUX size");
	if (aux[DAMON_PERF_AUX_A_PID])
		req.pid = u32_of(aux[DAMON_PERF_AUX_A_PID], "pid");
	if (aux[DAMON_PERF_AUX_A_PROBE_IDX])
		req.probe_idx = u32_of(aux[DAMON_PERF_AUX_A_PROBE_IDX],
				       "probe index");
	return req;
}

} // namespace damonctl
