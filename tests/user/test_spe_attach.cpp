// SPDX-License-Identifier: GPL-2.0
// The AUX_ATTACH request (tools/src/spe_attach.cpp): built and parsed
// back without a kernel, and the exact attributes the kernel's strict
// policy expects.
#include <gtest/gtest.h>

#include <linux/damon_perf.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "errors.hpp"
#include "spe_attach.hpp"

namespace damonctl {
namespace {

AuxAttachRequest sample()
{
	AuxAttachRequest r;

	r.ctx = CtxRef::by_id(7);
	r.cpu = 3;
	r.fd = 11;
	r.user_page = 0x7f0000001000ULL;
	r.aux_addr = 0x7f0000100000ULL;
	r.aux_size = 1 << 20;
	r.pid = 4242;
	r.probe_idx = 2;
	return r;
}

TEST(SpeAttach, RoundTripKeepsEveryField)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);
	AuxAttachRequest in = sample();

	put_aux_attach(msg.get(), in);
	AuxAttachRequest out = parse_aux_attach(msg_hdr(msg));
	EXPECT_EQ(msg_cmd(msg_hdr(msg)), DAMON_PERF_CMD_AUX_ATTACH);
	EXPECT_EQ(out.ctx.id, 7u);
	EXPECT_FALSE(out.ctx.name);
	EXPECT_EQ(out.cpu, 3u);
	EXPECT_EQ(out.fd, 11u);
	EXPECT_EQ(out.user_page, in.user_page);
	EXPECT_EQ(out.aux_addr, in.aux_addr);
	EXPECT_EQ(out.aux_size, in.aux_size);
	ASSERT_TRUE(out.pid);
	EXPECT_EQ(*out.pid, 4242u);
	EXPECT_EQ(out.probe_idx, 2u);
}

TEST(SpeAttach, CpuWideRequestCarriesNoPidAndNamesTheContext)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);
	AuxAttachRequest in = sample();

	in.pid.reset();
	in.ctx = CtxRef::by_name("web");
	put_aux_attach(msg.get(), in);
	AuxAttachRequest out = parse_aux_attach(msg_hdr(msg));
	EXPECT_FALSE(out.pid);
	ASSERT_TRUE(out.ctx.name);
	EXPECT_EQ(*out.ctx.name, "web");
	EXPECT_FALSE(out.ctx.id);
}

// The kernel policy: u32 CPU/FD/PID/PROBE_IDX, u64 addresses and size,
// all inside one DAMON_PERF_A_AUX nest; nothing else at the top level
// but the context selection.
TEST(SpeAttach, AttributesHaveTheTypesTheKernelPolicyWants)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);
	nlattr *tb[DAMON_PERF_A_MAX + 1] = {};
	nlattr *aux[DAMON_PERF_AUX_A_MAX + 1] = {};

	put_aux_attach(msg.get(), sample());
	ASSERT_EQ(genlmsg_parse(msg_hdr(msg), 0, tb, DAMON_PERF_A_MAX,
				nullptr),
		  0);
	for (int i = 0; i <= DAMON_PERF_A_MAX; i++) {
		if (i != DAMON_PERF_A_CTX_ID && i != DAMON_PERF_A_AUX) {
			EXPECT_EQ(tb[i], nullptr) << "attribute " << i;
		}
	}
	ASSERT_NE(tb[DAMON_PERF_A_AUX], nullptr);
	ASSERT_EQ(nla_parse_nested(aux, DAMON_PERF_AUX_A_MAX,
				   tb[DAMON_PERF_A_AUX], nullptr),
		  0);
	for (int t : {DAMON_PERF_AUX_A_CPU, DAMON_PERF_AUX_A_FD,
		      DAMON_PERF_AUX_A_PID, DAMON_PERF_AUX_A_PROBE_IDX}) {
		ASSERT_NE(aux[t], nullptr) << t;
		EXPECT_EQ(nla_len(aux[t]), 4) << t;
	}
	for (int t : {DAMON_PERF_AUX_A_USER_PAGE, DAMON_PERF_AUX_A_AUX_ADDR,
		      DAMON_PERF_AUX_A_AUX_SIZE}) {
		ASSERT_NE(aux[t], nullptr) << t;
		EXPECT_EQ(nla_len(aux[t]), 8) << t;
	}
	EXPECT_EQ(aux[DAMON_PERF_AUX_A_UNSPEC], nullptr);
	EXPECT_EQ(aux[DAMON_PERF_AUX_A_PAD], nullptr);
}

TEST(SpeAttach, ParseRefusesAMessageWithoutTheNest)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);

	put_ctx_ref(msg.get(), CtxRef::by_id(1));
	EXPECT_THROW(parse_aux_attach(msg_hdr(msg)), ProtocolError);
}

TEST(SpeAttach, ParseRefusesAWrongLengthField)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);
	nlattr *nest;

	put_ctx_ref(msg.get(), CtxRef::by_id(1));
	nest = nla_nest_start(msg.get(), DAMON_PERF_A_AUX);
	nla_put_u32(msg.get(), DAMON_PERF_AUX_A_CPU, 0);
	nla_put_u32(msg.get(), DAMON_PERF_AUX_A_FD, 3);
	nla_put_u32(msg.get(), DAMON_PERF_AUX_A_USER_PAGE, 0x1000); // u64!
	nla_put_u64(msg.get(), DAMON_PERF_AUX_A_AUX_ADDR, 0x2000);
	nla_put_u64(msg.get(), DAMON_PERF_AUX_A_AUX_SIZE, 0x2000);
	nla_nest_end(msg.get(), nest);
	EXPECT_THROW(parse_aux_attach(msg_hdr(msg)), ProtocolError);
}

TEST(SpeAttach, ParseRefusesAMissingRequiredField)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);
	nlattr *nest;

	put_ctx_ref(msg.get(), CtxRef::by_id(1));
	nest = nla_nest_start(msg.get(), DAMON_PERF_A_AUX);
	nla_put_u32(msg.get(), DAMON_PERF_AUX_A_CPU, 0);
	nla_put_u32(msg.get(), DAMON_PERF_AUX_A_FD, 3);
	nla_nest_end(msg.get(), nest);
	EXPECT_THROW(parse_aux_attach(msg_hdr(msg)), ProtocolError);
}

} // namespace
} // namespace damonctl
