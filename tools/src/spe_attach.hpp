// SPDX-License-Identifier: GPL-2.0
// The AUX_ATTACH request: one CPU's perf AUX buffer (mapped by this
// process, see spe_aux.hpp) handed to a running context. Building and
// parsing only, no socket, so it runs in unit tests without a kernel.
#pragma once

#include <cstdint>
#include <optional>

#include "codec.hpp"

namespace damonctl {

struct AuxAttachRequest {
	CtxRef ctx;
	uint32_t cpu = 0;
	uint32_t fd = 0;
	uint64_t user_page = 0;	// address of the data mapping
	uint64_t aux_addr = 0;	// address of the AUX mapping
	uint64_t aux_size = 0;	// bytes
	std::optional<uint32_t> pid; // tgid of a per-task event; unset: CPU-wide
	uint32_t probe_idx = 1;	// probe slot the reports count in (1..3)
};

// Appends CTX_ID/CTX_NAME and the DAMON_PERF_A_AUX nest to @msg.
void put_aux_attach(nl_msg *msg, const AuxAttachRequest &req);
// The inverse (what the kernel reads); throws ProtocolError when the
// message has no AUX nest or a field has the wrong length.
AuxAttachRequest parse_aux_attach(const nlmsghdr *nlh);

} // namespace damonctl
