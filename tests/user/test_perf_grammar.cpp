// SPDX-License-Identifier: GPL-2.0
// perf 6.1's event grammar, case by case, against fake sysfs trees that
// carry the format files Linux 6.1 defines (tests/user/data/sysfs-61-*):
//   intel  - Skylake-SP cpu (arch/x86/events/intel/core.c), uncore CHA with
//            the split umask config:8-15,32-57 and an IMC
//            (arch/x86/events/intel/uncore_snbep.c)
//   amd    - Zen cpu (amd/core.c, event config:0-7,32-35), ibs_op and
//            ibs_fetch (amd/ibs.c)
//   arm    - arm_spe_0 (drivers/perf/arm_spe_pmu.c) and armv8_pmuv3_0
//   hybrid - cpu_core and cpu_atom, both with a mem-loads event
// Where perf 6.1 accepts a string the expected attr is what perf sets,
// except for repeated terms: damonctl lets a later term replace an earlier
// one where perf ORs them (cpu/mem-loads,ldlat=30/ has ldlat 30, not 31).
#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include "errors.hpp"
#include "events.hpp"

using namespace damonctl;

namespace {

std::string tree61(const char *name)
{
	return std::string(DAMONCTL_TEST_DATA) + "/sysfs-61-" + name;
}

// exclude_* as a three-letter mask: u(ser) k(ernel) h(v), '-' for unset
struct Case {
	const char *desc;
	const char *machine;
	const char *event;
	const char *pmu;
	uint32_t type;
	uint64_t config, config1, config2;
	uint8_t precise_ip;
	const char *exclude; // "ukh" positions
	std::optional<uint64_t> period;
	const char *name;
};

const Case CASES[] = {
	// numbers: decimal unless 0x, a leading 0 is not octal
	{"leading_zero_is_decimal",
	 "intel",
	 "cpu/event=010/",
	 "cpu",
	 4,
	 10,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"hex_digits_any_case",
	 "intel",
	 "cpu/event=0x3C/",
	 "cpu",
	 4,
	 0x3c,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"spaces_around_terms_are_dropped",
	 "intel",
	 "cpu/event=0x3c, umask=1/",
	 "cpu",
	 4,
	 0x13c,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	// perf's own terms
	{"name_term_is_a_label",
	 "intel",
	 "cpu/event=0x3c,umask=0,name=foo/",
	 "cpu",
	 4,
	 0x3c,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 "foo"},
	{"metric_id_term_is_a_label",
	 "intel",
	 "cpu/event=0x3c,metric-id=abc/",
	 "cpu",
	 4,
	 0x3c,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"period_term", "intel", "cpu/mem-stores,period=1000/u", "cpu", 4,
	 0x82d0, 0, 0, 0, "-kh", 1000, ""},
	{"config_first_then_formats_on_top",
	 "intel",
	 "cpu/config=0xff00,event=0x3c/",
	 "cpu",
	 4,
	 0xff3c,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"raw_config_term",
	 "intel",
	 "cpu/r1a8/",
	 "cpu",
	 4,
	 0x1a8,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"raw_config_term_0x", "intel", "cpu/r0x1a8,period=100/", "cpu", 4,
	 0x1a8, 0, 0, 0, "---", 100, ""},
	{"full_64_bit_field",
	 "intel",
	 "cpu/offcore_rsp=0xffffffffffffffff/",
	 "cpu",
	 4,
	 0,
	 ~0ULL,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	// modifiers, with exclude_* as perf 6.1 sets them
	{"k_modifier_on_a_pmu_event",
	 "intel",
	 "cpu/event=0xd1,umask=0x20/k",
	 "cpu",
	 4,
	 0x20d1,
	 0,
	 0,
	 0,
	 "u-h",
	 {},
	 ""},
	{"k_modifier_on_a_generic_event",
	 "intel",
	 "instructions:k",
	 "hardware",
	 PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_INSTRUCTIONS,
	 0,
	 0,
	 0,
	 "u-h",
	 {},
	 ""},
	{"u_modifier",
	 "intel",
	 "instructions:u",
	 "hardware",
	 PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_INSTRUCTIONS,
	 0,
	 0,
	 0,
	 "-kh",
	 {},
	 ""},
	{"uk_excludes_only_the_hypervisor",
	 "intel",
	 "cycles:uk",
	 "hardware",
	 PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_CPU_CYCLES,
	 0,
	 0,
	 0,
	 "--h",
	 {},
	 ""},
	{"ppp",
	 "intel",
	 "cpu/event=0xd0,umask=0x81/ppp",
	 "cpu",
	 4,
	 0x81d0,
	 0,
	 0,
	 3,
	 "---",
	 {},
	 ""},
	{"p_and_k",
	 "intel",
	 "cpu/event=0xd0/pk",
	 "cpu",
	 4,
	 0xd0,
	 0,
	 0,
	 1,
	 "u-h",
	 {},
	 ""},
	{"generic_with_terms", "intel", "cycles/period=1000/", "hardware",
	 PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0, "---", 1000,
	 ""},
	{"raw_event_with_modifier",
	 "intel",
	 "r1a8:pp",
	 "raw",
	 PERF_TYPE_RAW,
	 0x1a8,
	 0,
	 0,
	 2,
	 "---",
	 {},
	 ""},
	// events of a PMU's events/ directory
	{"alias_then_override",
	 "intel",
	 "cpu/mem-loads,ldlat=30/P",
	 "cpu",
	 4,
	 0x1cd,
	 30,
	 0,
	 3,
	 "---",
	 {},
	 ""},
	{"alias_keeps_its_ldlat",
	 "intel",
	 "cpu/mem-loads/",
	 "cpu",
	 4,
	 0x1cd,
	 3,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"alias_case_insensitive",
	 "intel",
	 "cpu/MEM-LOADS/",
	 "cpu",
	 4,
	 0x1cd,
	 3,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"alias_as_event_value",
	 "intel",
	 "cpu/event=mem-stores/",
	 "cpu",
	 4,
	 0x82d0,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"alias_with_two_flags",
	 "intel",
	 "cpu/cycles-ct/",
	 "cpu",
	 4,
	 0x3c | (3ULL << 32),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"bare_alias",
	 "intel",
	 "mem-loads",
	 "cpu",
	 4,
	 0x1cd,
	 3,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"bare_alias_with_modifiers",
	 "intel",
	 "mem-loads:pp",
	 "cpu",
	 4,
	 0x1cd,
	 3,
	 0,
	 2,
	 "---",
	 {},
	 ""},
	{"bare_alias_with_terms",
	 "intel",
	 "mem-loads/ldlat=50/P",
	 "cpu",
	 4,
	 0x1cd,
	 50,
	 0,
	 3,
	 "---",
	 {},
	 ""},
	{"bare_alias_on_an_uncore_pmu",
	 "intel",
	 "cas_count_read",
	 "uncore_imc_0",
	 30,
	 0x304,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"hybrid_alias_on_one_pmu",
	 "hybrid",
	 "cpu_atom/mem-loads/",
	 "cpu_atom",
	 10,
	 0x5d0,
	 3,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	// uncore: split bit fields, PMU names by prefix
	{"uncore_split_umask",
	 "intel",
	 "uncore_cha_0/event=0x35,umask=0x12345/",
	 "uncore_cha_0",
	 20,
	 0x35 | 0x4500 | (0x123ULL << 32),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"uncore_split_umask_all_34_bits",
	 "intel",
	 "uncore_cha_1/umask=0x3ffffffff/",
	 "uncore_cha_1",
	 21,
	 0xff00 | (0x3ffffffULL << 32),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"uncore_prefix_without_uncore_",
	 "intel",
	 "cha_1/event=0x35/",
	 "uncore_cha_1",
	 21,
	 0x35,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"uncore_prefix_one_match",
	 "intel",
	 "uncore_imc/event=4,umask=3/",
	 "uncore_imc_0",
	 30,
	 0x304,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"uncore_prefix_and_alias",
	 "intel",
	 "imc/cas_count_read/",
	 "uncore_imc_0",
	 30,
	 0x304,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	// AMD
	{"amd_ibs_op",
	 "amd",
	 "ibs_op//",
	 "ibs_op",
	 9,
	 0,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"amd_ibs_op_cnt_ctl_and_l3missonly",
	 "amd",
	 "ibs_op/cnt_ctl=1,l3missonly/",
	 "ibs_op",
	 9,
	 (1ULL << 19) | (1ULL << 16),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"amd_ibs_fetch",
	 "amd",
	 "ibs_fetch/rand_en=1,l3missonly=1/",
	 "ibs_fetch",
	 8,
	 (1ULL << 57) | (1ULL << 59),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"amd_split_event",
	 "amd",
	 "cpu/event=0x1c0,umask=2/",
	 "cpu",
	 4,
	 0xc0 | 0x200 | (1ULL << 32),
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	// ARM
	{"arm_spe_by_prefix",
	 "arm",
	 "arm_spe//",
	 "arm_spe_0",
	 10,
	 0,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"arm_spe_perf_doc_form",
	 "arm",
	 "arm_spe/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,"
	 "min_latency=64/",
	 "arm_spe_0",
	 10,
	 0x1 | 0x2 | (3ULL << 33),
	 0,
	 64,
	 0,
	 "---",
	 {},
	 ""},
	{"arm_spe_event_filter",
	 "arm",
	 "arm_spe_0/event_filter=0x8/k",
	 "arm_spe_0",
	 10,
	 0,
	 8,
	 0,
	 0,
	 "u-h",
	 {},
	 ""},
	{"arm_pmu_prefix_and_alias",
	 "arm",
	 "armv8_pmuv3/mem_access/",
	 "armv8_pmuv3_0",
	 8,
	 0x13,
	 0,
	 0,
	 0,
	 "---",
	 {},
	 ""},
	{"arm_bare_alias",
	 "arm",
	 "ld_retired:u",
	 "armv8_pmuv3_0",
	 8,
	 0x6,
	 0,
	 0,
	 0,
	 "-kh",
	 {},
	 ""},
};

void PrintTo(const Case &c, std::ostream *os)
{
	*os << c.event;
}

class Perf61 : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(Perf61, ResolvesAsPerfDoes)
{
	const Case &c = GetParam();
	ResolvedEvent ev = resolve_event(c.event, tree61(c.machine));

	EXPECT_EQ(ev.pmu, c.pmu);
	EXPECT_EQ(ev.type, c.type);
	EXPECT_EQ(ev.config, c.config) << std::hex << ev.config;
	EXPECT_EQ(ev.config1, c.config1) << std::hex << ev.config1;
	EXPECT_EQ(ev.config2, c.config2);
	EXPECT_EQ(ev.precise_ip, c.precise_ip);
	EXPECT_EQ(ev.exclude_user, c.exclude[0] == 'u');
	EXPECT_EQ(ev.exclude_kernel, c.exclude[1] == 'k');
	EXPECT_EQ(ev.exclude_hv, c.exclude[2] == 'h');
	EXPECT_EQ(ev.sample_period, c.period);
	EXPECT_EQ(ev.name, c.name);
}

INSTANTIATE_TEST_SUITE_P(EventStrings, Perf61, ::testing::ValuesIn(CASES),
			 [](const auto &info) { return info.param.desc; });

namespace {

struct BadCase {
	const char *desc;
	const char *machine;
	const char *event;
	const char *message; // a substring of the error
};

const BadCase BAD[] = {
	// what perf 6.1 rejects
	{"capital_0X", "intel", "cpu/event=0X3c/",
	 "term 'event' has a bad value '0X3c'"},
	{"colon_before_pmu_modifiers", "intel", "cpu/event=0x3c/:pp",
	 "bad modifier ':pp'"},
	{"empty_term", "intel", "cpu/event=0x3c,,umask=1/", "empty term"},
	{"trailing_comma", "intel", "cpu/event=0x3c,/", "empty term"},
	{"multi_bit_term_without_value", "intel", "cpu/event/",
	 "term 'event' needs a value (config:0-7)"},
	{"number_over_64_bits", "intel", "cpu/config=18446744073709551616/",
	 "term 'config' has a bad value"},
	{"modifier_twice", "intel", "cycles:uu", "modifier 'u' given twice"},
	{"four_p", "intel", "cycles:pppp", "at most three"},
	{"empty_modifier", "intel", "cycles:", "no modifier after ':'"},
	{"unknown_modifier", "intel", "cycles:x", "unknown modifier 'x'"},
	{"raw_0x_at_top_level", "intel", "r0x1a8", "unknown event 'r0x1a8'"},
	{"format_term_on_a_generic_event", "intel", "cycles/event=1/",
	 "unknown term 'event' for a hardware event"},
	{"hybrid_has_no_plain_cpu", "hybrid", "cpu//", "unknown PMU 'cpu'"},
	{"value_too_wide_for_split_field", "intel",
	 "uncore_cha_0/umask=0x400000000/",
	 "does not fit in 34 bits (config:8-15,32-57)"},
	{"value_too_wide_for_one_bit", "arm", "arm_spe/pa_enable=2/",
	 "does not fit in 1 bits (config:1)"},
	{"unknown_term_names_the_known_ones", "amd", "ibs_op/swfilt=1/",
	 "unknown term 'swfilt' for PMU ibs_op (known: cnt_ctl, l3missonly)"},
	{"string_for_a_number", "arm", "arm_spe_0/event_filter=foo/",
	 "bad value 'foo' (expected a number)"},
	// what perf accepts and damon_perf refuses on purpose
	{"call_graph", "intel", "cpu/event=0x3c,call-graph=dwarf/",
	 "term 'call-graph' configures perf's own session"},
	{"max_stack", "intel", "cpu/mem-loads,max-stack=4/P",
	 "term 'max-stack' configures perf's own session"},
	{"inherit", "intel", "cpu/event=0x3c,no-inherit/",
	 "term 'no-inherit' configures perf's own session"},
	{"driver_config", "arm", "arm_spe//@cfg=1", "bad modifier"},
	{"driver_config_term", "arm", "arm_spe/@cfg=1/",
	 "driver configuration term '@cfg=1'"},
	{"hv_modifier", "intel", "cpu/event=0x3c/h",
	 "perf modifier 'h' is not supported"},
	{"guest_modifier", "intel", "cycles:G",
	 "perf modifier 'G' is not supported"},
	{"uncore_prefix_with_two_matches", "intel", "cha/event=0x35/",
	 "matches 2 PMUs (uncore_cha_0, uncore_cha_1)"},
	{"alias_on_two_pmus", "hybrid", "mem-loads",
	 "exists on 2 PMUs (cpu_atom, cpu_core)"},
	{"period_and_freq", "intel", "cpu/event=0x3c,period=10,freq=100/",
	 "not both"},
	{"zero_period", "intel", "cpu/event=0x3c,period=0/", "at least 1"},
	{"name_takes_a_name", "intel", "cpu/event=0x3c,name=1/",
	 "takes a name"},
};

void PrintTo(const BadCase &c, std::ostream *os)
{
	*os << c.event;
}

class Perf61Fails : public ::testing::TestWithParam<BadCase> {};

} // namespace

TEST_P(Perf61Fails, NamingTheTerm)
{
	const BadCase &c = GetParam();

	try {
		ResolvedEvent ev = resolve_event(c.event, tree61(c.machine));
		FAIL() << "resolved " << c.event << " to type " << ev.type
		       << " config " << std::hex << ev.config;
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find(c.message),
			  std::string::npos)
			<< e.what();
	}
}

INSTANTIATE_TEST_SUITE_P(EventStrings, Perf61Fails, ::testing::ValuesIn(BAD),
			 [](const auto &info) { return info.param.desc; });

TEST(Perf61Trees, CarryTheFormatFilesOf61)
{
	// spot checks that the trees are the 6.1 definitions
	EXPECT_EQ(load_pmu(tree61("intel"), "uncore_cha_0")
			  .formats.at("umask")
			  .spec(),
		  "config:8-15,32-57");
	EXPECT_EQ(load_pmu(tree61("amd"), "cpu").formats.at("event").spec(),
		  "config:0-7,32-35");
	EXPECT_EQ(load_pmu(tree61("amd"), "ibs_fetch")
			  .formats.at("l3missonly")
			  .spec(),
		  "config:59");
	EXPECT_EQ(load_pmu(tree61("arm"), "arm_spe_0")
			  .formats.at("min_latency")
			  .spec(),
		  "config2:0-11");
	EXPECT_EQ(load_pmu(tree61("intel"), "cpu").formats.size(), 12u);
}
