// SPDX-License-Identifier: GPL-2.0
#pragma once

#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "client.hpp"

namespace damonctl {

struct SpeDecodeOptions {
	std::string file;
	bool json = false;
};

// Adds `spe decode FILE [--json]` and `spe attach CTX -e EVENT ...` (over
// @t) to @app.
void setup_spe(CLI::App &app, Transport &t);
// Adds `attach` to the `spe` subcommand @spe (cmd_spe_attach.cpp).
void setup_spe_attach(CLI::App &spe, Transport &t);
int run_spe_decode(const SpeDecodeOptions &opt, std::ostream &out);

} // namespace damonctl
