// SPDX-License-Identifier: GPL-2.0
// Netlink messages without a kernel: the replies the module really sent
// (tests/user/data/netlink/*.hex, captured by tests/vm/nlcapture.c, see
// capture.sh there) decoded field by field, requests as the kernel would
// see them, extended acks, and malformed input.
#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <linux/damon_perf.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "codec.hpp"
#include "errors.hpp"
#include "render.hpp"

using namespace damonctl;

namespace {

const int FAMILY = 0x1234;

CtxInfo sample_ctx()
{
	CtxInfo c;

	c.id = 3;
	c.name = "web";
	c.ops = Ops::paddr;
	c.state = CtxState::running;
	c.attrs.sample_us = 5000;
	c.attrs.aggr_us = 100000;
	c.attrs.update_us = 1000000;
	c.attrs.min_nr_regions = 10;
	c.attrs.max_nr_regions = 1000;
	c.attrs.mode = Mode::count;
	c.attrs.ring_size = 4096;
	c.attrs.split = Split::random;
	c.attrs.cpu_budget = 50;
	Target t;
	t.id = 1;
	t.start = 0x100000000;
	t.end = 0x140000000;
	t.nr_regions = 12;
	c.targets.push_back(t);
	Target d;
	d.id = 2;
	d.pid = 77;
	d.dead = true;
	c.targets.push_back(d);
	Probe p;
	p.idx = 1;
	p.type = 4;
	p.config = 0x1cd;
	p.config1 = 30;
	p.config2 = 0xfff;
	p.sample_period = 1000;
	p.freq = true;
	p.wakeup_events = 5;
	p.weight = 3;
	p.precise_ip = 3;
	p.sample_phys_addr = true;
	p.sample_weight_struct = true;
	p.exclude_kernel = true;
	p.exclude_hv = true;
	p.exclude_user = true;
	p.effective_period = 1ULL << 40;
	c.probes.push_back(p);
	Filter f1;
	f1.type = FilterType::cpumask;
	f1.cpus = "0-3";
	f1.allow = true;
	Filter f2;
	f2.type = FilterType::tid;
	f2.tids = {5, 6};
	f2.allow = false;
	c.filters = {f1, f2};
	c.arm_failures = 2;
	c.stale_drops = 1ULL << 40;
	BudgetInfo b;
	b.cost = 12345;
	b.handler_ns = 1ULL << 41;
	b.drain_ns = 7;
	b.raises = 3;
	b.lowers = 2;
	b.refused = 4;
	c.budget = b;
	return c;
}

// The datagrams of one captured exchange (tests/user/data/netlink/NAME.hex:
// hex, any line length), split into its messages.
struct Capture {
	std::vector<unsigned char> bytes;
	std::vector<const nlmsghdr *> msgs;
};

Capture capture(const std::string &name)
{
	std::string path =
		std::string(DAMONCTL_TEST_DATA) + "/netlink/" + name + ".hex";
	std::ifstream in(path);
	std::string line, hex;
	Capture c;

	EXPECT_TRUE(in.good()) << path;
	while (std::getline(in, line))
		hex += line;
	for (size_t i = 0; i + 1 < hex.size(); i += 2)
		c.bytes.push_back(static_cast<unsigned char>(
			std::stoul(hex.substr(i, 2), nullptr, 16)));
	auto *h = reinterpret_cast<const nlmsghdr *>(c.bytes.data());
	int left = int(c.bytes.size());
	while (NLMSG_OK(h, left)) {
		c.msgs.push_back(h);
		h = NLMSG_NEXT(h, left);
	}
	EXPECT_EQ(left, 0) << path << ": bytes after the last message";
	EXPECT_FALSE(c.msgs.empty()) << path;
	return c;
}

// The context of the capture (ctx_new.hex): its id and the target's pid
// (ctx_get_dump.hex) recur in the other captures.
uint32_t captured_ctx_id()
{
	return parse_ctx_info(capture("ctx_new").msgs.at(0)).id;
}

// Regions as the kernel keeps them: non-empty, ordered, not overlapping.
void expect_ordered(const std::vector<Region> &regions)
{
	for (size_t i = 0; i < regions.size(); i++) {
		EXPECT_LT(regions[i].start, regions[i].end) << i;
		if (i) {
			EXPECT_LE(regions[i - 1].end, regions[i].start) << i;
		}
	}
}

// The last message of a dump: NLMSG_DONE without an error.
void expect_done(const nlmsghdr *nlh)
{
	EXPECT_EQ(nlh->nlmsg_type, NLMSG_DONE);
	EXPECT_EQ(parse_ack(nlh).error, 0);
}

// A kernel-style error ack for @req with extack message @msg.
std::vector<unsigned char> error_ack(const nlmsghdr *req, int err,
				     const char *msg, bool capped)
{
	size_t payload = capped ? NLMSG_HDRLEN : NLMSG_ALIGN(req->nlmsg_len);
	size_t msglen = std::strlen(msg) + 1;
	size_t tlv = NLA_ALIGN(NLA_HDRLEN + msglen);
	size_t total = NLMSG_HDRLEN + sizeof(int) + payload + tlv;
	std::vector<unsigned char> buf(total, 0);
	auto *nlh = reinterpret_cast<nlmsghdr *>(buf.data());

	nlh->nlmsg_len = uint32_t(total);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0);
	nlh->nlmsg_seq = req->nlmsg_seq;
	std::memcpy(buf.data() + NLMSG_HDRLEN, &err, sizeof(err));
	std::memcpy(buf.data() + NLMSG_HDRLEN + sizeof(int), req,
		    capped ? NLMSG_HDRLEN : req->nlmsg_len);
	auto *nla = reinterpret_cast<nlattr *>(buf.data() + NLMSG_HDRLEN +
					       sizeof(int) + payload);
	nla->nla_type = NLMSGERR_ATTR_MSG;
	nla->nla_len = uint16_t(NLA_HDRLEN + msglen);
	std::memcpy(reinterpret_cast<char *>(nla) + NLA_HDRLEN, msg, msglen);
	return buf;
}

