// SPDX-License-Identifier: GPL-2.0
#include "scheme_migrate.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <vector>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif

namespace damonctl {

namespace {

const uint64_t PAGE = 4096;
// pages per move_pages() call
const size_t BATCH = 4096;
// a status the kernel never writes (it writes a node or -errno): the
// page's outcome is unknown
const int UNSET = INT_MIN;
// move calls for the pages one call left unmoved
const int ROUNDS = 4;

// not present, nothing to move: -ENOENT, or -EFAULT for no page table
// entry (the range was in the mappings just read)
bool absent(int st)
{
	return st == -ENOENT || st == -EFAULT;
}

} // namespace

// Moves @todo (off @node) to @node. A call that cannot migrate some pages
// (pinned: O_DIRECT, VFIO; or busy) returns their number and writes no
// status of their batch nor of the pages after it, which it did not try
// (mm/migrate.c, do_pages_move()); a page of a huge page after its first
// finds the folio isolated already (-EBUSY) and the folio moves whole.
// Those pages are asked where they are now, the ones still off the node
// tried again while a call moves some, then counted as failed with
// EBUSY.
static void move_off_node(PageMover &m, int node, std::vector<void *> todo,
			  ApplyResult &res)
{
	std::vector<void *> next, unknown;
	std::vector<int> nodes, status;

	for (int round = 0; !todo.empty(); round++) {
		if (round == ROUNDS) {
			res.failed[EBUSY] += todo.size();
			return;
		}
		nodes.assign(todo.size(), node);
		status.assign(todo.size(), UNSET);
		long r = m.move_pages(todo.size(), todo.data(), nodes.data(),
				      status.data(), MPOL_MF_MOVE);
		if (r < 0) {
			res.failed[int(-r)] += todo.size();
			return;
		}
		if (!m.alive()) {
			// gone during the call: nothing to count as moved
			res.failed[ESRCH] += todo.size();
			return;
		}
		unknown.clear();
		for (size_t i = 0; i < todo.size(); i++) {
			int st = status[i];
			// -EBUSY: isolated already, as every page of a huge
			// page after its first is (its folio moves with the
			// first), or off the LRU: asked where it is
			if (st == UNSET || st == -EBUSY)
				unknown.push_back(todo[i]);
			else if (st == node)
				res.sz_applied += PAGE;
			else if (st >= 0)
				res.failed[EAGAIN]++;
			else if (!absent(st))
				res.failed[-st]++;
		}
		if (unknown.empty())
			return;
		status.assign(unknown.size(), UNSET);
		long q = m.move_pages(unknown.size(), unknown.data(), nullptr,
				      status.data(), 0);
		next.clear();
		for (size_t i = 0; i < unknown.size(); i++) {
			int st = q < 0 ? UNSET : status[i];
			if (st == node)
				res.sz_applied += PAGE;
			else if (st >= 0 || st == UNSET)
				next.push_back(unknown[i]);
			// else gone since: absent, or its error counted
			// when it is tried again
		}
		if (q < 0) {
			// the call said how many it did not move, not which
			uint64_t stuck =
				std::min<uint64_t>(uint64_t(r), next.size());
			res.sz_applied += (next.size() - stuck) * PAGE;
			res.failed[EBUSY] += stuck;
			return;
		}
		if (next.size() == todo.size()) {
			// none moved: they stay where they are
			res.failed[EBUSY] += next.size();
			return;
		}
		todo.swap(next);
	}
}

ApplyResult migrate_range(PageMover &m, int node, uint64_t start, uint64_t end)
{
	ApplyResult res;
	std::vector<void *> pages, off_node;
	std::vector<int> status;

	for (uint64_t a = start; a < end; a += BATCH * PAGE) {
		uint64_t b = std::min(end, a + BATCH * PAGE);
		// move_pages(2) takes a number: only while it is still the
		// process first seen (checked again after)
		if (!m.alive()) {
			res.failed[ESRCH] += (end - a) / PAGE;
			break;
		}
		pages.clear();
		for (uint64_t p = a; p < b; p += PAGE)
			// the target's addresses, never dereferenced
			// NOLINTNEXTLINE(performance-no-int-to-ptr)
			pages.push_back(reinterpret_cast<void *>(p));
		status.assign(pages.size(), UNSET);
		// where each page is now
		long q = m.move_pages(pages.size(), pages.data(), nullptr,
				      status.data(), 0);
		if (q < 0) {
			res.failed[int(-q)] += pages.size();
			continue;
		}
		off_node.clear();
		for (size_t i = 0; i < pages.size(); i++) {
			if (status[i] >= 0 && status[i] != node)
				off_node.push_back(pages[i]);
			else if (status[i] == UNSET)
				res.failed[EAGAIN]++;
			else if (status[i] < 0 && !absent(status[i]))
				res.failed[-status[i]]++;
		}
		move_off_node(m, node, off_node, res);
	}
	return res;
}

} // namespace damonctl
