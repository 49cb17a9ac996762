// SPDX-License-Identifier: GPL-2.0
// GoogleTest of kmod/density.c built in userspace: where the samples split
// mode cuts a region.
#include <gtest/gtest.h>

#include "density_common.hpp"

using density::segment;
using density::stream;

TEST(Density, HotRangeInsideARegionGetsItsExactEdges)
{
	std::vector<damon_perf_sample> s;
	for (int pass = 0; pass < 2; pass++)
		for (unsigned long p = 70000; p < 70256; p++)
			s.push_back(density::sample(p));
	density::sort(s);
	auto cuts = segment(s, 0, 262144);
	EXPECT_EQ(cuts, (std::vector<unsigned long>{70000, 70256}));
}

TEST(Density, UniformSamplesAreNotCut)
{
	for (unsigned seed = 1; seed <= 20; seed++) {
		auto s = stream(8192, 16384, 0, 16384, 1.0, seed);
		density::sort(s);
		EXPECT_TRUE(segment(s, 0, 16384).empty()) << seed;
	}
}

TEST(Density, SparseHotRangeWithNoiseIsFoundWithinAFewPages)
{
	auto s = stream(300, 262144, 100000, 100256, 0.97, 7);
	density::sort(s);
	auto cuts = segment(s, 0, 262144);
	ASSERT_GE(cuts.size(), 2u);
	// the cuts around the hot range lie within 8 pages of its edges
	bool left = false, right = false;
	for (auto c : cuts) {
		left |= c >= 100000 && c <= 100008;
		right |= c >= 100248 && c <= 100256;
	}
	EXPECT_TRUE(left);
	EXPECT_TRUE(right);
}

TEST(Density, FewSamplesAreCutOutOnlyWhenConcentrated)
{
	std::vector<damon_perf_sample> one{density::sample(5000)};
	EXPECT_EQ(segment(one, 0, 65536),
		  (std::vector<unsigned long>{5000, 5001}));
	// a region only 1000 pages long: one sample is no evidence
	EXPECT_TRUE(segment(one, 4500, 5500).empty());
	std::vector<damon_perf_sample> spread{density::sample(10),
					      density::sample(60000)};
	EXPECT_TRUE(segment(spread, 0, 65536).empty());
}

// Few samples spread over a region but with a run on one or two pages that
// chance would hardly give: the run is cut out (a loop on the last page of
// a stack next to two samples on its first), a pair of the same few on one
// page is not.
TEST(Density, FewSamplesWithAnUnlikelyRunCutTheRunOut)
{
	std::vector<damon_perf_sample> run{
		density::sample(0x0c1), density::sample(0x0c1),
		density::sample(0x45b), density::sample(0x45b),
		density::sample(0x45b), density::sample(0x45b)};
	EXPECT_EQ(segment(run, 0x0c1, 0x45c),
		  (std::vector<unsigned long>{0x45b}));
	// the run at the first page: cut at its right edge (the lone sample
	// left in 767 pages is no evidence)
	std::vector<damon_perf_sample> left{
		density::sample(0x100), density::sample(0x100),
		density::sample(0x100), density::sample(0x3f0)};
	EXPECT_EQ(segment(left, 0x100, 0x400),
		  (std::vector<unsigned long>{0x101}));
	// two of six on one page of 923: 15 * 2 / 923, not below 1/1000
	std::vector<damon_perf_sample> pair{
		density::sample(0x0c1), density::sample(0x200),
		density::sample(0x2a0), density::sample(0x300),
		density::sample(0x45b), density::sample(0x45b)};
	EXPECT_TRUE(segment(pair, 0x0c1, 0x45c).empty());
	// the run over a short region is no evidence: 4 * 4 / 10^3
	std::vector<damon_perf_sample> short_run{
		density::sample(0), density::sample(9), density::sample(9),
		density::sample(9)};
	EXPECT_TRUE(segment(short_run, 0, 10).empty());
}

// A paddr context's hot set: the frames of a hot range scattered over RAM
// in runs. One aggregation isolates every run (16 cuts a region did not),
// and the cut tests scan each sample at most split_depth() + 1 times.
TEST(Density, ScatteredRunsAreAllIsolatedAtBoundedCost)
{
	const unsigned long pages = 524288; // 2 GiB
	std::mt19937_64 rng(11);
	std::vector<unsigned long> starts;
	std::vector<damon_perf_sample> s;

	starts.reserve(60);
	for (int i = 0; i < 60; i++)
		starts.push_back(std::uniform_int_distribution<unsigned long>(
					 0, pages / 60 - 16)(rng) +
				 i * (pages / 60));
	for (int pass = 0; pass < 5; pass++)
		for (auto b : starts)
			for (unsigned long p = b; p < b + 8; p++)
				s.push_back(density::sample(p));
	density::sort(s);
	uint64_t steps = 0;
	auto cuts = segment(s, 0, pages, ~0U, &steps);
	for (auto b : starts) {
		EXPECT_TRUE(std::binary_search(cuts.begin(), cuts.end(), b))
			<< b;
		EXPECT_TRUE(std::binary_search(cuts.begin(), cuts.end(), b + 8))
			<< b + 8;
	}
	EXPECT_LE(steps,
		  uint64_t(density::split_depth(uint32_t(s.size())) + 1) *
			  s.size());
	// at most max_cuts, whatever the samples ask for
	EXPECT_EQ(segment(s, 0, pages, 16).size(), 16u);
}

TEST(Density, UnsortedInputNeverDividesOutOfRange)
{
	auto s = stream(4096, 16384, 1000, 2000, 0.9, 3);
	std::reverse(s.begin(), s.end());
	unsigned long page = 0;
	uint32_t mid = 0;
	// any answer, but no crash (SIGFPE) and a cut inside the region
	if (damon_perf_density_cut(s.data(), 0, uint32_t(s.size()), 0, 16384,
				   &page, &mid)) {
		EXPECT_GT(page, 0u);
		EXPECT_LT(page, 16384u);
	}
}

// A region's few samples all on three or four pages: the globals of the
// accuracy guard's workload, [4860, 4872) KiB of its 776 KiB data region
// (194 pages), three samples an aggregation; with only one or two pages
// counted as concentrated, the whole region stayed hot (PA 0.798 over
// every aggregation on 7.2). Cut in one aggregation when chance would
// hardly give it (3 (3/194)^2 < 1/1000); on five pages, or three over a
// short region, they wait for more.
TEST(Density, FewSamplesOnThreeOrFourPagesAreCutOut)
{
	const unsigned long first = 1024 + 0, len = 194, at = first + 191;
	std::vector<damon_perf_sample> three{density::sample(at),
					     density::sample(at + 1),
					     density::sample(at + 2)};
	EXPECT_EQ(segment(three, first, first + len),
		  (std::vector<unsigned long>{at}));
	std::vector<damon_perf_sample> four{
		density::sample(first + 50), density::sample(first + 51),
		density::sample(first + 53), density::sample(first + 53)};
	EXPECT_EQ(segment(four, first, first + len),
		  (std::vector<unsigned long>{first + 50, first + 54}));
	std::vector<damon_perf_sample> five{density::sample(first + 50),
					    density::sample(first + 52),
					    density::sample(first + 54)};
	EXPECT_TRUE(segment(five, first, first + len).empty());
	// 3 (3/40)^2 = 0.017: no evidence in a 40-page region
	EXPECT_TRUE(segment(three, first + 160, first + 200).empty());
}
