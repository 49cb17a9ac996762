// SPDX-License-Identifier: GPL-2.0
// One file per subcommand: each has an options struct, setup_<name>()
// registering the subcommand and its flags, and run_<name>() doing it.
#pragma once

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

#include "client.hpp"

namespace damonctl {

// How subcommands reach the kernel; tests may replace it.
using TransportFactory = std::function<std::unique_ptr<Transport>()>;
TransportFactory &transport_factory();
std::unique_ptr<Transport> connect();

// Stops long-running commands (record, monitor) on SIGINT/SIGTERM.
bool interrupted();
void install_interrupt_handler();

void setup_start(CLI::App &app);
void setup_stop(CLI::App &app);
void setup_tune(CLI::App &app);
void setup_status(CLI::App &app);
void setup_report(CLI::App &app);
void setup_monitor(CLI::App &app);
void setup_record(CLI::App &app);
void setup_stats(CLI::App &app);
void setup_events(CLI::App &app);
void setup_convert(CLI::App &app);
void setup_export(CLI::App &app);
void setup_debug(CLI::App &app);

} // namespace damonctl
