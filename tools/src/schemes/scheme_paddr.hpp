// SPDX-License-Identifier: GPL-2.0
// Scheme actions on physical-address contexts, done by the module: DAMOS's
// lru_prio through LRU_PRIO requests.
#pragma once

#include <cstdint>

#include "client.hpp"
#include "scheme_engine.hpp"

namespace damonctl {

// lru_prio of [@start, @end) of context @ctx_id over @t, in requests of at
// most DAMON_PERF_LRU_PAGES_MAX pages of @page bytes. sz_applied is the
// bytes of the range in LRU folios (at most the range's); pages in none
// are neither applied nor failed (DAMOS counts only what it marked). A
// refused request counts the pages left under its errno (EPERM without
// CAP_SYS_ADMIN, ENOENT for a context gone, ERANGE for a range no longer
// in its targets) and ends the range.
ApplyResult lru_prio_paddr(Transport &t, uint32_t ctx_id, uint64_t start,
			   uint64_t end, uint64_t page);

} // namespace damonctl
