// SPDX-License-Identifier: GPL-2.0
// How migrate_hot and migrate_cold move [start, end) of a process:
// move_pages(2) through a PageMover (the system call in
// scheme_backend.cpp, a fake of the kernel's do_pages_move() in the
// tests), a status query first so only pages off the node move.
#pragma once

#include <cstdint>

#include "scheme_engine.hpp"

namespace damonctl {

// move_pages(2) on one target process.
class PageMover {
public:
	virtual ~PageMover() = default;
	// move_pages(2) of @count pages of the target; @nodes null only
	// queries where each page is. Returns what the system call returns
	// (0, or the number of pages it did not migrate) or -errno.
	virtual long move_pages(unsigned long count, void *const *pages,
				const int *nodes, int *status, int flags) = 0;
	// Whether the target is still the process first seen.
	virtual bool alive() = 0;
	// The base page size the range is stepped in.
	virtual uint64_t page_size() { return system_page_size(); }
};

// Moves the present pages of [@start, @end) that are off @node to @node:
// sz_applied what is on @node after the call that moved it, sz_placed
// what was on @node before, failed pages by errno (a page not present is
// none of them).
ApplyResult migrate_range(PageMover &m, int node, uint64_t start, uint64_t end);

} // namespace damonctl
