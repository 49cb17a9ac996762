// SPDX-License-Identifier: GPL-2.0
// The system calls behind `damonctl schemes`: /proc/PID/maps for the
// mappings, move_pages(2) for migrate_hot and migrate_cold (a status query
// first, so only pages off the node move and each one's outcome is
// counted) and process_madvise(2) on a pidfd for pageout, cold, willneed
// and collapse. Raw syscall(): no libnuma.
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "scheme_engine.hpp"
#include "scheme_migrate.hpp"
#include "scheme_paddr.hpp"
#include "scheme_procs.hpp"

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

namespace damonctl {

namespace {

// /proc/kpageflags (include/uapi/linux/kernel-page-flags.h)
const int KPF_COMPOUND_HEAD = 15;
const int KPF_THP = 22;
// /proc/PID/pagemap: present, and the frame number (0 without
// CAP_SYS_ADMIN)
const uint64_t PM_PRESENT = uint64_t{1} << 63;
const uint64_t PM_PFN = (uint64_t{1} << 55) - 1;

int advice_of(SchemeAction a)
{
	switch (a) {
	case SchemeAction::pageout:
		return MADV_PAGEOUT;
	case SchemeAction::cold:
		return MADV_COLD;
	case SchemeAction::willneed:
		return MADV_WILLNEED;
	case SchemeAction::collapse:
		return MADV_COLLAPSE;
	default:
		return -1;
	}
}

// The PMD-mapped huge page size MADV_COLLAPSE makes
// (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size), 2 MiB without it.
uint64_t hpage_pmd_size()
{
	std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	uint64_t v = 0;

	if (in >> v && v >= system_page_size() && !(v & (v - 1)))
		return v;
	return uint64_t{2} << 20;
}

// move_pages(2) on @pid while TargetProcs says it is the process first
// seen.
class SyscallMover : public PageMover {
public:
	SyscallMover(TargetProcs &procs, uint32_t pid)
		: procs_(procs)
		, pid_(pid)
	{
	}

	long move_pages(unsigned long count, void *const *pages,
			const int *nodes, int *status, int flags) override
	{
		long r = syscall(SYS_move_pages, pid_t(pid_), count, pages,
				 nodes, status, flags);

		return r < 0 ? -long(errno) : r;
	}

	bool alive() override { return procs_.alive(pid_); }

private:
	TargetProcs &procs_;
	uint32_t pid_;
};

class SystemBackend : public SchemeBackend {
public:
	explicit SystemBackend(TargetProcs &procs, Transport *paddr = nullptr)
		: procs_(procs)
		, paddr_(paddr)
		, pmd_(hpage_pmd_size())
	{
	}

	~SystemBackend() override
	{
		if (kpf_ >= 0)
			close(kpf_);
	}
	SystemBackend(const SystemBackend &) = delete;
	SystemBackend &operator=(const SystemBackend &) = delete;

	// Keeps @procs for as long as the backend.
	void own(std::unique_ptr<TargetProcs> procs)
	{
		own_ = std::move(procs);
	}

	std::vector<Mapping> mappings(uint32_t pid) override
	{
		return procs_.mappings(pid);
	}

	bool reports_placement() const override { return true; }

	ApplyResult apply(uint32_t pid, SchemeAction action, int node,
			  uint64_t start, uint64_t end) override
	{
		ApplyResult res;

		if (action == SchemeAction::migrate_hot ||
		    action == SchemeAction::migrate_cold)
			res = migrate(pid, node, start, end);
		else
			res = madvise(pid, advice_of(action), start, end);
		if (res.failed.count(EPERM))
			procs_.note_eperm(pid);
		return res;
	}

	ApplyResult apply_paddr(uint32_t ctx_id, SchemeAction action,
				uint64_t start, uint64_t end) override
	{
		if (action != SchemeAction::lru_prio || !paddr_)
			return SchemeBackend::apply_paddr(ctx_id, action, start,
							  end);
		return lru_prio_paddr(*paddr_, ctx_id, start, end,
				      system_page_size());
	}

	// One pagemap entry per PMD-aligned block of [start, end): a block
	// whose first page's frame is the head of a transparent huge page
	// (kpageflags' THP and compound head bits) is one. Without the
	// frame numbers (no CAP_SYS_ADMIN) or /proc/kpageflags: none known,
	// base pages.
	std::vector<HugePage> huge_pages(uint32_t pid, uint64_t start,
					 uint64_t end) override
	{
		std::vector<HugePage> out;
		const uint64_t page = system_page_size();
		const uint64_t b0 = (start + pmd_ - 1) & ~(pmd_ - 1);

		if (b0 < start || b0 >= end || end - b0 < pmd_)
			return out;
		int pm = open(
			("/proc/" + std::to_string(pid) + "/pagemap").c_str(),
			O_RDONLY | O_CLOEXEC);
		if (pm < 0)
			return out;
		if (kpf_ < 0 && !kpf_failed_) {
			kpf_ = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
			kpf_failed_ = kpf_ < 0;
		}
		for (uint64_t b = b0; kpf_ >= 0 && b <= end - pmd_; b += pmd_) {
			uint64_t e = 0, f = 0;
			if (pread(pm, &e, sizeof(e), off_t(b / page * 8)) !=
			    sizeof(e))
				break;
			if (!(e & PM_PRESENT))
				continue;
			uint64_t pfn = e & PM_PFN;
			if (!pfn) // no CAP_SYS_ADMIN: where is not known
				break;
			if (pread(kpf_, &f, sizeof(f), off_t(pfn * 8)) !=
			    sizeof(f))
				continue;
			if ((f >> KPF_THP & 1) && (f >> KPF_COMPOUND_HEAD & 1))
				out.push_back({b, b + pmd_});
		}
		close(pm);
		return out;
	}

