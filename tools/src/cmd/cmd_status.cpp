// SPDX-License-Identifier: GPL-2.0
// damonctl status: contexts, states, targets, probes, arm failures.
#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"
#include "render.hpp"
#include "scheme_state.hpp"

namespace damonctl {

namespace {

struct StatusOptions {
	std::vector<std::string> names;
	bool json = false;
};

void run_status(const StatusOptions &o, Transport &t)
{
	std::vector<CtxInfo> ctxs;

	for (auto &c : t.ctx_list())
		if (wanted(o.names, c.name))
			ctxs.push_back(c);
	check_names(ctxs, o.names);
	// the schemes engines' state files (damonctl schemes)
	auto engines =
		engines_for(read_engine_states(SCHEMES_STATE_DIR), o.names);
	if (o.json) {
		nlohmann::json j = {{"module", "loaded"},
				    {"contexts", nlohmann::json::array()}};
		for (const auto &c : ctxs)
			j["contexts"].push_back(to_json(c));
		if (!engines.empty())
			j["schemes_engines"] = engines;
		std::cout << j.dump(2) << "\n";
		return;
	}
	fmt::print("{}", render_status(ctxs));
	fmt::print("{}", render_engine_status(engines));
}

} // namespace

void setup_status(CLI::App &app, Transport &t)
{
	auto o = std::make_shared<StatusOptions>();
	auto *sub = app.add_subcommand(
		"status", "Show contexts: state, targets, probes, filters, "
			  "and the schemes engines' stats");

	sub->add_option("names", o->names, "Contexts to show (default: all)");
	sub->add_flag("--json", o->json, "Print JSON");
	sub->footer("Exit status 3 means the damon_perf module is not loaded.\n"
		    "Example:\n  damonctl status --json\n");
	sub->callback([o, &t] { run_status(*o, t); });
}

} // namespace damonctl
