// SPDX-License-Identifier: GPL-2.0
// The command line: every subcommand registered over the transports it is
// given, and each error mapped to its exit code.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "cmd_spe.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "manpage.hpp"

namespace damonctl {

int run_main(int argc, const char *const *argv, Transport &t, Transport &dumps)
{
	CLI::App app{"damonctl: configure and read damon_perf, hardware-"
		     "sampled memory access monitoring"};

	app.set_version_flag("--version",
			     std::string("damonctl ") + DAMONCTL_VERSION);
	app.require_subcommand(1);
	app.fallthrough(false);
	app.footer("Every command but `events` talks to the damon_perf module "
		   "and needs CAP_SYS_ADMIN or CAP_PERFMON.\n"
		   "Exit status: 0 ok, 1 the kernel refused, 2 usage error, "
		   "3 module not loaded, 4 other error.\n"
		   "Run `damonctl COMMAND --help` for the options and examples "
		   "of a command.");
	setup_start(app, t);
	setup_stop(app, t);
	setup_tune(app, t);
	setup_status(app, t);
	setup_report(app, t);
	setup_monitor(app, t);
	setup_record(app, t, dumps);
	setup_stats(app, t);
	setup_events(app);
	setup_convert(app);
	setup_export(app, t);
	setup_schemes(app, t, dumps);
	setup_spe(app, t);
	setup_debug(app, t);

	// Hidden, for the build: the man page and bash completion, from this
	// same command tree (`damonctl --man-page FILE`).
	if (argc == 3 && (std::string(argv[1]) == "--man-page" ||
			  std::string(argv[1]) == "--bash-completion")) {
		std::ofstream out(argv[2]);
		out << (std::string(argv[1]) == "--man-page"
				? render_man(app, std::string("damonctl ") +
							  DAMONCTL_VERSION)
				: render_bash_completion(app));
		out.close();
		if (!out) {
			fmt::print(stderr, "damonctl: cannot write {}\n",
				   argv[2]);
			return EXIT_OTHER;
		}
		return EXIT_OK;
	}

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		int ret = app.exit(e);
		return ret ? EXIT_USAGE : EXIT_OK;
	} catch (const KernelError &e) {
		std::fflush(stdout);
		fmt::print(stderr, "damonctl: {} ({})\n",
			   e.extack().empty() ? std::strerror(e.err())
					      : e.extack(),
			   errno_name(e.err()));
		return EXIT_KERNEL;
	} catch (const UsageError &e) {
		std::fflush(stdout);
		fmt::print(stderr, "damonctl: {}\n", e.what());
		return EXIT_USAGE;
	} catch (const ModuleNotLoaded &e) {
		std::fflush(stdout);
		fmt::print(stderr, "damonctl: {}\n", e.what());
		return EXIT_NOMODULE;
	} catch (const std::exception &e) {
		std::fflush(stdout);
		fmt::print(stderr, "damonctl: {}\n", e.what());
		return EXIT_OTHER;
	}
	return EXIT_OK;
}

} // namespace damonctl
