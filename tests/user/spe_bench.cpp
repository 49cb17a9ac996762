// SPDX-License-Identifier: GPL-2.0
/*
 * Google Benchmark of the SPE parser: throughput over a 1 MiB stream of
 * realistic load/store records, with and without padding and garbage.
 *   build/spe/spe_bench --benchmark_min_time=1
 */
#include <benchmark/benchmark.h>

#include <vector>

#include "spe_parse.h"
#include "spe_cases.h"

namespace {

std::vector<u8> make_stream(bool noisy)
{
	std::vector<u8> s;

	while (s.size() < (1u << 20)) {
		s.insert(s.end(), spe_rec_load,
			 spe_rec_load + sizeof(spe_rec_load));
		s.insert(s.end(), spe_rec_store,
			 spe_rec_store + sizeof(spe_rec_store));
		if (noisy) {
			s.push_back(P_PAD);
			s.push_back(0xff);
		}
	}
	return s;
}

bool count(const damon_perf_spe_record *rec, void *arg)
{
	*static_cast<u64 *>(arg) += rec->vaddr >> 12;
	return true;
}

void parse(benchmark::State &state, bool noisy)
{
	std::vector<u8> s = make_stream(noisy);
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
	parse(state, false);
}
void BM_SpeParseNoisy(benchmark::State &state)
{
	parse(state, true);
}

BENCHMARK(BM_SpeParseClean);
BENCHMARK(BM_SpeParseNoisy);

} // namespace

BENCHMARK_MAIN();
