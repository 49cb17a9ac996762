// SPDX-License-Identifier: GPL-2.0
// Building and parsing damon_perf generic netlink messages. Pure: no
// socket, so every function runs in unit tests without a kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

struct nl_msg;
struct nlmsghdr;
struct nlattr;

namespace damonctl {

struct NlMsgDeleter {
	void operator()(nl_msg *msg) const;
};
using NlMsg = std::unique_ptr<nl_msg, NlMsgDeleter>;

// Which context a request is about: by id, by name, or both.
struct CtxRef {
	std::optional<uint32_t> id;
	std::optional<std::string> name;
	static CtxRef by_name(const std::string &n)
	{
		return {std::nullopt, n};
	}
	static CtxRef by_id(uint32_t i) { return {i, std::nullopt}; }
};

// A new generic netlink message for @cmd of family @family.
NlMsg new_msg(int family, uint8_t cmd, int flags);
nlmsghdr *msg_hdr(const NlMsg &msg);

// Request attributes.
void put_ctx_ref(nl_msg *msg, const CtxRef &ref);
void put_ctx_new(nl_msg *msg, const std::string &name, Ops ops);
void put_attrs(nl_msg *msg, const Attrs &attrs);
void put_target(nl_msg *msg, const Target &target);
void put_probe(nl_msg *msg, const Probe &probe);
void put_filters(nl_msg *msg, const std::vector<Filter> &filters);
void put_aux(nl_msg *msg, const AuxAttach &aux);
void put_lru(nl_msg *msg, uint64_t start, uint64_t end);
void put_u32_attr(nl_msg *msg, int type, uint32_t value);

// Reply parsing. Unknown attributes are ignored; a known attribute with a
// wrong length throws ProtocolError. The tests decode replies the module
// really sent (tests/user/data/netlink/), so there is no reply encoder.
uint8_t msg_cmd(const nlmsghdr *nlh);
CtxInfo parse_ctx_info(const nlmsghdr *nlh);
// SNAPSHOT_GET dump messages and AGGREGATION notifications: merges into
// @agg (summary and targets from the first message, regions appended).
void parse_aggregation(const nlmsghdr *nlh, Aggregation &agg);
StatsRow parse_stats_row(const nlmsghdr *nlh);
std::optional<uint32_t> parse_probe_idx(const nlmsghdr *nlh);
// The LRU_PRIO reply's lru nest; nullopt without one.
std::optional<LruResult> parse_lru(const nlmsghdr *nlh);

// Extended ack of an NLMSG_ERROR or NLMSG_DONE message.
struct Ack {
	int error = 0; // 0 or a negative errno
	std::string message;
	std::optional<uint32_t> bad_attr_offset;
};
Ack parse_ack(const nlmsghdr *nlh);

} // namespace damonctl

namespace damonctl {

// For `debug raw`: an attribute with arbitrary payload, and header fields.
void put_raw_attr(nl_msg *msg, int type, const void *data, size_t len);
void set_genl_header(nl_msg *msg, uint8_t version, uint16_t reserved);

} // namespace damonctl
