// SPDX-License-Identifier: GPL-2.0
/*
 * kmod_test: the unit tests of the module's pure code (kmod/ring.c,
 * drain.c, regions.c, vaddr.c, split.c, density.c, stats.c built in
 * userspace over tests/kshim), C cases (kt.h) run as GoogleTest tests,
 * one test a case, so that ctest runs and names each:
 * Kmod/KmodRing.Case/<case>.
 */
#include <gtest/gtest.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "kt.h"

extern "C" int kt_check(const char *file, int line, const char *expr, int ok,
			unsigned long long a, unsigned long long b)
{
	if (!ok)
		ADD_FAILURE_AT(file, line)
			<< "expected " << expr << "\n  left:  " << a << " ("
			<< static_cast<long long>(a) << ")\n  right: " << b
			<< " (" << static_cast<long long>(b) << ")";
	return ok;
}

extern "C" void kt_fail(const char *file, int line, const char *fmt, ...)
{
	std::array<char, 512> msg{};
	va_list ap;

	va_start(ap, fmt);
	std::vsnprintf(msg.data(), msg.size(), fmt, ap);
	va_end(ap);
	ADD_FAILURE_AT(file, line) << msg.data();
}

namespace {

struct KmodCase {
	const kt_suite *suite;
	const kt_case *c;
};

// the case's name where GoogleTest prints the parameter
void PrintTo(const KmodCase &k, std::ostream *os)
{
	*os << k.suite->name << "." << k.c->name;
}

std::vector<KmodCase> cases_of(const kt_suite &suite)
{
	std::vector<KmodCase> v;

	for (const kt_case *c = suite.cases; c->name != nullptr; c++)
		v.push_back({&suite, c});
	return v;
}

std::string case_name(const testing::TestParamInfo<KmodCase> &info)
{
	return info.param.c->name;
}

class KmodTest : public testing::TestWithParam<KmodCase> {
protected:
	static void run(const KmodCase &k)
	{
		if (k.suite->init != nullptr)
			k.suite->init();
		k.c->run();
		if (k.suite->fini != nullptr)
			k.suite->fini();
	}
};

class KmodRing : public KmodTest {};
class KmodDrain : public KmodTest {};
class KmodRegions : public KmodTest {};
class KmodStats : public KmodTest {};

TEST_P(KmodRing, Case)
{
	run(GetParam());
}
TEST_P(KmodDrain, Case)
{
	run(GetParam());
}
TEST_P(KmodRegions, Case)
{
	run(GetParam());
}
TEST_P(KmodStats, Case)
{
	run(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kmod, KmodRing,
			 testing::ValuesIn(cases_of(kt_ring_suite)), case_name);
INSTANTIATE_TEST_SUITE_P(Kmod, KmodDrain,
			 testing::ValuesIn(cases_of(kt_drain_suite)),
			 case_name);
INSTANTIATE_TEST_SUITE_P(Kmod, KmodRegions,
			 testing::ValuesIn(cases_of(kt_regions_suite)),
			 case_name);
INSTANTIATE_TEST_SUITE_P(Kmod, KmodStats,
			 testing::ValuesIn(cases_of(kt_stats_suite)),
			 case_name);

} // namespace
