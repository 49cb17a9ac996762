// SPDX-License-Identifier: GPL-2.0
#include "stream.hpp"

#include <chrono>

#include "commands.hpp"

namespace damonctl {

uint64_t stream_aggregations(Transport &t, const StreamLimits &limits,
			     AggregationSink &sink)
{
	t.subscribe();
	install_interrupt_handler();
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double>(limits.duration);
	uint64_t n = 0;

	sink.begin();
	while (!interrupted() && (!limits.count || n < limits.count)) {
		if (limits.duration > 0 &&
		    std::chrono::steady_clock::now() >= end)
			break;
		auto agg = t.next_aggregation(200);
		if (!agg)
			continue;
		if (!wanted(limits.names, agg->ctx_name))
			continue;
		sink.put(*agg);
		n++;
	}
	sink.end(n);
	return n;
}

} // namespace damonctl
