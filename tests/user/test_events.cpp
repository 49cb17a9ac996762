// SPDX-License-Identifier: GPL-2.0
// Event strings resolved against fake sysfs trees (tests/user/data).
#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include "errors.hpp"
#include "events.hpp"
#include "sysfs_trees.hpp"

using namespace damonctl;
using damonctl::test::BadEvent;
using damonctl::test::refused;

namespace {

std::string tree(const char *name)
{
	return damonctl::test::sysfs_tree(name);
}

// The fields in the order a case reads (the table initializes them by
// position), not the order that packs best.
struct Case { // NOLINT(clang-analyzer-optin.performance.Padding)
	const char *desc;
	const char *machine;
	const char *event;
	uint32_t type;
	uint64_t config, config1, config2;
	uint8_t precise_ip;
	std::optional<uint64_t> period, freq;
	bool exclude_kernel;
};

const Case CASES[] = {
	{"intel_mem_loads_alias_with_ldlat_override_and_max_precision",
	 "intel",
	 "cpu/mem-loads,ldlat=30/P",
	 4,
	 0x1cd,
	 30,
	 0,
	 3,
	 {},
	 {},
	 false},
	{"intel_mem_loads_alias_keeps_its_ldlat",
	 "intel",
	 "cpu/mem-loads/pp",
	 4,
	 0x1cd,
	 3,
	 0,
	 2,
	 {},
	 {},
	 false},
	{"intel_raw_event_and_umask_pp",
	 "intel",
	 "cpu/event=0xd1,umask=0x20/pp",
	 4,
	 0x20d1,
	 0,
	 0,
	 2,
	 {},
	 {},
	 false},
	{"intel_single_p",
	 "intel",
	 "cpu/event=0xd0,umask=0x81/p",
	 4,
	 0x81d0,
	 0,
	 0,
	 1,
	 {},
	 {},
	 false},
	{"intel_ppp",
	 "intel",
	 "cpu/event=0xd0/ppp",
	 4,
	 0xd0,
	 0,
	 0,
	 3,
	 {},
	 {},
	 false},
	{"intel_flag_term_without_value_is_one",
	 "intel",
	 "cpu/event=0x3c,in_tx/",
	 4,
	 0x1000000ULL * 0x100 + 0x3c,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"intel_alias_with_a_flag_term",
	 "intel",
	 "cpu/cycles-t/",
	 4,
	 0x10000003cULL,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"intel_period_term",
	 "intel",
	 "cpu/mem-stores,period=1000/",
	 4,
	 0x82d0,
	 0,
	 0,
	 0,
	 1000,
	 {},
	 false},
	{"intel_freq_term",
	 "intel",
	 "cpu/mem-stores,freq=4000/u",
	 4,
	 0x82d0,
	 0,
	 0,
	 0,
	 {},
	 4000,
	 true},
	{"intel_raw_config_terms",
	 "intel",
	 "cpu/config=0x1234,config1=7/",
	 4,
	 0x1234,
	 7,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"amd_ibs_op_empty_terms",
	 "amd",
	 "ibs_op//",
	 10,
	 0,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"amd_ibs_op_cnt_ctl",
	 "amd",
	 "ibs_op/cnt_ctl=1/",
	 10,
	 1ULL << 19,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"amd_ibs_op_config2_bit",
	 "amd",
	 "ibs_op/swfilt=1/",
	 10,
	 0,
	 0,
	 1,
	 0,
	 {},
	 {},
	 false},
	{"amd_split_event_format_low_bits",
	 "amd",
	 "cpu/event=0x76/",
	 4,
	 0x76,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"amd_split_event_format_high_bits",
	 "amd",
	 "cpu/event=0xf76/",
	 4,
	 0x76 | (0xfULL << 32),
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"amd_split_event_format_all_twelve_bits",
	 "amd",
	 "cpu/event=0xabc,umask=0x1/",
	 4,
	 0xbc | (0xaULL << 32) | 0x100,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"arm_spe_pa_and_load_filter",
	 "arm",
	 "arm_spe_0/pa_enable=1,load_filter=1/",
	 8,
	 0x2 | (1ULL << 33),
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"arm_spe_event_filter_and_min_latency",
	 "arm",
	 "arm_spe_0/event_filter=0x8,min_latency=0xfff,ts_enable/",
	 8,
	 1,
	 8,
	 0xfff,
	 0,
	 {},
	 {},
	 false},
	{"arm_pmu_alias",
	 "arm",
	 "armv8_pmuv3_0/mem_access/",
	 7,
	 0x13,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"generic_page_faults",
	 "intel",
	 "page-faults",
	 PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_PAGE_FAULTS,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"generic_faults_alias",
	 "arm",
	 "faults",
	 PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_PAGE_FAULTS,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"generic_cpu_clock",
	 "intel",
	 "cpu-clock",
	 PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_CPU_CLOCK,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
	{"generic_hardware_cycles_with_p",
	 "intel",
	 "cycles:p",
	 PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_CPU_CYCLES,
	 0,
	 0,
	 1,
	 {},
	 {},
	 false},
	{"generic_raw_event",
	 "intel",
	 "r1a8",
	 PERF_TYPE_RAW,
	 0x1a8,
	 0,
	 0,
	 0,
	 {},
	 {},
	 false},
};

void PrintTo(const Case &c, std::ostream *os)
{
	*os << c.event;
}

class Resolve : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(Resolve, ResolvesToTheExpectedAttr)
{
	const Case &c = GetParam();
	ResolvedEvent ev = resolve_event(c.event, tree(c.machine));

	EXPECT_EQ(ev.type, c.type);
	EXPECT_EQ(ev.config, c.config) << std::hex << ev.config;
	EXPECT_EQ(ev.config1, c.config1);
	EXPECT_EQ(ev.config2, c.config2);
	EXPECT_EQ(ev.precise_ip, c.precise_ip);
	EXPECT_EQ(ev.sample_period, c.period);
	EXPECT_EQ(ev.sample_freq, c.freq);
	EXPECT_EQ(ev.exclude_kernel, c.exclude_kernel);
}

INSTANTIATE_TEST_SUITE_P(EventStrings, Resolve, ::testing::ValuesIn(CASES),
			 [](const auto &info) { return info.param.desc; });

namespace {

const BadEvent BAD[] = {
	{"unknown_pmu", "intel", "ibs_op//", "unknown PMU 'ibs_op'"},
	{"unknown_pmu_lists_known_ones", "amd", "arm_spe_0/pa_enable=1/",
	 "known: cpu, ibs_fetch, ibs_op, software"},
	{"unknown_term", "intel", "cpu/event=0xd1,umask=0x20,bogus=1/",
	 "unknown term 'bogus' for PMU cpu"},
	{"value_wider_than_format", "intel", "cpu/event=0x1d1/",
	 "does not fit in 8 bits (config:0-7)"},
	{"value_wider_than_split_format", "amd", "cpu/event=0x1abc/",
	 "does not fit in 12 bits (config:0-7,32-35)"},
	{"value_wider_than_single_bit", "arm", "arm_spe_0/pa_enable=2/",
	 "does not fit in 1 bits (config:1)"},
	{"ldlat_wider_than_16_bits", "intel", "cpu/mem-loads,ldlat=0x10000/P",
	 "ldlat"},
	{"bad_number", "intel", "cpu/event=zz/", "bad value 'zz'"},
	{"negative_number", "intel", "cpu/event=-1/", "bad value '-1'"},
	{"unknown_modifier", "intel", "cpu/event=0xd0/x", "unknown modifier"},
	{"too_many_p", "intel", "cpu/event=0xd0/pppp", "at most three"},
	{"missing_closing_slash", "intel", "cpu/event=0xd0", "PMU/terms/"},
	{"unknown_generic_name", "intel", "page-fault", "unknown event"},
	{"empty", "intel", "", "empty event string"},
	{"pmu_path_traversal", "intel", "../cpu/event=1/", "bad PMU name"},
	{"bad_format_field_in_sysfs", "bad", "badfmt//",
	 "not config, config1 or config2"},
	{"pmu_without_type_file", "bad", "notype//", "unknown PMU 'notype'"},
	{"pmu_with_bad_type", "bad", "badtype//", "bad type 'abc'"},
};

class ResolveFails : public ::testing::TestWithParam<BadEvent> {};

} // namespace

TEST_P(ResolveFails, WithAClearMessage)
{
	const BadEvent &c = GetParam();

	EXPECT_TRUE(refused(c, tree(c.machine)));
}

INSTANTIATE_TEST_SUITE_P(EventStrings, ResolveFails, ::testing::ValuesIn(BAD),
			 [](const auto &info) { return info.param.desc; });

TEST(Format, ParsesSplitRangesAndSingleBits)
{
	FormatField f = parse_format("config:0-7,32-35\n");

	EXPECT_EQ(f.field, "config");
	ASSERT_EQ(f.bits.size(), 2u);
	EXPECT_EQ(f.bits[0], std::make_pair(0, 7));
	EXPECT_EQ(f.bits[1], std::make_pair(32, 35));
	EXPECT_EQ(f.width(), 12);
	EXPECT_EQ(f.spec(), "config:0-7,32-35");

	FormatField b = parse_format("config1:5");
	EXPECT_EQ(b.field, "config1");
	EXPECT_EQ(b.width(), 1);
	EXPECT_EQ(b.spec(), "config1:5");
}

TEST(Format, RejectsBadRanges)
{
	EXPECT_THROW(parse_format("config:7-0"), UsageError);
	EXPECT_THROW(parse_format("config:0-64"), UsageError);
	EXPECT_THROW(parse_format("config"), UsageError);
	EXPECT_THROW(parse_format("config:"), UsageError);
	EXPECT_THROW(parse_format("config2:a-b"), UsageError);
}

TEST(Pmus, ListsEveryPmuWithATypeFile)
{
	auto names = list_pmus(tree("intel"));

	EXPECT_EQ(names, (std::vector<std::string>{"breakpoint", "cpu", "msr",
						   "software"}));
}

TEST(Pmus, LoadsFormatsAndAliasesButSkipsScaleAndUnitFiles)
{
	Pmu cpu = load_pmu(tree("intel"), "cpu");

	EXPECT_EQ(cpu.type, 4u);
	EXPECT_EQ(cpu.formats.at("ldlat").spec(), "config1:0-15");
	EXPECT_EQ(cpu.aliases.at("mem-loads"), "event=0xcd,umask=0x1,ldlat=3");
	EXPECT_EQ(cpu.aliases.count("mem-loads.scale"), 0u);
	EXPECT_EQ(cpu.aliases.count("topdown-total-slots.unit"), 0u);
}

TEST(Pmus, SysfsRootComesFromTheEnvironment)
{
	setenv("DAMONCTL_SYSFS_ROOT", "/some/where", 1);
	EXPECT_EQ(sysfs_root(), "/some/where");
	unsetenv("DAMONCTL_SYSFS_ROOT");
	EXPECT_EQ(sysfs_root(), "/sys");
}