// The attributes of a request, as the kernel's nla_parse would index them.
std::map<int, std::vector<nlattr *>> top_attrs(const NlMsg &msg)
{
	std::map<int, std::vector<nlattr *>> out;
	auto *gnlh = static_cast<genlmsghdr *>(nlmsg_data(msg_hdr(msg)));
	nlattr *pos;
	int rem;

	nla_for_each_attr (pos, genlmsg_attrdata(gnlh, 0),
			   genlmsg_attrlen(gnlh, 0), rem)
		out[nla_type(pos)].push_back(pos);
	return out;
}

// A SET_ATTRS request carrying @a, and its ATTRS nest as the kernel's
// nla_parse_nested() would index it (every slot null without the nest).
struct AttrsRequest {
	NlMsg msg;
	std::array<nlattr *, DAMON_PERF_ATTRS_A_MAX + 1> tb{};
};

AttrsRequest attrs_request(const Attrs &a)
{
	AttrsRequest r{new_msg(FAMILY, DAMON_PERF_CMD_SET_ATTRS, NLM_F_ACK)};

	put_attrs(r.msg.get(), a);
	auto attrs = top_attrs(r.msg);
	auto nest = attrs.find(DAMON_PERF_A_ATTRS);
	EXPECT_TRUE(nest != attrs.end()) << "no ATTRS nest";
	if (nest != attrs.end()) {
		EXPECT_EQ(nla_parse_nested(r.tb.data(), DAMON_PERF_ATTRS_A_MAX,
					   nest->second[0], nullptr),
			  0);
	}
	return r;
}

} // namespace

TEST(Codec, NewMessageCarriesFamilyCommandAndVersion)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_START, NLM_F_ACK);
	nlmsghdr *nlh = msg_hdr(msg);
	auto *gnlh = static_cast<genlmsghdr *>(nlmsg_data(nlh));

	EXPECT_EQ(nlh->nlmsg_type, FAMILY);
	EXPECT_TRUE(nlh->nlmsg_flags & NLM_F_ACK);
	EXPECT_EQ(gnlh->cmd, DAMON_PERF_CMD_START);
	EXPECT_EQ(gnlh->version, DAMON_PERF_GENL_VERSION);
	EXPECT_EQ(gnlh->reserved, 0);
	EXPECT_EQ(msg_cmd(nlh), DAMON_PERF_CMD_START);
}

TEST(Codec, CtxInfoWithoutIdIsMalformed)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	nla_put_string(msg.get(), DAMON_PERF_A_CTX_NAME, "x");
	EXPECT_THROW(parse_ctx_info(msg_hdr(msg)), ProtocolError);
}

TEST(Codec, WrongAttributeLengthIsMalformed)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	nla_put_u16(msg.get(), DAMON_PERF_A_CTX_ID, 3); // u32 expected
	EXPECT_THROW(parse_ctx_info(msg_hdr(msg)), ProtocolError);
}

TEST(Codec, UnterminatedStringIsMalformed)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	nla_put_u32(msg.get(), DAMON_PERF_A_CTX_ID, 1);
	nla_put(msg.get(), DAMON_PERF_A_CTX_NAME, 3, "abc");
	EXPECT_THROW(parse_ctx_info(msg_hdr(msg)), ProtocolError);
}

