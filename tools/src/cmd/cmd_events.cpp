// SPDX-License-Identifier: GPL-2.0
// damonctl events: the PMUs of this machine (or of DAMONCTL_SYSFS_ROOT),
// their format terms and event aliases; --resolve checks an event string.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "events.hpp"
#include "render.hpp"

namespace damonctl {

namespace {

struct EventsOptions {
	std::string resolve;
	std::vector<std::string> pmus;
	bool json = false;
};

void run_events(const EventsOptions &o)
{
	std::string root = sysfs_root();

	if (!o.resolve.empty()) {
		ResolvedEvent ev = resolve_event(o.resolve, root);
		if (o.json)
			std::cout << to_json(ev).dump(2) << "\n";
		else
			fmt::print("{}", render_resolved(ev));
		return;
	}
	std::vector<Pmu> pmus;
	std::vector<std::string> names =
		o.pmus.empty() ? list_pmus(root) : o.pmus;
	pmus.reserve(names.size());
	for (const auto &n : names)
		pmus.push_back(load_pmu(root, n));
	if (o.json) {
		nlohmann::json j = nlohmann::json::array();
		for (const auto &p : pmus)
			j.push_back(to_json(p));
		std::cout << j.dump(2) << "\n";
		return;
	}
	if (pmus.empty())
		fmt::print("no PMUs under {}/bus/event_source/devices\n", root);
	fmt::print("{}", render_pmus(pmus));
}

} // namespace

void setup_events(CLI::App &app)
{
	auto o = std::make_shared<EventsOptions>();
	auto *sub = app.add_subcommand(
		"events", "List PMUs with their format terms and events, or "
			  "resolve an event string");

	sub->add_option("pmus", o->pmus, "PMUs to list (default: all)");
	sub->add_option("-r,--resolve", o->resolve,
			"Print the perf_event_attr fields EVENT resolves to");
	sub->add_flag("--json", o->json, "Print JSON");
	sub->footer(
		"Event strings follow perf 6.1: PMU/term=value,.../modifiers, "
		"NAME:modifiers or NAME/terms/modifiers.\n"
		"  ibs_op//                          AMD IBS Op\n"
		"  cpu/mem-loads,ldlat=30/P          Intel PEBS loads, max "
		"precision\n"
		"  mem-loads:pp                      an event of a PMU's "
		"events/ directory\n"
		"  cpu/event=0xd1,umask=0x20/k       raw event and umask, "
		"kernel mode only\n"
		"  arm_spe/pa_enable=1,load_filter=1/  ARM SPE (PMU names "
		"match by prefix)\n"
		"  page-faults, cpu-clock            software events\n"
		"Numbers are decimal or 0x hex. Terms period=N and freq=N set "
		"the sampling, name=NAME is a label; perf's session terms "
		"(call-graph, max-stack, inherit, ...) are refused.\n"
		"Modifiers: p, pp, ppp set precise_ip 1-3, P the maximum, u "
		"excludes kernel and hv, k user and hv.\n"
		"A repeated term replaces the earlier one (perf 6.1 ORs them: "
		"cpu/mem-loads,ldlat=30/ has ldlat 30 here, 31 in perf).\n"
		"DAMONCTL_SYSFS_ROOT=DIR reads DIR/bus/event_source/devices "
		"instead of /sys/...\n"
		"Example:\n  damonctl events --resolve "
		"'cpu/mem-loads,ldlat=30/P' "
		"--json");
	sub->callback([o] { run_events(*o); });
}

} // namespace damonctl
