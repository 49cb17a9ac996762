// SPDX-License-Identifier: GPL-2.0
// `start` configuration files: a valid one in full, then one test per kind
// of mistake, each naming where it is.
#include <gtest/gtest.h>

#include <linux/damon_perf.h>
#include <linux/perf_event.h>
#include <nlohmann/json.hpp>

#include "config.hpp"
#include "errors.hpp"

using namespace damonctl;
using nlohmann::json;

namespace {

std::string intel()
{
	return std::string(DAMONCTL_TEST_DATA) + "/sysfs-intel";
}

// A minimal valid context, to break one field at a time.
json base()
{
	return json::parse(R"({"contexts": [{"name": "a",
		"targets": [{"pid": 42}], "probes": ["page-faults"]}]})");
}

} // namespace

TEST(Config, ParsesAFileWithTwoContexts)
{
	auto cfgs = load_config_file(std::string(DAMONCTL_TEST_DATA) +
					     "/config/two-contexts.json",
				     intel());

	ASSERT_EQ(cfgs.size(), 2u);
	const CtxConfig &web = cfgs[0];
	EXPECT_EQ(web.name, "web");
	EXPECT_EQ(web.ops, Ops::vaddr);
	ASSERT_EQ(web.targets.size(), 2u);
	EXPECT_EQ(web.targets[1].pid, 5678u);
	EXPECT_EQ(web.attrs.sample_us, 5000u);
	EXPECT_EQ(web.attrs.aggr_us, 100000u);
	EXPECT_EQ(web.attrs.update_us, 1000000u);
	EXPECT_EQ(web.attrs.min_nr_regions, 10u);
	EXPECT_EQ(web.attrs.max_nr_regions, 1000u);
	EXPECT_EQ(web.attrs.mode, Mode::count);
	EXPECT_EQ(web.attrs.ring_size, 4096u);
	ASSERT_EQ(web.probes.size(), 2u);
	EXPECT_EQ(web.probes[0].type, 4u);
	EXPECT_EQ(web.probes[0].config, 0x1cdu);
	EXPECT_EQ(web.probes[0].config1, 30u);
	EXPECT_EQ(web.probes[0].precise_ip, 3);
	EXPECT_EQ(web.probes[0].sample_period, 10007u); // hardware default
	EXPECT_EQ(web.probes[1].config, 0x82d0u);
	EXPECT_EQ(web.probes[1].sample_period, 1000u);
	EXPECT_EQ(web.probes[1].weight, 2u);
	EXPECT_TRUE(web.probes[1].sample_phys_addr);
	EXPECT_TRUE(web.probes[1].exclude_kernel);
	ASSERT_EQ(web.filters.size(), 3u);
	EXPECT_EQ(web.filters[0].cpus, "0-3");
	EXPECT_TRUE(web.filters[0].allow);
	EXPECT_EQ(web.filters[1].tids, (std::vector<uint32_t>{1234, 1235}));
	EXPECT_FALSE(web.filters[1].allow);
	EXPECT_EQ(web.filters[2].type, FilterType::write);
	EXPECT_TRUE(web.filters[2].allow);

	const CtxConfig &m = cfgs[1];
	EXPECT_EQ(m.ops, Ops::paddr);
	EXPECT_EQ(m.targets[0].start, 0x100000000u);
	EXPECT_EQ(m.targets[0].end, 0x140000000u);
	EXPECT_EQ(m.probes[0].type, uint32_t(PERF_TYPE_SOFTWARE));
	EXPECT_EQ(m.probes[0].sample_period, 1u); // software default
	EXPECT_TRUE(m.attrs.empty());
}

TEST(Config, MinimalContextIsValid)
{
	auto cfgs = parse_config(base(), intel());

	ASSERT_EQ(cfgs.size(), 1u);
	EXPECT_EQ(cfgs[0].targets[0].pid, 42u);
}

TEST(Config, SplitModeIsOptional)
{
	auto cfgs = parse_config(base(), intel());
	EXPECT_FALSE(cfgs[0].attrs.split.has_value());

	for (auto [name, split] : {std::pair{"samples", Split::samples},
				   std::pair{"random", Split::random}}) {
		json j = base();
		j["contexts"][0]["split"] = name;
		cfgs = parse_config(j, intel());
		EXPECT_EQ(cfgs[0].attrs.split, split) << name;
	}
}