TEST(Captured, CtxNewReplyIsTheNewContext)
{
	Capture c = capture("ctx_new");

	ASSERT_EQ(c.msgs.size(), 2u); // the reply, the ack
	// the reply carries its request's command (YNL matches on it)
	EXPECT_EQ(msg_cmd(c.msgs[0]), DAMON_PERF_CMD_CTX_NEW);
	CtxInfo ctx = parse_ctx_info(c.msgs[0]);
	EXPECT_GE(ctx.id, 1u);
	EXPECT_EQ(ctx.name, "capture");
	EXPECT_EQ(ctx.ops, Ops::vaddr);
	EXPECT_EQ(ctx.state, CtxState::configured);
	// a new context: the module's defaults, nothing added yet
	EXPECT_EQ(ctx.attrs.ring_size, uint32_t(DAMON_PERF_RING_SIZE_DEF));
	EXPECT_EQ(ctx.attrs.mode, Mode::presence);
	EXPECT_EQ(ctx.attrs.split, Split::samples);
	ASSERT_TRUE(ctx.attrs.sample_us && ctx.attrs.aggr_us &&
		    ctx.attrs.update_us);
	EXPECT_GE(*ctx.attrs.sample_us, uint64_t(DAMON_PERF_SAMPLE_US_MIN));
	EXPECT_LE(*ctx.attrs.sample_us, *ctx.attrs.aggr_us);
	ASSERT_TRUE(ctx.attrs.min_nr_regions && ctx.attrs.max_nr_regions);
	EXPECT_GE(*ctx.attrs.min_nr_regions,
		  uint32_t(DAMON_PERF_NR_REGIONS_MIN));
	EXPECT_LE(*ctx.attrs.min_nr_regions, *ctx.attrs.max_nr_regions);
	EXPECT_TRUE(ctx.targets.empty());
	EXPECT_TRUE(ctx.probes.empty());
	EXPECT_TRUE(ctx.filters.empty());
	EXPECT_EQ(ctx.arm_failures, 0u);
	EXPECT_EQ(ctx.stale_drops, 0u);
	ASSERT_TRUE(ctx.budget);
	EXPECT_EQ(ctx.budget->raises, 0u);
	Ack ack = parse_ack(c.msgs[1]);
	EXPECT_EQ(ack.error, 0);
	EXPECT_TRUE(ack.message.empty());
}

TEST(Captured, CtxGetDumpIsTheRunningContext)
{
	Capture c = capture("ctx_get_dump");

	ASSERT_EQ(c.msgs.size(), 2u); // one context, NLMSG_DONE
	EXPECT_EQ(msg_cmd(c.msgs[0]), DAMON_PERF_CMD_CTX_GET);
	EXPECT_TRUE(c.msgs[0]->nlmsg_flags & NLM_F_MULTI);
	CtxInfo ctx = parse_ctx_info(c.msgs[0]);
	EXPECT_EQ(ctx.id, captured_ctx_id());
	EXPECT_EQ(ctx.name, "capture");
	EXPECT_EQ(ctx.state, CtxState::running);
	// what nlcapture set
	EXPECT_EQ(ctx.attrs.sample_us, 5000u);
	EXPECT_EQ(ctx.attrs.aggr_us, 100000u);
	EXPECT_EQ(ctx.attrs.update_us, 1000000u);
	EXPECT_EQ(ctx.attrs.min_nr_regions, 10u);
	EXPECT_EQ(ctx.attrs.max_nr_regions, 100u);
	ASSERT_EQ(ctx.targets.size(), 1u);
	EXPECT_EQ(ctx.targets[0].id, 1u);
	ASSERT_TRUE(ctx.targets[0].pid);
	EXPECT_GT(*ctx.targets[0].pid, 1u);
	EXPECT_FALSE(ctx.targets[0].start || ctx.targets[0].end);
	EXPECT_FALSE(ctx.targets[0].dead);
	EXPECT_GE(ctx.targets[0].nr_regions, 10u);
	EXPECT_LE(ctx.targets[0].nr_regions, 100u);
	ASSERT_EQ(ctx.probes.size(), 1u);
	const Probe &p = ctx.probes[0];
	EXPECT_EQ(p.idx, 1u);
	EXPECT_EQ(p.type, 1u);   // PERF_TYPE_SOFTWARE
	EXPECT_EQ(p.config, 2u); // PERF_COUNT_SW_PAGE_FAULTS
	EXPECT_EQ(p.sample_period, 1u);
	EXPECT_TRUE(p.exclude_kernel);
	EXPECT_FALSE(p.freq || p.exclude_user || p.sample_phys_addr);
	EXPECT_TRUE(ctx.filters.empty());
	expect_done(c.msgs[1]);
}

TEST(Captured, UnknownAttributesAreIgnored)
{
	// the captured context with an attribute from a newer kernel appended
	Capture c = capture("ctx_new");
	const nlmsghdr *orig = c.msgs.at(0);
	std::vector<unsigned char> buf(
		reinterpret_cast<const unsigned char *>(orig),
		reinterpret_cast<const unsigned char *>(orig) +
			orig->nlmsg_len);
	unsigned char extra[12] = {12, 0, 200, 0, 7};

	buf.insert(buf.end(), extra, extra + sizeof(extra));
	auto *nlh = reinterpret_cast<nlmsghdr *>(buf.data());
	nlh->nlmsg_len = uint32_t(buf.size());
	EXPECT_EQ(parse_ctx_info(nlh), parse_ctx_info(orig));
}