	uint32_t free_mem_permil() override
	{
		std::ifstream in("/proc/meminfo");
		uint64_t total = 0, free = 0;

		for (std::string key; in >> key;) {
			uint64_t v = 0;
			in >> v;
			if (key == "MemTotal:")
				total = v;
			else if (key == "MemFree:")
				free = v;
			in.ignore(64, '\n');
		}
		return total ? uint32_t(free * 1000 / total) : 0;
	}

	std::optional<NodeMem> node_mem(int nid) override
	{
		// "Node 0 MemTotal:  509876 kB"
		std::ifstream in("/sys/devices/system/node/node" +
				 std::to_string(nid) + "/meminfo");
		NodeMem m;
		bool total = false;

		for (std::string line; std::getline(in, line);) {
			std::istringstream ls(line);
			std::string node, key;
			int n = -1;
			uint64_t kib = 0;
			if (!(ls >> node >> n >> key >> kib))
				continue;
			if (key == "MemTotal:") {
				m.total = kib * 1024;
				total = true;
			} else if (key == "MemFree:") {
				m.free = kib * 1024;
			}
		}
		if (!total || !m.total)
			return std::nullopt;
		return m;
	}

	std::optional<uint64_t> some_mem_psi_total_us() override
	{
		// "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234"
		std::ifstream in("/proc/pressure/memory");

		for (std::string word; in >> word;) {
			unsigned long long total = 0;
			if (std::sscanf(word.c_str(), "total=%llu", &total) ==
			    1)
				return uint64_t(total);
		}
		return std::nullopt;
	}

	uint64_t now_ns() override
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
	}

private:
	ApplyResult migrate(uint32_t pid, int node, uint64_t start,
			    uint64_t end)
	{
		SyscallMover m(procs_, pid);

		return migrate_range(m, node, start, end);
	}

	ApplyResult madvise(uint32_t pid, int advice, uint64_t start,
			    uint64_t end)
	{
		ApplyResult res;

		if (advice == MADV_COLLAPSE) {
			// Only whole aligned huge pages collapse, and a range
			// inside one block makes MADV_COLLAPSE fail with EINVAL
			// (6.1 to 7.2: its block count goes negative): ask for
			// the blocks within the piece, skip a piece without
			// one.
			const auto range = collapse_range(start, end, pmd_);
			if (!range)
				return res;
			start = range->first;
			end = range->second;
		}
		int fd = procs_.pidfd(pid);

		if (fd < 0) {
			res.failed[-fd] += (end - start) / system_page_size();
			return res;
		}
		while (start < end) {
			struct iovec iov = {
				// NOLINTNEXTLINE(performance-no-int-to-ptr)
				reinterpret_cast<void *>(start),
				size_t(end - start),
			};
			long n = syscall(SYS_process_madvise, fd, &iov, 1UL,
					 advice, 0U);
			if (n <= 0) {
				int err = n < 0 ? errno : EAGAIN;
				res.failed[err] +=
					(end - start) / system_page_size();
				break;
			}
			res.sz_applied += uint64_t(n);
			start += uint64_t(n);
		}
		return res;
	}

	TargetProcs &procs_;
	Transport *paddr_;
	uint64_t pmd_;
	int kpf_ = -1; // /proc/kpageflags, opened on first use
	bool kpf_failed_ = false;
	std::unique_ptr<TargetProcs> own_;
};

} // namespace

std::optional<std::pair<uint64_t, uint64_t>>
collapse_range(uint64_t start, uint64_t end, uint64_t block)
{
	const uint64_t s = (start + block - 1) & ~(block - 1);
	const uint64_t e = end & ~(block - 1);

	if (s < start || s >= e) // wrapped, or no whole block
		return std::nullopt;
	return std::make_pair(s, e);
}

std::unique_ptr<SchemeBackend> make_system_backend()
{
	auto procs = std::make_unique<TargetProcs>();
	auto b = std::make_unique<SystemBackend>(*procs);

	b->own(std::move(procs));
	return b;
}

std::unique_ptr<SchemeBackend> make_system_backend(TargetProcs &procs,
						   Transport *paddr)
{
	return std::make_unique<SystemBackend>(procs, paddr);
}

} // namespace damonctl
