// SPDX-License-Identifier: GPL-2.0
// The native cost curves (make bench, section 10): the module's own
// ring.c, drain.c and regions.c over tests/kshim, one simulated second of
// monitoring per point, as the kdamond and the handlers would spend it.
//
//   cost_curves [--seconds=N]
//
// A point: 10 aggregations of 100 ms; in each, RATE / 10 reports through
// damon_perf_report_access() (timed: the handler's ring push; the shim has
// no perf core around it), queued in chunks of at most 8192 and drained
// by damon_perf_drain_rings() after each chunk, then one aggregation of
// a REGIONS-region target that was credited RATE / 10 samples (the drain
// and the aggregation timed: the kdamond's work). Curves:
//   native_rate     10^3 .. 10^6 reports/s at 1000 regions
//   native_regions  10 .. 10^4 regions (the module's largest) at 10^5/s
// Prints per point, one line:
//   curve curve=NAME x=N cpus=1 samples_per_s=N kdamond_ms_per_s=F
//         kdamond_ns_per_sample=F handler_ns_per_sample=F drained=N
// The rate is the one asked for, not achieved in real time: a simulated
// second costs what it costs. Exit 1 when a report is lost or uncredited.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "glue.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned int kAggregations = 10; // one simulated second
constexpr unsigned int kChunk = 8192;      // reports per drain pass
constexpr unsigned int kIntervals = 10;    // sample intervals per aggr

double ns_since(Clock::time_point t0)
{
	return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
			      Clock::now() - t0)
			      .count());
}

// One point: @rate reports a second over @regions regions; false when a
// report was lost.
bool point(const char *curve, unsigned long x, unsigned long rate,
	   unsigned long regions, unsigned int seconds)
{
	bench_ctx *drain = bench_drain_new(regions, 0);
	// regions of 64 KiB, so that min = max = @regions can hold
	bench_ctx *aggr = bench_regions_new(regions * 65536, unsigned(regions),
					    unsigned(regions));
	const unsigned long per_aggr = std::max(1UL, rate / kAggregations);
	double handler_ns = 0, kdamond_ns = 0;
	unsigned long drained = 0, matched = 0, offered = 0;
	uint64_t seed = 1;

	for (unsigned int s = 0; s < seconds * kAggregations; s++) {
		for (unsigned long done = 0; done < per_aggr;) {
			auto n = unsigned(std::min<unsigned long>(
				kChunk, per_aggr - done));
			bench_drain_fill_reports(drain, n, seed++);
			auto t0 = Clock::now();
			bench_drain_queue(drain);
			handler_ns += ns_since(t0);
			const unsigned long m0 = bench_matched();
			t0 = Clock::now();
			drained += bench_drain_pass(drain);
			kdamond_ns += ns_since(t0);
			matched += bench_matched() - m0;
			done += n;
			offered += n;
		}
		bench_regions_credit(aggr, unsigned(per_aggr), kIntervals,
				     regions * 65536 / 8, 90, seed++);
		auto t0 = Clock::now();
		bench_regions_aggregate(aggr, BENCH_SPLIT_SAMPLES);
		kdamond_ns += ns_since(t0);
	}
	bench_free(drain);
	bench_free(aggr);
	const double secs = seconds;
	std::printf("curve curve=%s x=%lu cpus=1 samples_per_s=%lu "
		    "kdamond_ms_per_s=%.3f kdamond_ns_per_sample=%.0f "
		    "handler_ns_per_sample=%.1f drained=%lu\n",
		    curve, x, rate, kdamond_ns / 1e6 / secs,
		    kdamond_ns / double(offered), handler_ns / double(offered),
		    drained);
	return drained == offered && matched == offered;
}

} // namespace

int main(int argc, char **argv)
{
	unsigned int seconds = 1;
	bool ok = true;

	for (int i = 1; i < argc; i++) {
		if (!std::strncmp(argv[i], "--seconds=", 10)) {
			seconds = unsigned(
				std::strtoul(argv[i] + 10, nullptr, 10));
		} else {
			std::fprintf(stderr,
				     "usage: cost_curves [--seconds=N]\n");
			return 2;
		}
	}
	if (!seconds) {
		std::fprintf(stderr,
			     "cost_curves: --seconds must be at least 1\n");
		return 2;
	}
	for (unsigned long r : {1000UL, 10000UL, 100000UL, 1000000UL})
		ok = point("native_rate", r, r, 1000, seconds) && ok;
	for (unsigned long n : {10UL, 100UL, 1000UL, 10000UL})
		ok = point("native_regions", n, 100000, n, seconds) && ok;
	if (!ok)
		std::fprintf(
			stderr,
			"cost_curves: a report was lost or not credited\n");
	return ok ? 0 : 1;
}
