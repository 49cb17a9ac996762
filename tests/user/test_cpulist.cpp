// SPDX-License-Identifier: GPL-2.0
// The one CPU-list parser (tools/src/core/cpulist.cpp: cpumask filters, the
// online CPUs, spe attach --cpus) at its bounds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.hpp"
#include "cpulist.hpp"
#include "errors.hpp"

using namespace damonctl;

namespace {

using Cpus = std::vector<unsigned>;

std::string error_of(const std::string &list)
{
	try {
		parse_cpu_list(list);
	} catch (const UsageError &e) {
		return e.what();
	}
	return "(accepted)";
}

} // namespace

TEST(CpuList, SinglesAndRanges)
{
	EXPECT_EQ(parse_cpu_list("0"), Cpus{0});
	EXPECT_EQ(parse_cpu_list("0-3,8"), (Cpus{0, 1, 2, 3, 8}));
	EXPECT_EQ(parse_cpu_list("5-5"), Cpus{5});
	EXPECT_EQ(parse_cpu_list("007"), Cpus{7});
}

TEST(CpuList, SortedAndDuplicatesMerged)
{
	EXPECT_EQ(parse_cpu_list("8,0-2,1,2-3,8"), (Cpus{0, 1, 2, 3, 8}));
	EXPECT_EQ(canonical_cpulist("3,0-1,2,7"), "0-3,7");
	EXPECT_EQ(canonical_cpulist("4,4,4"), "4");
}

// A refused list and the whole message.
struct Refused {
	const char *list;
	const char *message;
};

TEST(CpuList, RefusesEmptyItemsNonNumbersAndReversedRanges)
{
	const Refused cases[] = {
		// empty
		{"", "empty cpu list"},
		{",", "bad cpu list ',' at ''"},
		{"1,,2", "bad cpu list '1,,2' at ''"},
		{"1,", "bad cpu list '1,' at ''"},
		{"-", "bad cpu list '-' at '-'"},
		// not numbers
		{"-1", "bad cpu list '-1' at '-1'"},
		{"1-", "bad cpu list '1-' at '1-'"},
		{"1-2-3", "bad cpu list '1-2-3' at '1-2-3'"},
		{" 1", "bad cpu list ' 1' at ' 1'"},
		{"1\n", "bad cpu list '1\n' at '1\n'"},
		{"+1", "bad cpu list '+1' at '+1'"},
		{"3abc", "bad cpu list '3abc' at '3abc'"},
		{"0x3", "bad cpu list '0x3' at '0x3'"},
		// reversed
		{"3-1", "bad cpu range '3-1'"},
		{"0,9-8", "bad cpu range '9-8'"},
	};

	for (const Refused &c : cases)
		EXPECT_EQ(error_of(c.list), c.message)
			<< "list '" << c.list << "'";
}

TEST(CpuList, MaxCpu)
{
	const unsigned last = CPU_LIST_MAX - 1;

	EXPECT_EQ(parse_cpu_list(std::to_string(last)), Cpus{last});
	EXPECT_EQ(parse_cpu_list("0-" + std::to_string(last)).size(),
		  size_t(CPU_LIST_MAX));
	EXPECT_EQ(error_of(std::to_string(CPU_LIST_MAX)),
		  "bad cpu range '" + std::to_string(CPU_LIST_MAX) + "'");
	EXPECT_EQ(error_of("0-" + std::to_string(CPU_LIST_MAX)),
		  "bad cpu range '0-" + std::to_string(CPU_LIST_MAX) + "'");
}

TEST(CpuList, OverflowIsTooLargeNotWrapped)
{
	// 2^32 and 2^64 wrap to 0 in 32 and 64 bits
	EXPECT_EQ(error_of("4294967296"), "bad cpu range '4294967296'");
	EXPECT_EQ(error_of("18446744073709551616"),
		  "bad cpu range '18446744073709551616'");
	EXPECT_EQ(error_of("0-99999999999999999999999"),
		  "bad cpu range '0-99999999999999999999999'");
	EXPECT_EQ(error_of("0-2000000000"), "bad cpu range '0-2000000000'");
}

TEST(CpuList, FormatRuns)
{
	EXPECT_EQ(format_cpu_list({}), "");
	EXPECT_EQ(format_cpu_list({0}), "0");
	EXPECT_EQ(format_cpu_list({0, 1}), "0-1");
	EXPECT_EQ(format_cpu_list({0, 2, 3, 4, 9, CPU_LIST_MAX - 1}),
		  "0,2-4,9,8191");
}