TEST(Captured, AggregationNotificationCarriesItsRegions)
{
	Capture c = capture("aggregation");
	Aggregation agg;

	ASSERT_EQ(c.msgs.size(), 1u);
	EXPECT_EQ(msg_cmd(c.msgs[0]), DAMON_PERF_CMD_AGGREGATION);
	parse_aggregation(c.msgs[0], agg);
	EXPECT_EQ(agg.ctx_id, captured_ctx_id());
	EXPECT_EQ(agg.ctx_name, "capture");
	EXPECT_GE(agg.seq, 1u);
	EXPECT_GT(agg.time_ns, 0u);
	// the interval it covered: at least the 100 ms set
	EXPECT_GE(agg.aggr_us, 100000u);
	EXPECT_FALSE(agg.truncated);
	// min 10, max 100 regions, every one sent
	EXPECT_GE(agg.nr_regions, 10u);
	EXPECT_LE(agg.nr_regions, 100u);
	ASSERT_EQ(agg.regions.size(), agg.nr_regions);
	expect_ordered(agg.regions);
	for (const Region &r : agg.regions) {
		EXPECT_EQ(r.target_id, 1u);
		// a count per probe slot (probe-idx 1 to 3); only probe 1 is
		// there
		ASSERT_EQ(r.probe_hits.size(), 3u);
		EXPECT_EQ(r.probe_hits[1], 0u);
		EXPECT_EQ(r.probe_hits[2], 0u);
	}
}

TEST(Captured, TruncatedNotificationKeepsTheSummary)
{
	Capture c = capture("aggregation_trunc");
	Aggregation agg;

	ASSERT_EQ(c.msgs.size(), 1u);
	parse_aggregation(c.msgs[0], agg);
	EXPECT_EQ(agg.ctx_id, captured_ctx_id());
	EXPECT_TRUE(agg.truncated);
	// 300 to 400 regions do not fit one notification: none is sent
	EXPECT_GE(agg.nr_regions, 300u);
	EXPECT_LE(agg.nr_regions, 400u);
	EXPECT_TRUE(agg.regions.empty());
}

TEST(Captured, SnapshotDumpMergesAcrossMessages)
{
	Capture c = capture("snapshot_dump");
	Capture trunc = capture("aggregation_trunc");
	CtxInfo ctx = parse_ctx_info(capture("ctx_get_dump").msgs.at(0));
	Aggregation agg, first, before;

	// the summary and the target first, then the regions over several
	// messages, then NLMSG_DONE
	ASSERT_GE(c.msgs.size(), 3u);
	for (size_t i = 0; i + 1 < c.msgs.size(); i++) {
		EXPECT_EQ(msg_cmd(c.msgs[i]), DAMON_PERF_CMD_SNAPSHOT_GET);
		parse_aggregation(c.msgs[i], agg);
	}
	expect_done(c.msgs.back());
	parse_aggregation(c.msgs[0], first);
	EXPECT_LT(first.regions.size(), agg.regions.size());
	EXPECT_EQ(agg.ctx_id, ctx.id);
	ASSERT_EQ(agg.targets.size(), 1u);
	EXPECT_EQ(agg.targets[0].id, 1u);
	EXPECT_EQ(agg.targets[0].pid, ctx.targets.at(0).pid);
	EXPECT_EQ(agg.targets[0].nr_regions, agg.nr_regions);
	EXPECT_GE(agg.nr_regions, 300u);
	EXPECT_LE(agg.nr_regions, 400u);
	ASSERT_EQ(agg.regions.size(), agg.nr_regions);
	expect_ordered(agg.regions);
	parse_aggregation(trunc.msgs.at(0), before);
	EXPECT_GE(agg.seq, before.seq);
	EXPECT_GE(agg.time_ns, before.time_ns);
}

TEST(Captured, StatsDumpHasARowPerCpuAndTheTotal)
{
	Capture c = capture("stats_dump");
	std::vector<StatsRow> rows;

	ASSERT_GE(c.msgs.size(), 3u);
	for (size_t i = 0; i + 1 < c.msgs.size(); i++) {
		EXPECT_EQ(msg_cmd(c.msgs[i]), DAMON_PERF_CMD_STATS_GET);
		rows.push_back(parse_stats_row(c.msgs[i]));
	}
	expect_done(c.msgs.back());
	// the CPUs in order, then the total
	for (size_t i = 0; i + 1 < rows.size(); i++)
		EXPECT_EQ(rows[i].cpu, uint32_t(i));
	const StatsRow &total = rows.back();
	EXPECT_FALSE(total.cpu);
	ASSERT_FALSE(total.counters.empty());
	for (size_t i = 0; i + 1 < rows.size(); i++) {
		EXPECT_FALSE(rows[i].state_name.empty());
		// the same counters in the same order in every row
		ASSERT_EQ(rows[i].counters.size(), total.counters.size());
		for (size_t k = 0; k < total.counters.size(); k++)
			EXPECT_EQ(rows[i].counters[k].first,
				  total.counters[k].first);
	}
	// samples were taken: some counter is not zero
	EXPECT_TRUE(std::any_of(total.counters.begin(), total.counters.end(),
				[](const auto &kv) { return kv.second > 0; }));
}

TEST(Captured, ProbeAddReplyIsTheIndex)
{
	Capture c = capture("probe_add");

	ASSERT_EQ(c.msgs.size(), 2u);
	EXPECT_EQ(msg_cmd(c.msgs[0]), DAMON_PERF_CMD_PROBE_ADD);
	EXPECT_EQ(parse_probe_idx(c.msgs[0]), 1u);
	EXPECT_EQ(parse_ack(c.msgs[1]).error, 0);
}

