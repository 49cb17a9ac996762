// SPDX-License-Identifier: GPL-2.0
// What `damonctl spe attach` sends for each mapped AUX buffer: the
// AUX_ATTACH fields (codec.hpp put_aux()) of one AuxBuffer.
#pragma once

#include <cstdint>

#include "model.hpp"
#include "spe_aux.hpp"

namespace damonctl {

// @pid: the process a per-task event follows, or <= 0 for a CPU-wide event.
inline AuxAttach aux_attach_of(const AuxBuffer &b, int pid, uint8_t probe_idx)
{
	AuxAttach a;

	a.cpu = b.cpu;
	a.fd = b.fd;
	a.user_page = b.user_page;
	a.aux_addr = b.aux_addr;
	a.aux_size = b.aux_size;
	a.pid = pid > 0 ? uint32_t(pid) : 0;
	a.probe_idx = probe_idx;
	return a;
}

} // namespace damonctl
