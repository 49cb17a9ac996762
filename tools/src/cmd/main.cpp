// SPDX-License-Identifier: GPL-2.0
// damonctl: drive the damon_perf module over generic netlink.
#include <cstdio>

#include "commands.hpp"
#include "errors.hpp"
#include "manpage.hpp"

int main(int argc, char **argv)
{
	// Building the command line or reporting an error may throw too
	// (allocation); nothing may escape main.
	try {
		// the only netlink connections; each connects on first use
		damonctl::Client kernel;
		damonctl::Client dumps;

		return damonctl::run_main(argc, argv, kernel, dumps);
	} catch (...) {
		std::fputs("damonctl: unexpected error\n", stderr);
		return damonctl::EXIT_OTHER;
	}
}