TEST(Captured, ErrorAckCarriesTheExtack)
{
	Capture c = capture("error_ack");

	ASSERT_EQ(c.msgs.size(), 1u);
	EXPECT_EQ(c.msgs[0]->nlmsg_type, NLMSG_ERROR);
	// NETLINK_CAP_ACK, as damonctl sets it: the request is not echoed
	EXPECT_TRUE(c.msgs[0]->nlmsg_flags & NLM_F_CAPPED);
	Ack ack = parse_ack(c.msgs[0]);
	EXPECT_EQ(ack.error, -ENOENT);
	EXPECT_EQ(ack.message, "no such context");
	// the offset of the context name in the request
	ASSERT_TRUE(ack.bad_attr_offset);
	EXPECT_EQ(*ack.bad_attr_offset, uint32_t(NLMSG_HDRLEN + GENL_HDRLEN));
}

TEST(Codec, ProbeIndexReply)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_PROBE_ADD, 0);

	EXPECT_FALSE(parse_probe_idx(msg_hdr(msg)));
	nla_put_u32(msg.get(), DAMON_PERF_A_PROBE_IDX, 2);
	EXPECT_EQ(parse_probe_idx(msg_hdr(msg)), 2u);
}

TEST(Codec, RequestsCarryWhatTheKernelPolicyExpects)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_PROBE_ADD, NLM_F_ACK);
	Probe p = sample_ctx().probes[0];

	put_ctx_ref(msg.get(), CtxRef::by_name("web"));
	put_probe(msg.get(), p);
	auto attrs = top_attrs(msg);

	ASSERT_EQ(attrs[DAMON_PERF_A_CTX_NAME].size(), 1u);
	EXPECT_STREQ(
		static_cast<char *>(nla_data(attrs[DAMON_PERF_A_CTX_NAME][0])),
		"web");
	EXPECT_EQ(attrs.count(DAMON_PERF_A_CTX_ID), 0u);
	ASSERT_EQ(attrs[DAMON_PERF_A_PROBE].size(), 1u);

	nlattr *tb[DAMON_PERF_PROBE_A_MAX + 1];
	ASSERT_EQ(nla_parse_nested(tb, DAMON_PERF_PROBE_A_MAX,
				   attrs[DAMON_PERF_A_PROBE][0], nullptr),
		  0);
	EXPECT_EQ(nla_len(tb[DAMON_PERF_PROBE_A_TYPE]), 4);
	EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_PROBE_A_TYPE]), 4u);
	EXPECT_EQ(nla_len(tb[DAMON_PERF_PROBE_A_CONFIG]), 8);
	EXPECT_EQ(nla_get_u64(tb[DAMON_PERF_PROBE_A_CONFIG1]), 30u);
	EXPECT_EQ(nla_len(tb[DAMON_PERF_PROBE_A_PRECISE_IP]), 1);
	EXPECT_EQ(nla_len(tb[DAMON_PERF_PROBE_A_FREQ]), 0);
	EXPECT_TRUE(tb[DAMON_PERF_PROBE_A_EXCLUDE_HV]);
	EXPECT_TRUE(tb[DAMON_PERF_PROBE_A_EXCLUDE_USER]);
	// the reply-only index is not sent: the kernel would reject it
	Probe q = p;
	q.idx = 0;
	NlMsg m2 = new_msg(FAMILY, DAMON_PERF_CMD_PROBE_ADD, NLM_F_ACK);
	put_probe(m2.get(), q);
	auto a2 = top_attrs(m2);
	ASSERT_EQ(nla_parse_nested(tb, DAMON_PERF_PROBE_A_MAX,
				   a2[DAMON_PERF_A_PROBE][0], nullptr),
		  0);
	EXPECT_FALSE(tb[DAMON_PERF_PROBE_A_IDX]);
}

TEST(Codec, FiltersNestOneEntryPerFilterAndOneAttributePerTid)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_SET_FILTERS, NLM_F_ACK);
	std::vector<Filter> filters = sample_ctx().filters;

	put_filters(msg.get(), filters);
	auto attrs = top_attrs(msg);
	ASSERT_EQ(attrs[DAMON_PERF_A_FILTERS].size(), 1u);

	std::vector<nlattr *> entries;
	nlattr *pos;
	int rem;
	nla_for_each_nested (pos, attrs[DAMON_PERF_A_FILTERS][0], rem) {
		EXPECT_EQ(nla_type(pos), DAMON_PERF_FILTERS_A_FILTER);
		entries.push_back(pos);
	}
	ASSERT_EQ(entries.size(), 2u);
	int tids = 0;
	nla_for_each_nested (pos, entries[1], rem)
		tids += nla_type(pos) == DAMON_PERF_FILTER_A_TID;
	EXPECT_EQ(tids, 2);
}

TEST(Codec, EmptyFilterListIsAnEmptyNest)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_SET_FILTERS, NLM_F_ACK);

	put_filters(msg.get(), {});
	auto attrs = top_attrs(msg);
	ASSERT_EQ(attrs[DAMON_PERF_A_FILTERS].size(), 1u);
	EXPECT_EQ(nla_len(attrs[DAMON_PERF_A_FILTERS][0]), 0);
}

