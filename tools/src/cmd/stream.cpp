// SPDX-License-Identifier: GPL-2.0
#include "stream.hpp"

#include <chrono>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"

namespace damonctl {

MissedAggregations::Gap MissedAggregations::see(const Aggregation &agg)
{
	Gap g;
	auto [it, first] = ctxs_.try_emplace(agg.ctx_id);
	Context &c = it->second;

	c.name = agg.ctx_name;
	if (!first && agg.seq > c.last_seq + 1) {
		g.missed = agg.seq - c.last_seq - 1;
		g.from = c.last_seq + 1;
		c.missed += g.missed;
		c.gaps++;
	}
	c.last_seq = agg.seq;
	return g;
}

uint64_t MissedAggregations::total() const
{
	uint64_t n = 0;

	for (const auto &[id, c] : ctxs_)
		n += c.missed;
	return n;
}

namespace {

// Why aggregations went missing: a receive that met ENOBUFS says the
// kernel dropped notifications for a full receive buffer.
const char *why(uint64_t overruns)
{
	return overruns ? "receive buffer overran"
			: "notifications not delivered";
}

const char *aggregations(uint64_t n)
{
	return n == 1 ? "aggregation" : "aggregations";
}

std::string ctx_label(uint32_t id, const std::string &name)
{
	return name.empty() ? fmt::format("#{}", id) : name;
}

// The end of a stream: what each context missed.
void say_missed(const MissedAggregations &missed, uint64_t overruns)
{
	for (const auto &[id, c] : missed.contexts())
		if (c.missed)
			fmt::print(stderr,
				   "damonctl: missed {} {} of context {}{} "
				   "({})\n",
				   c.missed, aggregations(c.missed),
				   ctx_label(id, c.name),
				   c.gaps > 1
					   ? fmt::format(" in {} gaps", c.gaps)
					   : "",
				   why(overruns));
	if (overruns && !missed.total())
		fmt::print(stderr,
			   "damonctl: notifications dropped (the receive "
			   "buffer overran, ENOBUFS {}x); no gap in the "
			   "aggregations received after it\n",
			   overruns);
}

} // namespace

void add_rcvbuf_option(CLI::App *sub, StreamLimits &limits)
{
	sub->add_option("--rcvbuf", limits.rcvbuf,
			"Receive buffer of the subscription in bytes "
			"(SO_RCVBUF: the kernel caps it at "
			"net.core.rmem_max and doubles it; default 1 MiB); "
			"notifications that find it full are dropped and "
			"the aggregations missed are said on stderr")
		->check(CLI::Range(1, 1 << 30));
}

uint64_t stream_aggregations(Transport &t, const StreamLimits &limits,
			     AggregationSink &sink)
{
	using clock = std::chrono::steady_clock;
	const auto quiet = std::chrono::seconds(10);

	// the subscription's ack comes with the default buffer: a small one
	// could fill with notifications before it and lose it (ENOBUFS in
	// place of the ack, which is an error, not an overrun)
	t.subscribe();
	if (limits.rcvbuf)
		t.set_receive_buffer(limits.rcvbuf);
	install_interrupt_handler();
	auto end =
		clock::now() + std::chrono::duration<double>(limits.duration);
	uint64_t n = 0, overruns_at_start = t.overruns();
	MissedAggregations missed;
	std::optional<clock::time_point> said;

	sink.begin();
	while (!interrupted() && (!limits.count || n < limits.count)) {
		if (limits.duration > 0 && clock::now() >= end)
			break;
		auto agg = t.next_aggregation(200);
		if (!agg)
			continue;
		if (!wanted(limits.names, agg->ctx_name))
			continue;
		auto gap = missed.see(*agg);
		agg->missed = gap.missed;
		if (gap.missed && (!said || clock::now() - *said >= quiet)) {
			fmt::print(stderr,
				   "damonctl: missed {} {} of context {} "
				   "(seq {} to {}; {})\n",
				   gap.missed, aggregations(gap.missed),
				   ctx_label(agg->ctx_id, agg->ctx_name),
				   gap.from, agg->seq - 1,
				   why(t.overruns() - overruns_at_start));
			said = clock::now();
		}
		sink.put(*agg);
		n++;
	}
	sink.end(n);
	say_missed(missed, t.overruns() - overruns_at_start);
	return n;
}

} // namespace damonctl
