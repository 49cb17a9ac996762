// SPDX-License-Identifier: GPL-2.0
// Sample streams and the segmentation loop of kmod/split.c
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

// The depth of the cuts of a region with n samples, as split_depth() of
// kmod/split.c: 2 log2(n) + 2, within 16 .. 34.
inline unsigned int split_depth(uint32_t n)
{
	unsigned int l = 0;

	while ((n >> 1) >> l)
		l++;
	return std::clamp(2 * l + 2, 16u, 34u);
}

// Cut [first, end) pages as cut_region() does: depth first, pieces of
// pieces down to split_depth(samples), at most max_cuts cuts (the target's
// room under max_nr_regions); returns the sorted cut pages. *steps, when
// given, receives the samples the cut tests scanned (the cost).
inline std::vector<unsigned long>
segment(const std::vector<damon_perf_sample> &s, unsigned long first,
	unsigned long end, unsigned int max_cuts = ~0U,
	uint64_t *steps = nullptr)
{
	struct Piece {
		unsigned long first, end;
		uint32_t lo, hi;
		unsigned int depth;
	};
	const unsigned int limit = split_depth(uint32_t(s.size()));
	std::vector<Piece> stack{{first, end, 0, uint32_t(s.size()), 0}};
	std::vector<unsigned long> cuts;

	if (steps)
		*steps = 0;
	while (!stack.empty() && cuts.size() < max_cuts) {
		Piece p = stack.back();
		unsigned long page;
		uint32_t mid;

		stack.pop_back();
		if (p.depth >= limit)
			continue;
		if (steps)
			*steps += p.hi - p.lo;
		if (!damon_perf_density_cut(s.data(), p.lo, p.hi, p.first,
					    p.end, &page, &mid))
			continue;
		cuts.push_back(page);
		stack.push_back({p.first, page, p.lo, mid, p.depth + 1});
		stack.push_back({page, p.end, mid, p.hi, p.depth + 1});
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
