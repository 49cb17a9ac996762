// SPDX-License-Identifier: GPL-2.0
// lru_prio of physical-address contexts: the module marks the LRU folios
// accessed (LRU_PRIO), in requests of a bounded number of pages.
#include "scheme_paddr.hpp"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include <linux/damon_perf.h>

#include "errors.hpp"

namespace damonctl {

ApplyResult lru_prio_paddr(Transport &t, uint32_t ctx_id, uint64_t start,
			   uint64_t end, uint64_t page)
{
	ApplyResult res;
	const uint64_t span = uint64_t(DAMON_PERF_LRU_PAGES_MAX) * page;

	for (uint64_t a = start; a < end;) {
		// at most LRU_PAGES_MAX pages overlapped from a's page on
		uint64_t b = std::min(end, a / page * page + span);
		int err = 0;

		try {
			LruResult r = t.lru_prio(CtxRef::by_id(ctx_id), a, b);
			res.sz_applied += std::min(r.nr_applied * page, b - a);
		} catch (const std::system_error &e) {
			err = e.code().value() ? e.code().value() : EIO;
		} catch (const ModuleNotLoaded &) {
			err = ENOENT;
		} catch (const ProtocolError &) {
			err = EPROTO;
		}
		if (err) {
			res.failed[err] += (end - a + page - 1) / page;
			break;
		}
		a = b;
	}
	return res;
}

} // namespace damonctl
