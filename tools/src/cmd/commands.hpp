// SPDX-License-Identifier: GPL-2.0
// One file per subcommand: each has an options struct, setup_<name>()
// registering the subcommand and its flags, and run_<name>() doing it.
// Every subcommand reaches the kernel through the Transport it is set up
// with: run_main() (dispatch.cpp) is given the transports, main() passes
// netlink clients and tests a fake.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "client.hpp"

namespace damonctl {

// Parses the command line, runs the subcommand over @t and returns the exit
// code (errors.hpp), with a one-line message on stderr for an error.
// @dumps is a second connection for the requests `record` makes while
// notifications arrive on @t (a dump's replies may not interleave them).
int run_main(int argc, const char *const *argv, Transport &t, Transport &dumps);

// Stops long-running commands (record, monitor, schemes, spe attach) on
// SIGINT/SIGTERM.
bool interrupted();
void install_interrupt_handler();

// --split and --cpu-budget of start and tune; UsageError when malformed.
Split parse_split_option(const std::string &s);
uint32_t parse_cpu_budget_option(const std::string &s);

// --samples-goal, --goal-aggrs, --min-aggr-us and --max-aggr-us of start
// and tune (DAMON's intervals_goal for a sampled source), appended to
// @added.
void add_goal_options(CLI::App *sub, std::optional<uint32_t> &samples_goal,
		      std::optional<uint32_t> &goal_aggrs,
		      std::optional<uint64_t> &min_aggr_us,
		      std::optional<uint64_t> &max_aggr_us,
		      std::vector<CLI::Option *> &added);

// Whether the context @name is one of @names (empty: every one is).
bool wanted(const std::vector<std::string> &names, const std::string &name);
// Throws UsageError "no context named 'NAME'" for the first of @names that
// no context of @ctxs has.
void check_names(const std::vector<CtxInfo> &ctxs,
		 const std::vector<std::string> &names);

// Creates, configures and starts the context @cfg (with @replace, a
// context of its name is stopped and deleted first); nothing is left
// behind when a step fails (the error is thrown).
CtxInfo start_context(Transport &t, const CtxConfig &cfg, bool replace);

void setup_start(CLI::App &app, Transport &t);
void setup_stop(CLI::App &app, Transport &t);
void setup_tune(CLI::App &app, Transport &t);
void setup_status(CLI::App &app, Transport &t);
void setup_report(CLI::App &app, Transport &t);
void setup_monitor(CLI::App &app, Transport &t);
void setup_record(CLI::App &app, Transport &t, Transport &dumps);
void setup_stats(CLI::App &app, Transport &t);
void setup_events(CLI::App &app);
void setup_convert(CLI::App &app);
void setup_export(CLI::App &app, Transport &t);
void setup_schemes(CLI::App &app, Transport &t, Transport &dumps);
void setup_debug(CLI::App &app, Transport &t);

} // namespace damonctl
