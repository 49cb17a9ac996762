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

void run_stop(const StopOptions &o, Transport &t)
{
	auto ctxs = t.ctx_list();
	size_t done = 0;

	check_names(ctxs, o.names);
	for (const auto &c : ctxs) {
		if (!wanted(o.names, c.name))
			continue;
		CtxRef ref = CtxRef::by_id(c.id);
		if (c.state == CtxState::running)
			t.stop(ref);
		if (!o.keep)
			t.ctx_del(ref);
		fmt::print("{} context {} \"{}\"\n",
			   o.keep ? "stopped" : "stopped and deleted", c.id,
			   c.name);
		done++;
	}
	if (!done)
		fmt::print("no contexts\n");
}

} // namespace

void setup_stop(CLI::App &app, Transport &t)
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
	sub->callback([o, &t] { run_stop(*o, t); });
}

} // namespace damonctl
