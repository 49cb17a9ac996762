// SPDX-License-Identifier: GPL-2.0
/*
 * Fixed work for callgrind, whose instruction counts do not depend on the
 * machine's load: `bench_count CASE N` sets CASE up, then runs it N times
 * inside bench_timed(), which scripts/bench.sh collects alone:
 *   valgrind --tool=callgrind --toggle-collect=bench_timed \
 *	build/bench/bench_count report 100000
 * Cases: counter, report, report_full, credit_R, linear_R, pass_R (R
 * regions), aggr_MAX_SAMPLES, spe_clean, spe_noisy, spe_mixed (N: MiB).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "glue.h"
#include "spe_stream.h"

namespace {

struct Case {
	std::string name;
	unsigned long arg = 0, arg2 = 0;
	bench_ctx *b = nullptr;
	std::vector<u8> stream;
};

bool count_rec(const damon_perf_spe_record *rec, void *arg)
{
	*static_cast<u64 *>(arg) += rec->vaddr >> 12;
	return true;
}

} // namespace

extern "C" __attribute__((noinline)) unsigned long bench_timed(Case *c,
							       unsigned long n)
{
	unsigned long sum = 0;

	if (c->name == "counter") {
		for (unsigned long i = 0; i < n; i++)
			bench_counter_inc();
	} else if (c->name == "report") {
		for (unsigned long i = 0; i < n; i++) {
			sum += bench_report_one(c->b);
			if ((i & 127) == 127)
				bench_rings_forget(c->b);
		}
	} else if (c->name == "report_full") {
		for (unsigned long i = 0; i < n; i++)
			sum += bench_report_one(c->b);
	} else if (c->name == "credit") {
		for (unsigned long i = 0; i < n; i++)
			sum += bench_drain_credit(c->b);
	} else if (c->name == "linear") {
		for (unsigned long i = 0; i < n; i++)
			sum += bench_drain_credit_linear(c->b);
	} else if (c->name == "aggr") {
		for (unsigned long i = 0; i < n; i++)
			bench_regions_aggregate(c->b, BENCH_SPLIT_RANDOM);
	} else if (c->name.rfind("spe_", 0) == 0) {
		damon_perf_spe_stats st{};
		u64 s = 0;

		for (unsigned long i = 0; i < n; i++)
			sum += damon_perf_spe_parse(c->stream.data(),
						    c->stream.size(), 0, &st,
						    count_rec, &s);
		sum += s;
	}
	return sum;
}

int main(int argc, char **argv)
{
	Case c;
	unsigned long n;

	if (argc != 3) {
		std::fprintf(stderr, "usage: bench_count CASE N\n");
		return 2;
	}
	c.name = argv[1];
	n = std::strtoul(argv[2], nullptr, 0);
	if (auto us = c.name.find('_'); us != std::string::npos &&
					c.name.rfind("spe_", 0) != 0 &&
					c.name != "report_full") {
		std::string rest = c.name.substr(us + 1);
		c.name.resize(us);
		c.arg = std::strtoul(rest.c_str(), nullptr, 0);
		if (auto us2 = rest.find('_'); us2 != std::string::npos)
			c.arg2 = std::strtoul(rest.c_str() + us2 + 1, nullptr,
					      0);
	}
	if (c.name == "report" || c.name == "report_full") {
		c.b = bench_rings_new(0);
		if (c.name == "report_full")
			bench_report_batch(c.b, 256);
	} else if (c.name == "credit" || c.name == "linear") {
		c.b = bench_drain_new(c.arg, 0);
		// one credit pass of 64 reports per step
		bench_drain_fill_reports(c.b, 64, 1);
		if (bench_drain_prepare(c.b))
			return 1;
	} else if (c.name == "aggr") {
		c.b = bench_regions_new(256UL << 20, 10, unsigned(c.arg));
		for (int i = 0; i < 30; i++) {
			bench_regions_credit(c.b, unsigned(c.arg2), 20,
					     2UL << 20, 90, uint64_t(i) + 1);
			bench_regions_aggregate(c.b, BENCH_SPLIT_RANDOM);
		}
		bench_regions_credit(c.b, unsigned(c.arg2), 20, 2UL << 20, 90,
				     99);
	} else if (c.name == "spe_clean") {
		c.stream = spe_stream(spe_stream_kind::clean);
	} else if (c.name == "spe_noisy") {
		c.stream = spe_stream(spe_stream_kind::noisy);
	} else if (c.name == "spe_mixed") {
		c.stream = spe_stream(spe_stream_kind::mixed);
	} else if (c.name != "counter") {
		std::fprintf(stderr, "bench_count: unknown case %s\n", argv[1]);
		return 2;
	}
	std::printf("%lu\n", bench_timed(&c, n));
	bench_free(c.b);
	return 0;
}