TEST(Codec, AttrsSendOnlyWhatIsSet)
{
	Attrs a;
	a.aggr_us = 200000;

	auto req = attrs_request(a);
	const auto &tb = req.tb;
	for (int i = 0; i <= DAMON_PERF_ATTRS_A_MAX; i++)
		EXPECT_EQ(tb[i] != nullptr, i == DAMON_PERF_ATTRS_A_AGGR_US)
			<< i;
}

TEST(Codec, CpuBudgetIsAU32AttributeOfTheAttrsNestAndZeroIsSent)
{
	for (uint32_t v : {0u, 1u, 50u, uint32_t(DAMON_PERF_CPU_BUDGET_MAX)}) {
		Attrs a;
		a.cpu_budget = v;

		auto req = attrs_request(a);
		const auto &tb = req.tb;
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_CPU_BUDGET], nullptr) << v;
		EXPECT_EQ(nla_len(tb[DAMON_PERF_ATTRS_A_CPU_BUDGET]), 4);
		EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_ATTRS_A_CPU_BUDGET]), v);
		EXPECT_EQ(tb[DAMON_PERF_ATTRS_A_SPLIT], nullptr);
	}
}

TEST(Codec, IntervalsGoalAttributesHaveTheSpecsTypesAndZeroIsSent)
{
	for (uint32_t goal : {0u, 1u, uint32_t(DAMON_PERF_SAMPLES_GOAL_MAX)}) {
		Attrs a;
		a.samples_goal = goal;
		a.goal_aggrs = uint32_t(DAMON_PERF_GOAL_AGGRS_MAX);
		a.min_aggr_us = 0;
		a.max_aggr_us = uint64_t(DAMON_PERF_INTERVAL_US_MAX);

		auto req = attrs_request(a);
		const auto &tb = req.tb;
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_SAMPLES_GOAL], nullptr);
		EXPECT_EQ(nla_len(tb[DAMON_PERF_ATTRS_A_SAMPLES_GOAL]), 4);
		EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_ATTRS_A_SAMPLES_GOAL]),
			  goal);
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_GOAL_AGGRS], nullptr);
		EXPECT_EQ(nla_len(tb[DAMON_PERF_ATTRS_A_GOAL_AGGRS]), 4);
		EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_ATTRS_A_GOAL_AGGRS]),
			  uint32_t(DAMON_PERF_GOAL_AGGRS_MAX));
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_MIN_AGGR_US], nullptr);
		EXPECT_EQ(nla_len(tb[DAMON_PERF_ATTRS_A_MIN_AGGR_US]), 8);
		EXPECT_EQ(nla_get_u64(tb[DAMON_PERF_ATTRS_A_MIN_AGGR_US]), 0u);
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_MAX_AGGR_US], nullptr);
		EXPECT_EQ(nla_get_u64(tb[DAMON_PERF_ATTRS_A_MAX_AGGR_US]),
			  uint64_t(DAMON_PERF_INTERVAL_US_MAX));
		EXPECT_EQ(tb[DAMON_PERF_ATTRS_A_AGGR_US], nullptr);
	}
}

TEST(Codec, CtxReplyCarriesTheTuningAndTheGoal)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	nla_put_u32(msg.get(), DAMON_PERF_A_CTX_ID, 4);
	nlattr *an = nla_nest_start(msg.get(), DAMON_PERF_A_ATTRS);
	nla_put_u32(msg.get(), DAMON_PERF_ATTRS_A_SAMPLES_GOAL, 200);
	nla_put_u32(msg.get(), DAMON_PERF_ATTRS_A_GOAL_AGGRS, 5);
	nla_put_u64(msg.get(), DAMON_PERF_ATTRS_A_MIN_AGGR_US, 50000);
	nla_put_u64(msg.get(), DAMON_PERF_ATTRS_A_MAX_AGGR_US, 1ULL << 33);
	nla_nest_end(msg.get(), an);
	nlattr *tn = nla_nest_start(msg.get(), DAMON_PERF_A_TUNING);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_AGGR_US, 400000);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_MIN_AGGR_US, 50000);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_MAX_AGGR_US, 1ULL << 33);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_SAMPLES, 1ULL << 40);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_STEPS, 9);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_UPS, 3);
	nla_put_u64(msg.get(), DAMON_PERF_TUNING_A_DOWNS, 1);
	nla_put_u32(msg.get(), DAMON_PERF_TUNING_A_PERIOD_DIV, 65536);
	nla_nest_end(msg.get(), tn);

	CtxInfo c = parse_ctx_info(msg_hdr(msg));
	EXPECT_EQ(c.attrs.samples_goal, 200u);
	EXPECT_EQ(c.attrs.goal_aggrs, 5u);
	EXPECT_EQ(c.attrs.min_aggr_us, 50000u);
	EXPECT_EQ(c.attrs.max_aggr_us, 1ULL << 33);
	ASSERT_TRUE(c.tuning);
	TuningInfo want;
	want.aggr_us = 400000;
	want.min_aggr_us = 50000;
	want.max_aggr_us = 1ULL << 33;
	want.samples = 1ULL << 40;
	want.steps = 9;
	want.ups = 3;
	want.downs = 1;
	want.period_div = 65536;
	EXPECT_TRUE(*c.tuning == want);

	// a u32 where the spec says u64 is malformed
	NlMsg bad = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);
	nla_put_u32(bad.get(), DAMON_PERF_A_CTX_ID, 4);
	nlattr *bn = nla_nest_start(bad.get(), DAMON_PERF_A_TUNING);
	nla_put_u32(bad.get(), DAMON_PERF_TUNING_A_AGGR_US, 1);
	nla_nest_end(bad.get(), bn);
	EXPECT_THROW(parse_ctx_info(msg_hdr(bad)), ProtocolError);
}