TEST(Config, CpuBudgetIsAPercentageNumberOrString)
{
	auto cfgs = parse_config(base(), intel());
	EXPECT_FALSE(cfgs[0].attrs.cpu_budget.has_value());

	for (auto [v, want] :
	     {std::pair{json(0.5), 50u}, std::pair{json(1), 100u},
	      std::pair{json(5), 500u}, std::pair{json(0), 0u},
	      std::pair{json(100), 10000u}, std::pair{json(0.01), 1u},
	      std::pair{json("0.25"), 25u}}) {
		json j = base();
		j["contexts"][0]["cpu_budget"] = v;
		cfgs = parse_config(j, intel());
		EXPECT_EQ(cfgs[0].attrs.cpu_budget, want) << v.dump();
	}
}

TEST(Config, IntervalsGoalIsDamonsIntervalsGoalInSamples)
{
	auto cfgs = parse_config(base(), intel());
	EXPECT_FALSE(cfgs[0].attrs.samples_goal.has_value());

	json j = base();
	j["contexts"][0]["intervals"] = {{"sample_us", 5000},
					 {"intervals_goal",
					  {{"samples", 200},
					   {"aggrs", 4},
					   {"min_aggr_us", 50000},
					   {"max_aggr_us", 2000000}}}};
	cfgs = parse_config(j, intel());
	EXPECT_EQ(cfgs[0].attrs.samples_goal, 200u);
	EXPECT_EQ(cfgs[0].attrs.goal_aggrs, 4u);
	EXPECT_EQ(cfgs[0].attrs.min_aggr_us, 50000u);
	EXPECT_EQ(cfgs[0].attrs.max_aggr_us, 2000000u);

	// the bounds, and 0 = off or derived
	j["contexts"][0]["intervals"]["intervals_goal"] = {
		{"samples", DAMON_PERF_SAMPLES_GOAL_MAX},
		{"aggrs", DAMON_PERF_GOAL_AGGRS_MAX},
		{"min_aggr_us", 0},
		{"max_aggr_us", DAMON_PERF_INTERVAL_US_MAX}};
	EXPECT_NO_THROW(parse_config(j, intel()));

	for (json bad : {json{{"samples", DAMON_PERF_SAMPLES_GOAL_MAX + 1}},
			 json{{"aggrs", 0}},
			 json{{"aggrs", DAMON_PERF_GOAL_AGGRS_MAX + 1}},
			 json{{"max_aggr_us", DAMON_PERF_INTERVAL_US_MAX + 1}},
			 json{{"min_aggr_us", 300000}, {"max_aggr_us", 200000}},
			 json{{"max_aggr_us", 1000}}, json{{"access_bp", 400}},
			 json{{"samples", -1}}}) {
		json k = base();
		k["contexts"][0]["intervals"] = {{"sample_us", 5000},
						 {"intervals_goal", bad}};
		EXPECT_THROW(parse_config(k, intel()), UsageError)
			<< bad.dump();
	}
}

TEST(Model, CpuBudgetStrings)
{
	EXPECT_EQ(cpu_budget_from_string("0"), 0u);
	EXPECT_EQ(cpu_budget_from_string("0.5"), 50u);
	EXPECT_EQ(cpu_budget_from_string("0.05"), 5u);
	EXPECT_EQ(cpu_budget_from_string("1"), 100u);
	EXPECT_EQ(cpu_budget_from_string("1.0"), 100u);
	EXPECT_EQ(cpu_budget_from_string("100"), 10000u);
	EXPECT_EQ(cpu_budget_from_string("100.00"), 10000u);
	for (const char *bad :
	     {"", ".", "1.", ".5", "-1", "+1", "100.01", "101", "1000", "0.001",
	      "1e2", "0x10", " 1", "1 ", "1,5", "abc", "99999999999999999999"})
		EXPECT_FALSE(cpu_budget_from_string(bad).has_value()) << bad;
	EXPECT_EQ(cpu_budget_to_string(0), "0");
	EXPECT_EQ(cpu_budget_to_string(50), "0.5");
	EXPECT_EQ(cpu_budget_to_string(5), "0.05");
	EXPECT_EQ(cpu_budget_to_string(125), "1.25");
	EXPECT_EQ(cpu_budget_to_string(10000), "100");
	EXPECT_EQ(cpu_cost_to_string(0), "0");
	EXPECT_EQ(cpu_cost_to_string(1), "0.0001");
	EXPECT_EQ(cpu_cost_to_string(1234), "0.1234");
	EXPECT_EQ(cpu_cost_to_string(5000), "0.5");
	EXPECT_EQ(cpu_cost_to_string(1000000), "100");
	EXPECT_EQ(cpu_cost_to_string(UINT32_MAX), "429496.7295");
	for (uint32_t v = 0; v <= DAMON_PERF_CPU_BUDGET_MAX; v++)
		ASSERT_EQ(cpu_budget_from_string(cpu_budget_to_string(v)), v);
}

