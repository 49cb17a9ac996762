// SPDX-License-Identifier: GPL-2.0
// damonctl stop: stop contexts and (unless --keep) delete them.
#include <fmt/format.h>

#include "commands.hpp"
#include "errors.hpp"

namespace damonctl {

namespace {

struct StopOptions {
	std::vector<std::string> names;
	bool keep = false;
};

void run_stop(const StopOptions &o)
{
	auto t = connect();
	auto ctxs = t->ctx_list();
	size_t done = 0;

	for (const auto &name : o.names) {
		bool found = false;
		for (const auto &c : ctxs)
			found = found || c.name == name;
		if (!found)
			throw UsageError("no context named '" + name + "'");
	}
	for (const auto &c : ctxs) {
		if (!o.names.empty() &&
		    std::find(o.names.begin(), o.names.end(), c.name) ==
			    o.names.end())
			continue;
		CtxRef ref = CtxRef::by_id(c.id);
		if (c.state == CtxState::running)
			t->stop(ref);
		if (!o.keep)
			t->ctx_del(ref);
		fmt::print("{} context {} \"{}\"\n",
			   o.keep ? "stopped" : "stopped and deleted", c.id,
			   c.name);
		done++;
	}
	if (!done)
		fmt::print("no contexts\n");
}

} // namespace

void setup_stop(CLI::App &app)
{
	auto o = std::make_shared<StopOptions>();
	auto *sub = app.add_subcommand(
		"stop", "Stop monitoring contexts and delete them");

	sub->add_option("names", o->names,
			"Contexts to stop (default: every context)");
	sub->add_flag("-k,--keep", o->keep,
		      "Only stop; keep the contexts (start them again with "
		      "the same configuration later)");
	sub->footer("Examples:\n"
		    "  damonctl stop           stop and delete everything\n"
		    "  damonctl stop db --keep stop context \"db\", keep it\n");
	sub->callback([o] { run_stop(*o); });
}

} // namespace damonctl
