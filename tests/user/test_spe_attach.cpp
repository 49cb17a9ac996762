// SPDX-License-Identifier: GPL-2.0
// `damonctl spe attach`: the AUX_ATTACH request it sends for each mapped
// AUX buffer (tools/src/cmd/spe_attach.hpp + codec put_aux()), decoded back
// without a kernel with the types of the kernel's strict policy.
#include <gtest/gtest.h>

#include <linux/damon_perf.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <optional>
#include <string>

#include "codec.hpp"
#include "spe_attach.hpp"

namespace damonctl {
namespace {

// The request as the kernel reads it; every field checked for its length.
struct Decoded {
	std::optional<uint32_t> ctx_id;
	std::optional<std::string> ctx_name;
	AuxAttach aux;
	int nr_top = 0;
	int nr_aux = 0;
};

Decoded decode(const NlMsg &msg)
{
	nlattr *tb[DAMON_PERF_A_MAX + 1] = {};
	nlattr *aux[DAMON_PERF_AUX_A_MAX + 1] = {};
	Decoded d;

	EXPECT_EQ(genlmsg_parse(msg_hdr(msg), 0, tb, DAMON_PERF_A_MAX, nullptr),
		  0);
	for (int i = 0; i <= DAMON_PERF_A_MAX; i++)
		d.nr_top += tb[i] != nullptr;
	if (tb[DAMON_PERF_A_CTX_ID]) {
		EXPECT_EQ(nla_len(tb[DAMON_PERF_A_CTX_ID]), 4);
		d.ctx_id = nla_get_u32(tb[DAMON_PERF_A_CTX_ID]);
	}
	if (tb[DAMON_PERF_A_CTX_NAME])
		d.ctx_name = nla_get_string(tb[DAMON_PERF_A_CTX_NAME]);
	if (!tb[DAMON_PERF_A_AUX]) {
		ADD_FAILURE() << "no AUX nest";
		return d;
	}
	EXPECT_EQ(nla_parse_nested(aux, DAMON_PERF_AUX_A_MAX,
				   tb[DAMON_PERF_A_AUX], nullptr),
		  0);
	for (int i = 0; i <= DAMON_PERF_AUX_A_MAX; i++)
		d.nr_aux += aux[i] != nullptr;
	const int len[DAMON_PERF_AUX_A_MAX + 1] = {
		[DAMON_PERF_AUX_A_UNSPEC] = 0,
		[DAMON_PERF_AUX_A_PAD] = 0,
		[DAMON_PERF_AUX_A_CPU] = 4,
		[DAMON_PERF_AUX_A_FD] = 4,
		[DAMON_PERF_AUX_A_USER_PAGE] = 8,
		[DAMON_PERF_AUX_A_AUX_ADDR] = 8,
		[DAMON_PERF_AUX_A_AUX_SIZE] = 8,
		[DAMON_PERF_AUX_A_PID] = 4,
		[DAMON_PERF_AUX_A_PROBE_IDX] = 1,
	};
	for (int i = DAMON_PERF_AUX_A_CPU; i <= DAMON_PERF_AUX_A_MAX; i++) {
		if (!aux[i]) {
			ADD_FAILURE() << "AUX attribute " << i << " missing";
			return d;
		}
		EXPECT_EQ(nla_len(aux[i]), len[i]) << "AUX attribute " << i;
	}
	d.aux.cpu = nla_get_u32(aux[DAMON_PERF_AUX_A_CPU]);
	d.aux.fd = int32_t(nla_get_u32(aux[DAMON_PERF_AUX_A_FD]));
	d.aux.user_page = nla_get_u64(aux[DAMON_PERF_AUX_A_USER_PAGE]);
	d.aux.aux_addr = nla_get_u64(aux[DAMON_PERF_AUX_A_AUX_ADDR]);
	d.aux.aux_size = nla_get_u64(aux[DAMON_PERF_AUX_A_AUX_SIZE]);
	d.aux.pid = nla_get_u32(aux[DAMON_PERF_AUX_A_PID]);
	d.aux.probe_idx = nla_get_u8(aux[DAMON_PERF_AUX_A_PROBE_IDX]);
	return d;
}

AuxBuffer buffer()
{
	AuxBuffer b;

	b.cpu = 3;
	b.fd = 11;
	b.user_page = 0x7f0000001000ULL;
	b.aux_addr = 0x7f0000100000ULL;
	b.aux_size = 1 << 20;
	b.data_size = size_t(9) * 4096;
	return b;
}

NlMsg request(const CtxRef &ref, const AuxAttach &aux)
{
	NlMsg msg = new_msg(0x20, DAMON_PERF_CMD_AUX_ATTACH, 0);

	put_ctx_ref(msg.get(), ref);
	put_aux(msg.get(), aux);
	return msg;
}

TEST(SpeAttach, PerTaskBufferRoundTrips)
{
	NlMsg msg = request(CtxRef::by_id(7), aux_attach_of(buffer(), 4242, 2));
	Decoded d = decode(msg);

	EXPECT_EQ(msg_cmd(msg_hdr(msg)), DAMON_PERF_CMD_AUX_ATTACH);
	EXPECT_EQ(d.nr_top, 2); // CTX_ID and AUX, nothing else
	EXPECT_EQ(d.nr_aux, 7); // every field, no PAD
	ASSERT_TRUE(d.ctx_id);
	EXPECT_EQ(*d.ctx_id, 7u);
	EXPECT_FALSE(d.ctx_name);
	EXPECT_EQ(d.aux.cpu, 3u);
	EXPECT_EQ(d.aux.fd, 11);
	EXPECT_EQ(d.aux.user_page, 0x7f0000001000ULL);
	EXPECT_EQ(d.aux.aux_addr, 0x7f0000100000ULL);
	EXPECT_EQ(d.aux.aux_size, 1u << 20);
	EXPECT_EQ(d.aux.pid, 4242u);
	EXPECT_EQ(d.aux.probe_idx, 2);
}

TEST(SpeAttach, CpuWideBufferSendsPidZero)
{
	for (int pid : {-1, 0}) {
		NlMsg msg = request(CtxRef::by_name("web"),
				    aux_attach_of(buffer(), pid, 1));
		Decoded d = decode(msg);

		EXPECT_EQ(d.aux.pid, 0u) << pid;
		EXPECT_EQ(d.aux.probe_idx, 1);
		ASSERT_TRUE(d.ctx_name);
		EXPECT_EQ(*d.ctx_name, "web");
		EXPECT_FALSE(d.ctx_id);
	}
}

TEST(SpeAttach, EveryBufferFieldReachesTheRequest)
{
	AuxBuffer b = buffer();

	b.cpu = 0;
	b.fd = 0;
	b.aux_size = uint64_t(2) * 4096;
	Decoded d = decode(request(CtxRef::by_id(1), aux_attach_of(b, 0, 3)));
	EXPECT_EQ(d.aux.cpu, 0u);
	EXPECT_EQ(d.aux.fd, 0);
	EXPECT_EQ(d.aux.aux_size, 8192u);
	EXPECT_EQ(d.aux.probe_idx, 3);
}

} // namespace
} // namespace damonctl
