// SPDX-License-Identifier: GPL-2.0
// The userspace half of the AUX transport: open an AUX tracing PMU (ARM
// SPE) once per CPU, map each event's data and AUX areas read-write, and
// describe every buffer for the kernel's attach request (see
// Documentation/spe.rst). The process must stay alive, holding this
// object, for as long as the module consumes the buffers.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace damonctl {

// One CPU's buffer, as the attach request carries it.
struct AuxBuffer {
	uint32_t cpu = 0;
	int fd = -1;
	uint64_t user_page = 0; // address of the data mapping (user page first)
	uint64_t aux_addr = 0;  // address of the AUX mapping
	uint64_t aux_size = 0;  // bytes
	size_t data_size = 0;   // bytes of the data mapping
};

class AuxBuffers {
public:
	// Opens @attr (freq must be off: SPE wants a period) on each of @cpus
	// for @pid (-1: CPU-wide), disabled, with a data ring of
	// @data_pages (power of two, may be 0) and an AUX area of @aux_pages
	// (power of two, >= 2). Throws std::invalid_argument for bad sizes
	// and std::system_error for a failing syscall; nothing stays open.
	AuxBuffers(const perf_event_attr &attr, const std::vector<int> &cpus,
		   pid_t pid, size_t data_pages, size_t aux_pages);
	~AuxBuffers();
	AuxBuffers(const AuxBuffers &) = delete;
	AuxBuffers &operator=(const AuxBuffers &) = delete;

	const std::vector<AuxBuffer> &buffers() const { return bufs_; }
	// PERF_EVENT_IOC_ENABLE on every event (after the attach).
	void enable() const;

private:
	void release();
	std::vector<AuxBuffer> bufs_;
};

} // namespace damonctl