TEST(Codec, SplitModeIsAU32AttributeOfTheAttrsNest)
{
	for (Split s : {Split::samples, Split::random}) {
		Attrs a;
		a.split = s;

		auto req = attrs_request(a);
		const auto &tb = req.tb;
		ASSERT_NE(tb[DAMON_PERF_ATTRS_A_SPLIT], nullptr);
		EXPECT_EQ(nla_len(tb[DAMON_PERF_ATTRS_A_SPLIT]), 4);
		EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_ATTRS_A_SPLIT]),
			  static_cast<uint32_t>(s));
		EXPECT_EQ(tb[DAMON_PERF_ATTRS_A_MODE], nullptr);
	}
	EXPECT_EQ(DAMON_PERF_SPLIT_SAMPLES, 0);
	EXPECT_EQ(DAMON_PERF_SPLIT_RANDOM, 1);
}

TEST(Codec, AuxAttachCarriesEveryField)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_AUX_ATTACH, NLM_F_ACK);
	AuxAttach aux;
	aux.cpu = 1;
	aux.fd = 7;
	aux.user_page = 0x7f0000000000;
	aux.aux_addr = 0x7f0000100000;
	aux.aux_size = 1 << 20;
	aux.pid = 42;
	aux.probe_idx = 2;

	put_aux(msg.get(), aux);
	auto attrs = top_attrs(msg);
	ASSERT_EQ(attrs[DAMON_PERF_A_AUX].size(), 1u);
	EXPECT_TRUE(attrs[DAMON_PERF_A_AUX][0]->nla_type & NLA_F_NESTED);
	nlattr *tb[DAMON_PERF_AUX_A_MAX + 1];
	ASSERT_EQ(nla_parse_nested(tb, DAMON_PERF_AUX_A_MAX,
				   attrs[DAMON_PERF_A_AUX][0], nullptr),
		  0);
	for (int i = DAMON_PERF_AUX_A_CPU; i <= DAMON_PERF_AUX_A_MAX; i++)
		EXPECT_TRUE(tb[i]) << i;
	EXPECT_EQ(nla_get_u32(tb[DAMON_PERF_AUX_A_FD]), 7u);
	EXPECT_EQ(nla_get_u64(tb[DAMON_PERF_AUX_A_AUX_SIZE]), 1u << 20);
	EXPECT_EQ(nla_len(tb[DAMON_PERF_AUX_A_PROBE_IDX]), 1);
}

TEST(Ack, ErrorWithExtackMessage)
{
	NlMsg req = new_msg(FAMILY, DAMON_PERF_CMD_START, NLM_F_ACK);
	nla_put_u32(req.get(), DAMON_PERF_A_CTX_ID, 9);

	for (bool capped : {false, true}) {
		auto buf = error_ack(msg_hdr(req), -ENOENT, "no such context",
				     capped);
		Ack ack = parse_ack(reinterpret_cast<nlmsghdr *>(buf.data()));
		EXPECT_EQ(ack.error, -ENOENT);
		EXPECT_EQ(ack.message, "no such context");
	}
}

TEST(Ack, PlainAckHasNoError)
{
	NlMsg req = new_msg(FAMILY, DAMON_PERF_CMD_START, NLM_F_ACK);
	auto buf = error_ack(msg_hdr(req), 0, "", true);
	auto *nlh = reinterpret_cast<nlmsghdr *>(buf.data());

	nlh->nlmsg_flags = 0; // no TLVs
	Ack ack = parse_ack(nlh);
	EXPECT_EQ(ack.error, 0);
	EXPECT_TRUE(ack.message.empty());
}

TEST(Ack, DumpDoneWithError)
{
	std::vector<unsigned char> buf(NLMSG_HDRLEN + 4 +
				       NLA_ALIGN(NLA_HDRLEN + 4));
	auto *nlh = reinterpret_cast<nlmsghdr *>(buf.data());
	int err = -EPERM;

	nlh->nlmsg_len = uint32_t(buf.size());
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	std::memcpy(buf.data() + NLMSG_HDRLEN, &err, 4);
	auto *nla = reinterpret_cast<nlattr *>(buf.data() + NLMSG_HDRLEN + 4);
	nla->nla_type = NLMSGERR_ATTR_MSG;
	nla->nla_len = NLA_HDRLEN + 4;
	std::memcpy(reinterpret_cast<char *>(nla) + NLA_HDRLEN, "no!", 4);
	Ack ack = parse_ack(nlh);
	EXPECT_EQ(ack.error, -EPERM);
	EXPECT_EQ(ack.message, "no!");
}