TEST(Config, ProbeFrequencySetsFreq)
{
	json doc = base();
	doc["contexts"][0]["probes"] =
		json::parse(R"([{"event": "cpu/mem-stores/", "freq": 4000}])");
	auto cfgs = parse_config(doc, intel());

	EXPECT_TRUE(cfgs[0].probes[0].freq);
	EXPECT_EQ(cfgs[0].probes[0].sample_period, 4000u);
}

namespace {

struct Bad {
	const char *desc;
	const char *patch; // JSON merged into contexts[0] (or the document)
	const char *message;
	bool top = false;
};

const Bad BAD[] = {
	{"unknown_top_level_key", R"({"context": []})", "unknown key 'context'",
	 true},
	{"contexts_not_an_array", R"({"contexts": {}})",
	 "\"contexts\" must be a non-empty array", true},
	{"empty_contexts", R"({"contexts": []})", "non-empty array", true},
	{"unknown_context_key", R"({"interval": {}})",
	 "contexts[0]: unknown key 'interval'"},
	{"missing_name", R"({"name": null})", "contexts[0]: missing \"name\""},
	{"name_too_long", R"({"name": "abcdefghijabcdefghijabcdefghijXY"})",
	 "1 to 31 characters"},
	{"bad_ops", R"({"ops": "kaddr"})", "must be vaddr or paddr"},
	{"vaddr_target_without_pid", R"({"targets": [{"start": 1, "end": 2}]})",
	 "contexts[0].targets[0]: a vaddr target needs \"pid\""},
	{"paddr_target_without_range",
	 R"({"ops": "paddr", "targets": [{"pid": 1}]})",
	 "a paddr target needs \"start\" and \"end\""},
	{"pid_not_a_number", R"({"targets": [{"pid": "x"}]})",
	 "targets[0].pid: 'x' is not a number"},
	{"negative_pid", R"({"targets": [{"pid": -1}]})",
	 "must not be negative"},
	{"pid_too_big", R"({"targets": [{"pid": 5000000}]})", "is above"},
	{"no_targets", R"({"targets": []})", "needs at least one target"},
	{"no_probes", R"({"probes": []})", "needs at least one probe"},
	{"four_probes",
	 R"({"probes": ["page-faults", "page-faults", "page-faults", "cpu-clock"]})",
	 "at most 3 probes"},
	{"unknown_event", R"({"probes": ["cpu/bogus=1/"]})",
	 "contexts[0].probes[0]: event 'cpu/bogus=1/': unknown term 'bogus'"},
	{"probe_without_event", R"({"probes": [{"period": 1}]})",
	 "missing \"event\""},
	{"period_and_freq",
	 R"({"probes": [{"event": "page-faults", "period": 1, "freq": 2}]})",
	 "not both"},
	{"precise_ip_above_3",
	 R"({"probes": [{"event": "page-faults", "precise_ip": 4}]})",
	 "precise_ip: 4 is above 3"},
	{"flag_not_boolean",
	 R"({"probes": [{"event": "page-faults", "phys_addr": 1}]})",
	 "phys_addr: must be true or false"},
	{"aggr_below_sample",
	 R"({"intervals": {"sample_us": 5000, "aggr_us": 1000}})",
	 "aggr_us must be at least sample_us"},
	{"sample_interval_too_small", R"({"intervals": {"sample_us": 10}})",
	 "sample_us must be 100 .. 10000000"},
	{"unknown_interval_key", R"({"intervals": {"ops_update_us": 10}})",
	 "contexts[0].intervals: unknown key 'ops_update_us'"},
	{"min_above_max", R"({"nr_regions": {"min": 100, "max": 10}})",
	 "nr_regions.min is above nr_regions.max"},
	{"min_below_3", R"({"nr_regions": {"min": 2}})", "3 .. 10000"},
	{"ring_not_power_of_two", R"({"ring_size": 1000})", "power of two"},
	// one limit, one value: the module refuses rings above 65536 entries
	{"ring_above_the_uapi_limit", R"({"ring_size": 131072})",
	 "ring_size must be a power of two, 16 .. 65536"},
	{"sample_above_the_uapi_limit",
	 R"({"intervals": {"sample_us": 10000100, "aggr_us": 20000200,
	    "update_us": 20000200}})",
	 "sample_us must be 100 .. 10000000"},
	{"bad_mode", R"({"mode": "sometimes"})", "presence or count"},
	{"bad_split", R"({"split": "halves"})",
	 "contexts[0].split: must be samples or random"},
	{"split_not_string", R"({"split": 1})", "contexts[0].split"},
	{"cpu_budget_above_one_cpu", R"({"cpu_budget": 100.5})",
	 "contexts[0].cpu_budget: must be a percentage of one CPU"},
	{"cpu_budget_negative", R"({"cpu_budget": -1})",
	 "contexts[0].cpu_budget"},
	{"cpu_budget_three_decimals", R"({"cpu_budget": 0.125})",
	 "contexts[0].cpu_budget"},
	{"cpu_budget_not_a_number", R"({"cpu_budget": true})",
	 "contexts[0].cpu_budget"},
	{"filter_bad_type", R"({"filters": [{"type": "pid"}]})",
	 "filters[0].type: must be cpumask, tid or write"},
	{"filter_cpus_on_tid",
	 R"({"filters": [{"type": "tid", "tids": [1], "cpus": "0"}]})",
	 "\"cpus\" goes with (and only with) a cpumask filter"},
	{"filter_bad_cpulist",
	 R"({"filters": [{"type": "cpumask", "cpus": "0-x"}]})",
	 "filters[0].cpus: bad cpu list"},
	{"filter_empty_tids", R"({"filters": [{"type": "tid", "tids": []}]})",
	 "must be a non-empty array"},
	{"too_many_filters",
	 R"({"filters": [{"type": "write"}, {"type": "write"}, {"type": "write"},
	    {"type": "write"}, {"type": "write"}, {"type": "write"},
	    {"type": "write"}, {"type": "write"}, {"type": "write"}]})",
	 "at most 8 filters"},
	{"write_filter_on_a_software_event",
	 R"({"filters": [{"type": "write"}]})",
	 "software event 'page-faults' carries none"},
	{"write_filter_with_one_software_probe",
	 R"({"probes": ["cpu/mem-stores/", "faults"],
	    "filters": [{"type": "write", "allow": false}]})",
	 "software event 'faults' carries none"},
};

