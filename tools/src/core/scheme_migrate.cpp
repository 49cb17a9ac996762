// SPDX-License-Identifier: GPL-2.0
#include "scheme_migrate.hpp"

#include <algorithm>
#include <cerrno>
#include <vector>

#ifndef MPOL_MF_MOVE
#define MPOL_MF_MOVE (1 << 1)
#endif

namespace damonctl {

namespace {

const uint64_t PAGE = 4096;
// pages per move_pages() call
const size_t BATCH = 4096;

} // namespace

ApplyResult migrate_range(PageMover &m, int node, uint64_t start,
                          uint64_t end) {
  ApplyResult res;
  std::vector<void *> pages, off_node;
  std::vector<int> status, nodes;

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
    status.assign(pages.size(), 0);
    // where each page is now
    long q =
        m.move_pages(pages.size(), pages.data(), nullptr, status.data(), 0);
    if (q < 0) {
      res.failed[int(-q)] += pages.size();
      continue;
    }
    off_node.clear();
    for (size_t i = 0; i < pages.size(); i++) {
      if (status[i] >= 0 && status[i] != node)
        off_node.push_back(pages[i]);
      // not present, nothing to move: -ENOENT, or -EFAULT
      // for no page table entry (the range was in the
      // mappings just read)
      else if (status[i] < 0 && status[i] != -ENOENT && status[i] != -EFAULT)
        res.failed[-status[i]]++;
    }
    if (off_node.empty())
      continue;
    nodes.assign(off_node.size(), node);
    status.assign(off_node.size(), 0);
    long r = m.move_pages(off_node.size(), off_node.data(), nodes.data(),
                          status.data(), MPOL_MF_MOVE);
    if (r < 0) {
      res.failed[int(-r)] += off_node.size();
      continue;
    }
    if (!m.alive()) {
      // gone during the call: nothing to count as moved
      res.failed[ESRCH] += off_node.size();
      continue;
    }
    for (int st : status) {
      if (st == node)
        res.sz_applied += PAGE;
      else if (st < 0)
        res.failed[-st]++;
      else
        res.failed[EAGAIN]++;
    }
  }
  return res;
}

} // namespace damonctl