TEST(Errors, KernelErrorCarriesErrnoAndMessage)
{
	KernelError e(EINVAL, "context id and name do not match");

	EXPECT_EQ(e.err(), EINVAL);
	EXPECT_EQ(e.extack(), "context id and name do not match");
	EXPECT_EQ(errno_name(EPERM), "EPERM");
	EXPECT_EQ(errno_name(ENOENT), "ENOENT");
	EXPECT_EQ(nl_category().name(), std::string("libnl"));
}

TEST(Codec, RegionSpanOfTheSamples)
{
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_AGGREGATION, 0);
	Aggregation agg;

	nla_put_u32(msg.get(), DAMON_PERF_A_CTX_ID, 4);
	for (uint64_t i = 0; i < 2; i++) {
		nlattr *r = nla_nest_start(msg.get(), DAMON_PERF_A_REGION);
		nla_put_u32(msg.get(), DAMON_PERF_REGION_A_TARGET_ID, 1);
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_START,
			    0x10000 * (i + 1));
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_END,
			    0x10000 * (i + 2));
		if (i == 0) { // the second, without samples, has no span
			nla_put_u64(msg.get(),
				    DAMON_PERF_REGION_A_SAMPLED_START, 0x13000);
			nla_put_u64(msg.get(), DAMON_PERF_REGION_A_SAMPLED_END,
				    0x15000);
		}
		nla_nest_end(msg.get(), r);
	}
	parse_aggregation(msg_hdr(msg), agg);
	ASSERT_EQ(agg.regions.size(), 2u);
	EXPECT_EQ(agg.regions[0].sampled_start, 0x13000u);
	EXPECT_EQ(agg.regions[0].sampled_end, 0x15000u);
	EXPECT_TRUE(agg.regions[0].sampled());
	EXPECT_FALSE(agg.regions[1].sampled());
	// the JSON (monitor, record) carries it and reads it back
	nlohmann::json j = to_json(agg);
	EXPECT_EQ(j["regions"][0]["sampled_start"], 0x13000u);
	EXPECT_FALSE(j["regions"][1].contains("sampled_start"));
	EXPECT_EQ(aggregation_from_json(j), agg);
}

// A region's runs of sampled pages (pairs of u64) reach the model, the
// JSON and back; a length that is not whole pairs, more than
// DAMON_PERF_SAMPLED_RUNS_MAX runs, an empty run or runs out of order
// are refused as malformed.
TEST(Codec, RegionRunsOfSampledPages)
{
	auto parse_runs = [](const std::vector<uint64_t> &v, size_t len) {
		NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_AGGREGATION, 0);
		Aggregation agg;

		nla_put_u32(msg.get(), DAMON_PERF_A_CTX_ID, 4);
		nlattr *r = nla_nest_start(msg.get(), DAMON_PERF_A_REGION);
		nla_put_u32(msg.get(), DAMON_PERF_REGION_A_TARGET_ID, 1);
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_START, 0x10000);
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_END, 0x80000);
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_SAMPLED_START,
			    v.empty() ? 0 : v.front());
		nla_put_u64(msg.get(), DAMON_PERF_REGION_A_SAMPLED_END,
			    v.empty() ? 0 : v.back());
		nla_put(msg.get(), DAMON_PERF_REGION_A_SAMPLED_RUNS, int(len),
			v.data());
		nla_nest_end(msg.get(), r);
		parse_aggregation(msg_hdr(msg), agg);
		return agg;
	};
	std::vector<uint64_t> two = {0x11000, 0x12000, 0x70000, 0x72000};
	Aggregation agg = parse_runs(two, 32);
	ASSERT_EQ(agg.regions.size(), 1u);
	using Runs = std::vector<std::pair<uint64_t, uint64_t>>;
	EXPECT_EQ(agg.regions[0].sampled_runs,
		  (Runs{{0x11000, 0x12000}, {0x70000, 0x72000}}));
	nlohmann::json j = to_json(agg);
	EXPECT_EQ(j["regions"][0]["sampled_runs"][1][0], 0x70000u);
	EXPECT_EQ(aggregation_from_json(j), agg);
	// as many as the module sends
	std::vector<uint64_t> most;
	for (uint64_t i = 0; i < DAMON_PERF_SAMPLED_RUNS_MAX; i++) {
		most.push_back(0x10000 + i * 0x2000);
		most.push_back(0x11000 + i * 0x2000);
	}
	EXPECT_EQ(parse_runs(most, most.size() * 8)
			  .regions[0]
			  .sampled_runs.size(),
		  size_t(DAMON_PERF_SAMPLED_RUNS_MAX));
	std::vector<uint64_t> more = most;
	more.push_back(0x70000);
	more.push_back(0x71000);
	EXPECT_THROW(parse_runs(more, more.size() * 8), ProtocolError);
	EXPECT_THROW(parse_runs(two, 24), ProtocolError);
	EXPECT_THROW(parse_runs(two, 0), ProtocolError);
	EXPECT_THROW(parse_runs({0x11000, 0x11000}, 16), ProtocolError);
	EXPECT_THROW(parse_runs({0x70000, 0x71000, 0x11000, 0x12000}, 32),
		     ProtocolError);
	// a recording's run that is not [first, end) is refused too
	j["regions"][0]["sampled_runs"][0] = {0x12000, 0x11000};
	EXPECT_THROW(aggregation_from_json(j), UsageError);
}
