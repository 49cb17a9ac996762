// SPDX-License-Identifier: GPL-2.0
// Sample streams and the segmentation loop of kmod/regions.c
// (cut_region()) over plain page ranges, for the density test and bench.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "density.h"

namespace density {

inline damon_perf_sample sample(unsigned long page)
{
	return {damon_perf_sample_key(0, page << PAGE_SHIFT), 0};
}

inline void sort(std::vector<damon_perf_sample> &s)
{
	std::sort(s.begin(), s.end(),
		  [](const damon_perf_sample &a, const damon_perf_sample &b) {
			  return a.key < b.key;
		  });
}

// Cut [first, end) pages at most max_cuts times, as cut_region() does;
// returns the sorted cut pages.
inline std::vector<unsigned long>
segment(const std::vector<damon_perf_sample> &s, unsigned long first,
	unsigned long end, unsigned int max_cuts = 16)
{
	struct Piece {
		unsigned long first, end;
		uint32_t lo, hi;
	};
	std::vector<Piece> stack{{first, end, 0, uint32_t(s.size())}};
	std::vector<unsigned long> cuts;

	while (!stack.empty() && cuts.size() < max_cuts) {
		Piece p = stack.back();
		unsigned long page;
		uint32_t mid;

		stack.pop_back();
		if (!damon_perf_density_cut(s.data(), p.lo, p.hi, p.first,
					    p.end, &page, &mid))
			continue;
		cuts.push_back(page);
		stack.push_back({p.first, page, p.lo, mid});
		stack.push_back({page, p.end, mid, p.hi});
	}
	std::sort(cuts.begin(), cuts.end());
	return cuts;
}

// n samples: a share `hot` of them uniform in [hs, he), the rest uniform
// over [0, pages).
inline std::vector<damon_perf_sample> stream(uint32_t n, unsigned long pages,
					     unsigned long hs, unsigned long he,
					     double hot, unsigned seed)
{
	std::mt19937_64 rng(seed);
	std::vector<damon_perf_sample> s;

	s.reserve(n);
	for (uint32_t i = 0; i < n; i++) {
		bool in = std::uniform_real_distribution<>(0, 1)(rng) < hot;
		unsigned long lo = in ? hs : 0, hi = in ? he : pages;
		s.push_back(sample(std::uniform_int_distribution<unsigned long>(
			lo, hi - 1)(rng)));
	}
	return s;
}

} // namespace density
