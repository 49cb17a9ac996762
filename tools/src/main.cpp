// SPDX-License-Identifier: GPL-2.0
// damonctl: drive the damon_perf module over generic netlink.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cmd_spe.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "manpage.hpp"

namespace damonctl {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_signal(int)
{
	stop_requested = 1;
}

} // namespace

TransportFactory &transport_factory()
{
	static TransportFactory factory = [] {
		return std::unique_ptr<Transport>(new Client());
	};
	return factory;
}

std::unique_ptr<Transport> connect()
{
	return transport_factory()();
}

bool interrupted()
{
	return stop_requested != 0;
}

void install_interrupt_handler()
{
	struct sigaction sa = {};

	sa.sa_handler = on_signal; // no SA_RESTART: poll() returns EINTR
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
}

int run_main(int argc, char **argv)
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
	setup_start(app);
	setup_stop(app);
	setup_tune(app);
	setup_status(app);
	setup_report(app);
	setup_monitor(app);
	setup_record(app);
	setup_stats(app);
	setup_events(app);
	setup_convert(app);
	setup_export(app);
	setup_spe(app);
	setup_spe_attach(*app.get_subcommand("spe"));
	setup_debug(app);

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

int main(int argc, char **argv)
{
	// Building the command line or reporting an error may throw too
	// (allocation); nothing may escape main.
	try {
		return damonctl::run_main(argc, argv);
	} catch (...) {
		std::fputs("damonctl: unexpected error\n", stderr);
		return damonctl::EXIT_OTHER;
	}
}
