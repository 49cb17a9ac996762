// SPDX-License-Identifier: GPL-2.0
// Netlink messages built and parsed without a kernel: round trips of every
// reply type, requests as the kernel would see them, extended acks, and
// malformed input.
#include <array>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include <linux/damon_perf.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "codec.hpp"
#include "errors.hpp"

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
	c.budget = b;
	return c;
}

Aggregation sample_agg(size_t nr)
{
	Aggregation a;

	a.ctx_id = 3;
	a.ctx_name = "web";
	a.seq = 17;
	a.time_ns = 123456789012ULL;
	a.aggr_us = 100000;
	a.nr_regions = uint32_t(nr);
	for (size_t i = 0; i < nr; i++) {
		Region r;
		r.target_id = 1;
		r.start = 0x1000 * (i + 1);
		r.end = r.start + 0x1000;
		r.nr_accesses = uint32_t(i % 7);
		r.age = uint32_t(i);
		r.rate = i * 1000;
		r.probe_hits = {i, 2 * i, 0};
		a.regions.push_back(r);
	}
	return a;
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

TEST(Codec, CtxInfoRoundTrips)
{
	CtxInfo c = sample_ctx();
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	put_ctx_info(msg.get(), c);
	EXPECT_EQ(parse_ctx_info(msg_hdr(msg)), c);
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

TEST(Codec, UnknownAttributesAreIgnored)
{
	CtxInfo c = sample_ctx();
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_CTX_GET, 0);

	put_ctx_info(msg.get(), c);
	nla_put_u64(msg.get(), 200, 7); // from a newer kernel
	EXPECT_EQ(parse_ctx_info(msg_hdr(msg)), c);
}

TEST(Codec, AggregationRoundTripsInOneMessage)
{
	Aggregation a = sample_agg(5);
	Target t;
	t.id = 1;
	t.pid = 42;
	t.nr_regions = 5;
	a.targets.push_back(t);
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_AGGREGATION, 0);
	Aggregation back;

	put_aggregation(msg.get(), a);
	parse_aggregation(msg_hdr(msg), back);
	EXPECT_EQ(back, a);
}

TEST(Codec, SnapshotDumpMergesAcrossMessages)
{
	Aggregation a = sample_agg(9);
	Aggregation first = a, second = a, back;

	// the kernel sends the summary first, then regions over messages
	first.regions.assign(a.regions.begin(), a.regions.begin() + 4);
	second.regions.assign(a.regions.begin() + 4, a.regions.end());
	second.ctx_name.clear();
	NlMsg m1 = new_msg(FAMILY, DAMON_PERF_CMD_SNAPSHOT_GET, NLM_F_MULTI);
	NlMsg m2 = new_msg(FAMILY, DAMON_PERF_CMD_SNAPSHOT_GET, NLM_F_MULTI);
	put_aggregation(m1.get(), first);
	put_aggregation(m2.get(), second, false);
	parse_aggregation(msg_hdr(m1), back);
	parse_aggregation(msg_hdr(m2), back);
	EXPECT_EQ(back, a);
}

TEST(Codec, TruncatedNotificationKeepsTheSummary)
{
	Aggregation a = sample_agg(0);
	a.nr_regions = 5000;
	a.truncated = true;
	NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_AGGREGATION, 0);
	Aggregation back;

	put_aggregation(msg.get(), a);
	parse_aggregation(msg_hdr(msg), back);
	EXPECT_TRUE(back.truncated);
	EXPECT_EQ(back.nr_regions, 5000u);
	EXPECT_TRUE(back.regions.empty());
}

TEST(Codec, StatsRowsRoundTrip)
{
	StatsRow cpu;
	cpu.cpu = 1;
	cpu.state = 4;
	cpu.state_name = "running";
	cpu.counters = {{"callback", 10}, {"enqueue", 1ULL << 33}};
	StatsRow total = cpu;
	total.cpu.reset();

	for (const StatsRow &row : {cpu, total}) {
		NlMsg msg = new_msg(FAMILY, DAMON_PERF_CMD_STATS_GET, 0);
		put_stats_row(msg.get(), row);
		EXPECT_EQ(parse_stats_row(msg_hdr(msg)), row);
	}
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
