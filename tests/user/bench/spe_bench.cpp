// SPDX-License-Identifier: GPL-2.0
/*
 * Google Benchmark of the SPE parser: throughput over 1 MiB streams of
 * load/store records, with and without padding and garbage, and a mixed
 * stream as a Neoverse core writes it (spe_stream.h).
 *   build/spe/spe_bench --benchmark_min_time=1
 * `make bench` builds and runs it as build/bench/spe_bench.
 */
#include <benchmark/benchmark.h>

#include <vector>

#include "spe_parse.h"
#include "spe_stream.h"

// Google Benchmark's loop variable is never read, by design.
// NOLINTBEGIN(clang-analyzer-deadcode.DeadStores)
namespace {

bool count(const damon_perf_spe_record *rec, void *arg)
{
	*static_cast<u64 *>(arg) += rec->vaddr >> 12;
	return true;
}

void parse(benchmark::State &state, spe_stream_kind kind)
{
	std::vector<u8> s = spe_stream(kind);
	damon_perf_spe_stats st{};
	u64 sink = 0;

	for (auto _ : state) {
		size_t used = damon_perf_spe_parse(s.data(), s.size(), 0, &st,
						   count, &sink);
		benchmark::DoNotOptimize(used);
	}
	benchmark::DoNotOptimize(sink);
	state.SetBytesProcessed(int64_t(state.iterations()) *
				int64_t(s.size()));
	state.counters["records/s"] = benchmark::Counter(
		double(st.records), benchmark::Counter::kIsRate);
}

void BM_SpeParseClean(benchmark::State &state)
{
	parse(state, spe_stream_kind::clean);
}
void BM_SpeParseNoisy(benchmark::State &state)
{
	parse(state, spe_stream_kind::noisy);
}

void BM_SpeParseMixed(benchmark::State &state)
{
	parse(state, spe_stream_kind::mixed);
}

BENCHMARK(BM_SpeParseClean);
BENCHMARK(BM_SpeParseNoisy);
BENCHMARK(BM_SpeParseMixed);

} // namespace
// NOLINTEND(clang-analyzer-deadcode.DeadStores)

BENCHMARK_MAIN();