void PrintTo(const Bad &b, std::ostream *os)
{
	*os << b.desc;
}

class ConfigRejects : public ::testing::TestWithParam<Bad> {};

} // namespace

TEST_P(ConfigRejects, NamingWhere)
{
	const Bad &b = GetParam();
	json doc = base();

	if (b.top)
		doc = json::parse(b.patch);
	else
		doc["contexts"][0].merge_patch(json::parse(b.patch));
	try {
		parse_config(doc, intel());
		FAIL() << "accepted " << doc.dump();
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find(b.message),
			  std::string::npos)
			<< e.what();
	}
}

INSTANTIATE_TEST_SUITE_P(Config, ConfigRejects, ::testing::ValuesIn(BAD),
			 [](const auto &info) { return info.param.desc; });

TEST(Config, DuplicateNamesAreRejected)
{
	json doc = base();
	doc["contexts"].push_back(doc["contexts"][0]);

	EXPECT_THROW(parse_config(doc, intel()), UsageError);
}

TEST(Config, FileThatIsNotJsonIsAUsageError)
{
	std::string path = std::string(DAMONCTL_TEST_DATA) +
			   "/sysfs-intel/"
			   "bus/event_source/devices/cpu/type";

	EXPECT_THROW(load_config_file(path, intel()), UsageError);
	EXPECT_THROW(load_config_file("/nonexistent.json", intel()),
		     UsageError);
}

TEST(Flags, CpuListsAreCanonical)
{
	EXPECT_EQ(canonical_cpulist("3,0-1,2,7"), "0-3,7");
	EXPECT_EQ(canonical_cpulist("5"), "5");
	EXPECT_THROW(canonical_cpulist(""), UsageError);
	EXPECT_THROW(canonical_cpulist("2-1"), UsageError);
	EXPECT_THROW(canonical_cpulist("1,,2"), UsageError);
	EXPECT_THROW(canonical_cpulist("-1"), UsageError);
}

TEST(Flags, RangesAndFilterSpecs)
{
	Target t = parse_range("0x1000-0x2000");
	EXPECT_EQ(t.start, 0x1000u);
	EXPECT_EQ(t.end, 0x2000u);
	EXPECT_THROW(parse_range("0x2000-0x1000"), UsageError);
	EXPECT_THROW(parse_range("4096"), UsageError);

	Filter f = parse_filter_spec("!tid:10,11");
	EXPECT_EQ(f.type, FilterType::tid);
	EXPECT_FALSE(f.allow);
	EXPECT_EQ(f.tids, (std::vector<uint32_t>{10, 11}));
	EXPECT_EQ(parse_filter_spec("cpumask:1,0").cpus, "0-1");
	EXPECT_TRUE(parse_filter_spec("write").allow);
	EXPECT_THROW(parse_filter_spec("tid:"), UsageError);
	EXPECT_THROW(parse_filter_spec("tid:0"), UsageError);
	EXPECT_THROW(parse_filter_spec("write:1"), UsageError);
	EXPECT_THROW(parse_filter_spec("pid:1"), UsageError);
}
