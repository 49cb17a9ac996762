// SPDX-License-Identifier: GPL-2.0
/*
 * Google Benchmark of the samples split mode's cost per aggregation: sort
 * the kept samples, then segment a region (kmod/density.c, the loop of
 * cut_region()), at sample counts up to the per-context budget (65536).
 *   build/tools/density/density_bench
 */
#include <benchmark/benchmark.h>

#include "density_common.hpp"

namespace {

constexpr unsigned long PAGES = 262144; // 1 GiB of 4 KiB pages

void sort_and_cut(benchmark::State &state)
{
	const auto n = uint32_t(state.range(0));
	// 4 MiB hot range holding 95% of the samples, noise elsewhere
	const auto base = density::stream(n, PAGES, 100000, 101024, 0.95, 1);
	size_t cuts = 0;

	for (auto _ : state) { // NOLINT(clang-analyzer-deadcode.DeadStores)
		auto s = base;
		density::sort(s);
		cuts += density::segment(s, 0, PAGES).size();
		benchmark::DoNotOptimize(s.data());
	}
	state.SetItemsProcessed(int64_t(state.iterations()) * n);
	state.counters["cuts"] =
		benchmark::Counter(double(cuts) / double(state.iterations()));
}

void cut_only(benchmark::State &state)
{
	const auto n = uint32_t(state.range(0));
	auto s = density::stream(n, PAGES, 100000, 101024, 0.95, 1);

	density::sort(s);
	for (auto _ : state) // NOLINT(clang-analyzer-deadcode.DeadStores)
		benchmark::DoNotOptimize(density::segment(s, 0, PAGES));
	state.SetItemsProcessed(int64_t(state.iterations()) * n);
}

} // namespace

BENCHMARK(sort_and_cut)->RangeMultiplier(4)->Range(1024, 65536);
BENCHMARK(cut_only)->RangeMultiplier(4)->Range(1024, 65536);
BENCHMARK_MAIN();
