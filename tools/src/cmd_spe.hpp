// SPDX-License-Identifier: GPL-2.0
#pragma once

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace damonctl {

struct SpeDecodeOptions {
	std::string file;
	bool json = false;
};

// Adds `spe decode FILE [--json]` to @app.
void setup_spe(CLI::App &app);
// Adds `attach CTX -e EVENT ...` to the `spe` subcommand @spe
// (cmd_spe_attach.cpp; needs the netlink client, so not in setup_spe()).
void setup_spe_attach(CLI::App &spe);
int run_spe_decode(const SpeDecodeOptions &opt, std::ostream &out);

} // namespace damonctl
