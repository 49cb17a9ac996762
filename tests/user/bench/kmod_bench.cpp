// SPDX-License-Identifier: GPL-2.0
/*
 * Google Benchmark of the module's own ring, drain/credit and region code
 * (kmod/ring.c, drain.c, regions.c built in userspace over
 * tests/kshim, driven through tests/user/bench/glue.c).
 * Run by `make bench` (scripts/bench.sh); alone:
 *   build/bench/kmod_bench --benchmark_filter=Report
 * Absolute times depend on the machine; compare ratios within one run.
 */
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>

#include "glue.h"

// Google Benchmark's loop variable is never read, by design.
// NOLINTBEGIN(clang-analyzer-deadcode.DeadStores)
namespace {

constexpr unsigned int kBatch = 128; // below the default ring's watermark

// ---- report_access against a per-CPU counter increment ----

void BM_CounterIncInline(benchmark::State &state)
{
	for (auto _ : state)
		bench_counter_batch(kBatch);
	benchmark::DoNotOptimize(bench_counter_value());
	state.SetItemsProcessed(int64_t(state.iterations()) * kBatch);
}
BENCHMARK(BM_CounterIncInline);

void BM_CounterIncCall(benchmark::State &state)
{
	for (auto _ : state)
		for (unsigned int i = 0; i < kBatch; i++)
			bench_counter_inc();
	benchmark::DoNotOptimize(bench_counter_value());
	state.SetItemsProcessed(int64_t(state.iterations()) * kBatch);
}
BENCHMARK(BM_CounterIncCall);

// The one locked RMW of report_access (set_bit of the pending mask).
void BM_LockedOr(benchmark::State &state)
{
	for (auto _ : state)
		bench_locked_or_batch(kBatch);
	state.SetItemsProcessed(int64_t(state.iterations()) * kBatch);
}
BENCHMARK(BM_LockedOr);

void BM_ReportAccess(benchmark::State &state)
{
	bench_ctx *b = bench_rings_new(0);
	uint64_t queued = 0;

	for (auto _ : state) {
		queued += bench_report_batch(b, kBatch);
		bench_rings_forget(b);
	}
	if (queued != uint64_t(state.iterations()) * kBatch)
		state.SkipWithError("a report was refused");
	state.SetItemsProcessed(int64_t(state.iterations()) * kBatch);
	bench_free(b);
}
BENCHMARK(BM_ReportAccess);

// A full ring: every report is refused and counted (the drop path).
void BM_ReportAccessFull(benchmark::State &state)
{
	bench_ctx *b = bench_rings_new(0);
	uint64_t queued = 0;

	bench_report_batch(b, 256);
	for (auto _ : state)
		queued += bench_report_batch(b, kBatch);
	if (queued)
		state.SkipWithError("a full ring took a report");
	state.SetItemsProcessed(int64_t(state.iterations()) * kBatch);
	bench_free(b);
}
BENCHMARK(BM_ReportAccessFull);

// ---- drain + credit: binary search against a linear scan ----

constexpr unsigned int kReports = 65536;

void RegionCounts(benchmark::internal::Benchmark *b)
{
	for (long n : {10L, 1000L, 10000L, 1000000L})
		b->Args({n, 0});
	b->Args({10000L, 1}); // vaddr: routed by tgid first
}

void BM_DrainCredit(benchmark::State &state)
{
	bench_ctx *b = bench_drain_new(state.range(0), int(state.range(1)));
	uint64_t matched = 0;

	bench_drain_fill_reports(b, kReports, 1);
	if (bench_drain_prepare(b))
		state.SkipWithError("prepare failed");
	for (auto _ : state)
		matched += bench_drain_credit(b);
	if (matched != uint64_t(state.iterations()) * kReports)
		state.SkipWithError("a report matched no region");
	state.SetItemsProcessed(int64_t(state.iterations()) * kReports);
	state.counters["regions"] = double(state.range(0));
	bench_free(b);
}
BENCHMARK(BM_DrainCredit)->Apply(RegionCounts);

void BM_DrainCreditLinear(benchmark::State &state)
{
	bench_ctx *b = bench_drain_new(state.range(0), int(state.range(1)));
	// keep one iteration around 10^7 region checks
	unsigned int n = unsigned(
		std::clamp<long>((1L << 24) / state.range(0), 16, kReports));
	uint64_t matched = 0;

	bench_drain_fill_reports(b, n, 1);
	if (bench_drain_prepare(b))
		state.SkipWithError("prepare failed");
	for (auto _ : state)
		matched += bench_drain_credit_linear(b);
	if (matched != uint64_t(state.iterations()) * n)
		state.SkipWithError("a report matched no region");
	state.SetItemsProcessed(int64_t(state.iterations()) * n);
	state.counters["regions"] = double(state.range(0));
	bench_free(b);
}
BENCHMARK(BM_DrainCreditLinear)->Apply(RegionCounts);

// A whole kdamond pass: snapshot, every pending ring, credit.
constexpr unsigned int kPassReports = 8192; // 4096 per CPU, 2 CPUs

void BM_DrainPass(benchmark::State &state)
{
	bench_ctx *b = bench_drain_new(state.range(0), int(state.range(1)));
	uint64_t drained = 0;
	unsigned long matched = bench_matched();

	bench_drain_fill_reports(b, kPassReports, 2);
	for (auto _ : state) {
		state.PauseTiming();
		bench_drain_queue(b);
		state.ResumeTiming();
		drained += bench_drain_pass(b);
	}
	if (drained != uint64_t(state.iterations()) * kPassReports)
		state.SkipWithError("reports left in the rings");
	if (bench_matched() - matched != drained)
		state.SkipWithError("a drained report was not credited");
	state.SetItemsProcessed(int64_t(state.iterations()) * kPassReports);
	state.counters["regions"] = double(state.range(0));
	bench_free(b);
}
BENCHMARK(BM_DrainPass)->Apply(RegionCounts)->Iterations(40);

// ---- region adjustment per aggregation ----
//
// One aggregation as the kdamond runs it (age + merge, reset, split) on a
// 256 MiB paddr target, after crediting the samples of one aggregation
// (20 sample intervals, 90% in a 2 MiB hot range; crediting is not timed).
// split: 0 = random (DAMON's); split modes added to regions.c join
// enum bench_split_mode in glue.h.

constexpr unsigned long kSpan = 256UL << 20; // 256 MiB target
constexpr unsigned long kHot = 2UL << 20;    // 2 MiB hot range
constexpr unsigned int kIntervals = 20;      // sample intervals per aggr
constexpr unsigned int kWarmup = 30;         // aggregations to settle

void AggrArgs(benchmark::internal::Benchmark *b)
{
	// DAMON's default bounds, then floors that hold 10^2..10^4 regions
	static const long bounds[][2] = {
		{10, 1000},
		{100, 1000},
		{1000, 10000},
		{5000, 10000},
	};

	for (int mode = 0; mode < BENCH_NR_SPLIT_MODES; mode++)
		for (const auto &mm : bounds)
			for (long samples : {0L, 1000L, 100000L})
				b->Args({mode, mm[0], mm[1], samples});
	b->ArgNames({"split", "min", "max", "samples"});
}

void BM_RegionsAggregate(benchmark::State &state)
{
	auto mode = bench_split_mode(state.range(0));
	auto min_nr = unsigned(state.range(1));
	auto max_nr = unsigned(state.range(2));
	auto samples = unsigned(state.range(3));
	bench_ctx *b = bench_regions_new(kSpan, min_nr, max_nr);
	uint64_t seed = 1, regions = 0;

	for (unsigned int i = 0; i < kWarmup; i++) {
		bench_regions_credit(b, samples, kIntervals, kHot, 90, seed++);
		bench_regions_aggregate(b, mode);
	}
	for (auto _ : state) {
		state.PauseTiming();
		bench_regions_credit(b, samples, kIntervals, kHot, 90, seed++);
		regions += bench_regions_nr(b);
		state.ResumeTiming();
		bench_regions_aggregate(b, mode);
	}
	state.counters["regions"] =
		double(regions) / double(state.iterations());
	bench_free(b);
}
BENCHMARK(BM_RegionsAggregate)->Apply(AggrArgs)->Iterations(50);

} // namespace
// NOLINTEND(clang-analyzer-deadcode.DeadStores)

BENCHMARK_MAIN();
