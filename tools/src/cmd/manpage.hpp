// SPDX-License-Identifier: GPL-2.0
// The man page (roff) and bash completion of damonctl, generated from the
// same CLI11 command tree as --help (hidden commands and options left out).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace damonctl {

std::string render_man(const CLI::App &app, const std::string &version);
std::string render_bash_completion(const CLI::App &app);

} // namespace damonctl
