// SPDX-License-Identifier: GPL-2.0
// damonctl debug (hidden): raw requests for tests of the kernel's input
// validation, joining the "monitor" multicast group, and one LRU_PRIO
// request (lru_prio of a paddr range, for the tests of its ground truth).
#include <linux/netlink.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"

namespace damonctl {

namespace {

struct RawOptions {
	unsigned cmd = 0;
	bool dump = false;
	std::vector<std::string> attrs;
	unsigned version = 1;
	unsigned reserved = 0;
};

struct JoinOptions {
	double wait = 0;
};

struct LruOptions {
	std::string ctx;
	std::string start;
	std::string end;
};

uint64_t number(const std::string &s, const std::string &spec)
{
	char *end = nullptr;
	errno = 0;
	uint64_t v = std::strtoull(s.c_str(), &end, 0);

	if (s.empty() || errno || *end)
		throw UsageError("bad value in attribute '" + spec + "'");
	return v;
}

RawAttr attr_of(const std::string &spec)
{
	auto c1 = spec.find(':');
	if (c1 == std::string::npos)
		throw UsageError("attribute '" + spec +
				 "': expected TYPE:KIND[:VALUE]");
	RawAttr attr;
	attr.type = int(number(spec.substr(0, c1), spec));
	auto c2 = spec.find(':', c1 + 1);
	std::string kind =
		spec.substr(c1 + 1, c2 == std::string::npos ? std::string::npos
							    : c2 - c1 - 1);
	std::string value = c2 == std::string::npos ? "" : spec.substr(c2 + 1);
	std::vector<unsigned char> &out = attr.data;
	auto put = [&](uint64_t v, size_t n) {
		for (size_t i = 0; i < n; i++)
			out.push_back((unsigned char)(v >> (8 * i)));
	};
	if (kind == "u8")
		put(number(value, spec), 1);
	else if (kind == "u16")
		put(number(value, spec), 2);
	else if (kind == "u32")
		put(number(value, spec), 4);
	else if (kind == "u64")
		put(number(value, spec), 8);
	else if (kind == "str") {
		out.assign(value.begin(), value.end());
		out.push_back(0);
	} else if (kind == "strn")
		out.assign(value.begin(), value.end());
	else if (kind == "flag")
		;
	else if (kind == "hex" || kind == "nest") {
		if (kind == "nest")
			attr.type |= NLA_F_NESTED;
		if (value.size() % 2)
			throw UsageError("attribute '" + spec +
					 "': odd number of hex digits");
		for (size_t i = 0; i < value.size(); i += 2)
			out.push_back((unsigned char)number(
				"0x" + value.substr(i, 2), spec));
	} else
		throw UsageError(
			"attribute '" + spec +
			"': kind must be u8, u16, u32, u64, str, "
			"strn, flag, hex or nest (hex with NLA_F_NESTED)");
	return attr;
}

void run_raw(const RawOptions &o, Transport &t)
{
	RawRequest req;

	req.cmd = uint8_t(o.cmd);
	req.dump = o.dump;
	req.version = uint8_t(o.version);
	req.reserved = uint16_t(o.reserved);
	for (const auto &spec : o.attrs)
		req.attrs.push_back(attr_of(spec));
	size_t replies = t.raw_request(req);
	fmt::print("ok ({} replies)\n", replies);
}

void run_join(const JoinOptions &o, Transport &t)
{
	int ret = t.join_monitor_group();

	if (ret)
		throw KernelError(-ret, "joining the monitor group refused");
	fmt::print("joined the monitor group\n");
	if (o.wait > 0) {
		auto agg = t.next_aggregation(int(o.wait * 1000));
		if (!agg)
			throw std::runtime_error("no notification on the "
						 "monitor group");
		fmt::print("received aggregation {} of context {}\n", agg->seq,
			   agg->ctx_id);
	}
}

void run_lru(const LruOptions &o, Transport &t)
{
	uint64_t start = number(o.start, o.start);
	uint64_t end = number(o.end, o.end);
	LruResult r = t.lru_prio(CtxRef::by_name(o.ctx), start, end);

	fmt::print("lru_prio {:#x}-{:#x}: tried {} applied {} skipped {}\n",
		   start, end, r.nr_tried, r.nr_applied, r.nr_skipped);
}

} // namespace

void setup_debug(CLI::App &app, Transport &t)
{
	auto *sub = app.add_subcommand("debug", ""); // hidden: no description
	sub->group("");
	sub->require_subcommand(1);

	auto raw = std::make_shared<RawOptions>();
	auto *r = sub->add_subcommand("raw", "Send one raw request");
	r->add_option("--cmd", raw->cmd, "Command number")->required();
	r->add_flag("--dump", raw->dump, "Send as a dump (NLM_F_DUMP)");
	r->add_option("-a,--attr", raw->attrs,
		      "TYPE:KIND[:VALUE], KIND "
		      "u8|u16|u32|u64|str|strn|flag|hex|nest");
	r->add_option("--version", raw->version, "genlmsghdr.version");
	r->add_option("--reserved", raw->reserved, "genlmsghdr.reserved");
	r->callback([raw, &t] { run_raw(*raw, t); });

	auto lru = std::make_shared<LruOptions>();
	auto *l = sub->add_subcommand(
		"lru-prio", "Mark a paddr range's LRU folios accessed");
	l->add_option("context", lru->ctx, "Context name")->required();
	l->add_option("start", lru->start, "First physical address")
		->required();
	l->add_option("end", lru->end, "One past the last")->required();
	l->callback([lru, &t] { run_lru(*lru, t); });

	auto join = std::make_shared<JoinOptions>();
	auto *j = sub->add_subcommand("join-monitor",
				      "Join the monitor multicast group");
	j->add_option("--wait", join->wait,
		      "Then wait this many seconds for one notification");
	j->callback([join, &t] { run_join(*join, t); });
}

} // namespace damonctl
