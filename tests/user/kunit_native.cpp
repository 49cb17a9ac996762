// SPDX-License-Identifier: GPL-2.0
/*
 * kunit_native: the KUnit suites of tests/kunit that need no kernel, built
 * unchanged over the kernel shim and its KUnit (kunit.c), each case a
 * GoogleTest test named <suite>.<case> (ctest: KUnit.<suite>.<case>). A
 * failing KUNIT_EXPECT or KUNIT_ASSERT fails the test at its file and
 * line, with the values, as KUnit prints them; kunit_skip() skips it.
 *
 * The cases that need a real kernel are listed once, below, with the
 * reason; they are built (the suite's file is built whole) but not run.
 */
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <string>

#include "../kshim/kunit_shim.h"

namespace {

struct KernelOnly {
	const char *suite;
	const char *name;
	const char *reason;
};

// The one place a case of these suites is left to the KUnit run.
constexpr std::array<KernelOnly, 3> kKernelOnly{{
	{"damon_perf_ring", "ring_spsc_should_deliver_or_count_every_report",
	 "a producer and a consumer kthread bound to two real CPUs"},
	{"damon_perf_ring", "ring_counters_should_show_in_ctx_rings_file",
	 "reads the context's debugfs file (kmod/debugfs.c)"},
	{"damon_perf_drain",
	 "drain_then_aggregate_should_carry_a_bursty_stream",
	 "ends aggregations in kmod/kdamond.c, which builds only as kernel "
	 "code"},
}};

const KernelOnly *kernel_only(const std::string &suite, const std::string &name)
{
	for (const KernelOnly &k : kKernelOnly)
		if (suite == k.suite && name == k.name)
			return &k;
	return nullptr;
}

class KUnitCase : public testing::Test {
public:
	KUnitCase(unsigned int suite, unsigned int index)
		: suite_(suite)
		, index_(index)
	{
	}

	void TestBody() override
	{
		std::array<char, 256> comment{};
		int st = kunit_shim_run(suite_, index_, comment.data(),
					comment.size());

		if (st == KUNIT_SHIM_SKIPPED)
			GTEST_SKIP() << comment.data();
	}

private:
	unsigned int suite_;
	unsigned int index_;
};

} // namespace

extern "C" void kunit_shim_report(const char *name, bool assertion,
				  const char *file, int line, const char *msg)
{
	ADD_FAILURE_AT(file, line)
		<< "# " << name << ": "
		<< (assertion ? "ASSERTION" : "EXPECTATION") << " FAILED at "
		<< file << ":" << line << "\n"
		<< msg;
}

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	std::size_t excluded = 0;

	for (unsigned int s = 0; s < kunit_shim_nr_suites(); s++) {
		const std::string suite = kunit_shim_suite_name(s);
		const char *name;

		for (unsigned int i = 0;
		     (name = kunit_shim_case_name(s, i)) != nullptr; i++) {
			if (kernel_only(suite, name) != nullptr) {
				excluded++;
				continue;
			}
			// GoogleTest keeps the factory for the whole run,
			// which the static analyzer takes for a leak
#ifndef __clang_analyzer__
			testing::RegisterTest(
				suite.c_str(), name, nullptr, nullptr, __FILE__,
				__LINE__, [s, i]() -> testing::Test * {
					return new KUnitCase(s, i);
				});
#endif
		}
	}
	// a case renamed or gone leaves its entry behind: say so
	if (excluded != kKernelOnly.size()) {
		std::fprintf(stderr,
			     "kunit_native: %zu of the %zu kernel-only "
			     "cases name no registered case\n",
			     kKernelOnly.size() - excluded, kKernelOnly.size());
		return 1;
	}
	return RUN_ALL_TESTS();
}
