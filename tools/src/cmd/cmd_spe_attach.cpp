// SPDX-License-Identifier: GPL-2.0
// damonctl spe attach CTX -e EVENT: feed a running context from an AUX
// tracing PMU (ARM SPE). Opens EVENT once per CPU, maps its data and AUX
// areas, hands each buffer to the kernel with AUX_ATTACH on one netlink
// socket, enables the events and stays in the foreground: the kernel
// consumes the buffers until this process exits (its socket closes) or
// the context stops. See Documentation/spe.rst.
#include <linux/damon_perf.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client.hpp"
#include "cmd_spe.hpp"
#include "commands.hpp"
#include "cpulist.hpp"
#include "errors.hpp"
#include "events.hpp"
#include "spe_attach.hpp"
#include "spe_aux.hpp"

namespace damonctl {
namespace {

struct SpeAttachOptions {
	std::string ctx;
	std::string event;
	std::optional<uint64_t> period;
	size_t aux_pages = 256;
	size_t data_pages = 8;
	std::string cpus;
	std::optional<int> pid;
	std::optional<uint32_t> probe_idx;
	unsigned int poll_ms = 200;
};

// "0-3,8" -> {0, 1, 2, 3, 8}, with this command's messages
std::vector<int> parse_cpus(const std::string &list)
{
	try {
		auto cpus = parse_cpu_list(list);
		return {cpus.begin(), cpus.end()};
	} catch (const UsageError &) {
		throw UsageError(list.empty() ? "empty CPU list"
					      : "bad CPU list '" + list + "'");
	}
}

std::vector<int> online_cpus()
{
	std::ifstream in(sysfs_root() + "/devices/system/cpu/online");
	std::string line;

	if (!in || !std::getline(in, line))
		throw UsageError("cannot read the online CPUs; use --cpus");
	return parse_cpus(line);
}

perf_event_attr make_attr(const SpeAttachOptions &o)
{
	ResolvedEvent ev = resolve_event(o.event, sysfs_root());
	perf_event_attr a{};

	if (ev.sample_freq)
		throw UsageError("AUX PMUs sample by period, not frequency: "
				 "use period=N or --period");
	a.size = sizeof(a);
	a.type = ev.type;
	a.config = ev.config;
	a.config1 = ev.config1;
	a.config2 = ev.config2;
	a.sample_period =
		o.period ? *o.period : ev.sample_period.value_or(4096);
	a.exclude_kernel = ev.exclude_kernel;
	a.exclude_hv = ev.exclude_hv;
	a.exclude_user = ev.exclude_user;
	return a;
}

// The process (one thread) the events follow, or -1 for CPU-wide events.
// CPU-wide is the default: a per-task event follows one thread, and the
// module takes one buffer per CPU and probe, so it cannot follow every
// thread of a multi-threaded target.
int choose_pid(const SpeAttachOptions &o)
{
	return o.pid ? *o.pid : -1;
}

// --probe-idx, else the first slot no probe of the context uses, so the
// AUX samples show apart in the per-probe hit counts.
uint32_t choose_probe_idx(const SpeAttachOptions &o, const CtxInfo &info)
{
	if (o.probe_idx)
		return *o.probe_idx;
	for (uint32_t idx = 1; idx <= 3; idx++) {
		bool used = false;
		for (const Probe &p : info.probes)
			used = used || p.idx == idx;
		if (!used)
			return idx;
	}
	throw UsageError("every probe slot of the context is in use: pick "
			 "one for the AUX samples with --probe-idx");
}

bool still_running(Transport &c, const CtxRef &ref)
{
	try {
		return c.ctx_get(ref).state == CtxState::running;
	} catch (const KernelError &e) {
		if (e.err() == ENOENT)
			return false;
		throw;
	}
}

void run_spe_attach(const SpeAttachOptions &o, Transport &client)
{
	install_interrupt_handler();
	CtxRef ref = CtxRef::by_name(o.ctx);
	CtxInfo info = client.ctx_get(ref);

	if (info.state != CtxState::running)
		throw UsageError("context '" + o.ctx + "' is not running");
	ref = CtxRef::by_id(info.id);
	perf_event_attr attr = make_attr(o);
	int pid = choose_pid(o);
	uint32_t probe_idx = choose_probe_idx(o, info);
	std::vector<int> cpus =
		o.cpus.empty() ? online_cpus() : parse_cpus(o.cpus);
	std::unique_ptr<AuxBuffers> bufs;

	try {
		bufs = std::make_unique<AuxBuffers>(attr, cpus, pid,
						    o.data_pages, o.aux_pages);
	} catch (const std::invalid_argument &e) {
		throw UsageError(e.what());
	}
	for (const AuxBuffer &b : bufs->buffers())
		client.aux_attach(ref,
				  aux_attach_of(b, pid, uint8_t(probe_idx)));
	bufs->enable();
	fmt::print("attached {} AUX buffer(s) of {} to context {} \"{}\" ({}, "
		   "probe {}); Ctrl-C to detach\n",
		   bufs->buffers().size(), o.event, info.id, info.name,
		   pid > 0 ? fmt::format("pid {}", pid) : "CPU-wide",
		   probe_idx);
	std::fflush(stdout);
	bool stopped = false;
	while (!interrupted()) {
		usleep(o.poll_ms * 1000); // returns early on a signal
		if (interrupted())
			break;
		if (!still_running(client, ref)) {
			stopped = true;
			break;
		}
	}
	fmt::print("{}; detaching\n",
		   stopped ? "context stopped" : "interrupted");
	std::fflush(stdout);
	// the socket closes with the transport (at exit): the kernel drops
	// the buffers
}

} // namespace

void setup_spe_attach(CLI::App &spe, Transport &t)
{
	auto o = std::make_shared<SpeAttachOptions>();
	auto *sub = spe.add_subcommand(
		"attach",
		"feed a running context from an AUX tracing PMU (ARM SPE), in "
		"the foreground until Ctrl-C or the context stops");

	sub->add_option("CTX", o->ctx, "running context (name)")->required();
	sub->add_option("-e,--event", o->event,
			"AUX PMU event, e.g. 'arm_spe_0/ts_enable=1,"
			"load_filter=1,store_filter=1/'")
		->required();
	sub->add_option("--period", o->period,
			"operations between samples (default: the event's "
			"period=, else 4096)")
		->check(CLI::Range(uint64_t(1), UINT64_MAX));
	sub->add_option("--aux-pages", o->aux_pages,
			"AUX pages per CPU, a power of two >= 2 (default 256)");
	sub->add_option("--data-pages", o->data_pages,
			"data ring pages per CPU, a power of two (default 8)");
	sub->add_option("--cpus", o->cpus,
			"CPUs to open the event on, e.g. 0-3,8 (default: "
			"online CPUs)");
	sub->add_option("--pid", o->pid,
			"per-task events following this thread, reports "
			"attributed to its process (default: CPU-wide events, "
			"attributed by CONTEXT packets)")
		->check(CLI::Range(1, DAMON_PERF_PID_MAX));
	sub->add_option("--probe-idx", o->probe_idx,
			"probe slot the reports count in (default: the first "
			"slot no probe of the context uses)")
		->check(CLI::Range(1, 3));
	sub->add_option("--poll-ms", o->poll_ms,
			"how often to check the context state (default 200)")
		->check(CLI::Range(10, 10000));
	sub->footer("Example:\n  damonctl start --name web --pid 1234\n"
		    "  damonctl spe attach web -e "
		    "'arm_spe_0/ts_enable=1,load_filter=1,store_filter=1,"
		    "jitter=1/' --period 1024\n"
		    "Needs CAP_PERFMON or CAP_SYS_ADMIN. Exit status 0 after "
		    "Ctrl-C/SIGTERM or when the context stops.");
	sub->callback([o, &t]() { run_spe_attach(*o, t); });
}

} // namespace damonctl
