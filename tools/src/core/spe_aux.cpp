// SPDX-License-Identifier: GPL-2.0
#include "spe_aux.hpp"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace damonctl {
namespace {

bool pow2(size_t n)
{
	return n && !(n & (n - 1));
}

[[noreturn]] void fail(const std::string &what)
{
	throw std::system_error(errno, std::generic_category(), what);
}

} // namespace

AuxBuffers::AuxBuffers(const perf_event_attr &attr,
		       const std::vector<int> &cpus, pid_t pid,
		       size_t data_pages, size_t aux_pages)
{
	const size_t ps = size_t(sysconf(_SC_PAGESIZE));

	if (data_pages && !pow2(data_pages))
		throw std::invalid_argument(
			"data pages must be a power of two");
	if (aux_pages < 2 || !pow2(aux_pages))
		throw std::invalid_argument(
			"AUX pages must be a power of two, at least 2");
	if (attr.freq)
		throw std::invalid_argument(
			"AUX PMUs sample by period, not frequency");

	perf_event_attr a = attr;
	a.size = sizeof(a);
	a.disabled = 1;
	try {
		for (int cpu : cpus) {
			AuxBuffer b;
			b.cpu = uint32_t(cpu);
			b.data_size = (1 + data_pages) * ps;
			b.aux_size = aux_pages * ps;
			b.fd = int(syscall(SYS_perf_event_open, &a, pid, cpu,
					   -1, PERF_FLAG_FD_CLOEXEC));
			if (b.fd < 0)
				fail("perf_event_open on CPU " +
				     std::to_string(cpu));
			bufs_.push_back(b);
			AuxBuffer &r = bufs_.back();
			void *up = mmap(nullptr, r.data_size,
					PROT_READ | PROT_WRITE, MAP_SHARED,
					r.fd, 0);
			if (up == MAP_FAILED)
				fail("mmap of the data area");
			r.user_page = uint64_t(uintptr_t(up));
			auto *page = static_cast<perf_event_mmap_page *>(up);
			page->aux_offset = r.data_size;
			page->aux_size = r.aux_size;
			/* read-write: a read-only AUX area means overwrite mode
			 */
			void *aux = mmap(nullptr, r.aux_size,
					 PROT_READ | PROT_WRITE, MAP_SHARED,
					 r.fd, off_t(r.data_size));
			if (aux == MAP_FAILED)
				fail("mmap of the AUX area");
			r.aux_addr = uint64_t(uintptr_t(aux));
		}
	} catch (...) {
		release();
		throw;
	}
}

AuxBuffers::~AuxBuffers()
{
	release();
}

void AuxBuffers::release()
{
	// The mappings are kept as the u64 addresses the kernel is handed
	// (AUX_ATTACH), so unmapping converts them back.
	for (AuxBuffer &b : bufs_) {
		if (b.aux_addr)
			// NOLINTNEXTLINE(performance-no-int-to-ptr)
			munmap(reinterpret_cast<void *>(uintptr_t(b.aux_addr)),
			       b.aux_size);
		if (b.user_page)
			// NOLINTNEXTLINE(performance-no-int-to-ptr)
			munmap(reinterpret_cast<void *>(uintptr_t(b.user_page)),
			       b.data_size);
		if (b.fd >= 0)
			close(b.fd);
	}
	bufs_.clear();
}

void AuxBuffers::enable() const
{
	for (const AuxBuffer &b : bufs_)
		if (ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			fail("enabling the AUX event on CPU " +
			     std::to_string(b.cpu));
}

} // namespace damonctl
