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

// pages per move_pages() call
const size_t BATCH = 4096;
// a status the kernel never writes (it writes a node or -errno): the
// page's outcome is unknown
const int UNSET = INT_MIN;
// move calls for the pages a call did not try (each call tries fewer)
const int ROUNDS = 16;

// not present, nothing to move: -ENOENT, or -EFAULT for no page table
// entry (the range was in the mappings just read)
bool absent(int st)
{
	return st == -ENOENT || st == -EFAULT;
}

// Moves @todo (off @node) to @node. The kernel (do_pages_move() of
// mm/migrate.c, 6.1 to 7.2) queues pages and migrates the batch at each
// page it does not queue (an error, or on the node already); a batch in
// which some folios do not migrate (pinned: O_DIRECT, VFIO; or busy)
// ends the call, which returns how many pages it did not migrate and
// writes no status of that batch nor of the pages after it, which it did
// not try. Those are tried again; the batch's pages, and pages that say
// -EBUSY (every page of a transparent huge page after its first finds
// the folio isolated already, and the folio moves whole; or off the LRU),
// are asked where they are: on the node they count as moved, else as
// EBUSY.
void move_off_node(PageMover &m, int node, std::vector<void *> todo,
		   ApplyResult &res)
{
	const uint64_t page = m.page_size();
	std::vector<void *> ask, next;
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
		// the failed batch and the pages not tried: the unwritten
		// statuses before and after the last written one (the page
		// whose flush failed), or after it when the last flush failed
		size_t n = todo.size(), untried = n;
		if (r > 0) {
			size_t w = n;
			while (w > 0 && status[w - 1] == UNSET)
				w--;
			// w: one past the last written status
			if (w > 1 && status[w - 2] == UNSET)
				untried = w;
		}
		ask.clear();
		next.clear();
		for (size_t i = 0; i < n; i++) {
			int st = status[i];
			if (i >= untried)
				next.push_back(todo[i]);
			else if (st == UNSET || st == -EBUSY)
				ask.push_back(todo[i]);
			else if (st == node)
				res.sz_applied += page;
			else if (st >= 0)
				res.failed[EAGAIN]++;
			else if (!absent(st))
				res.failed[-st]++;
		}
		if (!ask.empty()) {
			status.assign(ask.size(), UNSET);
			long q = m.move_pages(ask.size(), ask.data(), nullptr,
					      status.data(), 0);
			for (size_t i = 0; i < ask.size(); i++) {
				int st = q < 0 ? UNSET : status[i];
				if (st == node)
					res.sz_applied += page;
				else if (st >= 0 || st == UNSET)
					res.failed[EBUSY]++;
				// else gone since: absent
			}
		}
		todo.swap(next);
	}
}

} // namespace

ApplyResult migrate_range(PageMover &m, int node, uint64_t start, uint64_t end)
{
	ApplyResult res;
	std::vector<void *> pages, off_node;
	std::vector<int> status;
	const uint64_t page = m.page_size();

	for (uint64_t a = start; a < end; a += BATCH * page) {
		uint64_t b = std::min(end, a + BATCH * page);
		// move_pages(2) takes a number: only while it is still the
		// process first seen (checked again after)
		if (!m.alive()) {
			res.failed[ESRCH] += (end - a) / page;
			break;
		}
		pages.clear();
		for (uint64_t p = a; p < b; p += page)
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
			if (status[i] == node)
				res.sz_placed += page;
			else if (status[i] >= 0)
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
