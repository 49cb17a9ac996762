// SPDX-License-Identifier: GPL-2.0
// The loop of `monitor` and `record`: AGGREGATION notifications one after
// the other, each handed to the sink of the command's output, until a
// limit or SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client.hpp"
#include "model.hpp"

namespace damonctl {

struct StreamLimits {
	std::vector<std::string> names; // contexts to take (empty: every one)
	uint64_t count = 0;             // stop after this many (0: no limit)
	double duration = 0; // stop after this many seconds (0: none)
};

// Where the aggregations of a stream go.
class AggregationSink {
public:
	virtual ~AggregationSink() = default;
	// Once subscribed, before the first aggregation.
	virtual void begin() {}
	// Each aggregation of a wanted context; may complete or move @agg.
	virtual void put(Aggregation &agg) = 0;
	// When the stream ends by a limit or a signal (not by an exception),
	// with the number of aggregations taken.
	virtual void end(uint64_t n) { (void)n; }
};

// Subscribes @t to notifications and hands @sink every aggregation of the
// contexts @limits names until @limits or SIGINT/SIGTERM; returns the number
// handed.
uint64_t stream_aggregations(Transport &t, const StreamLimits &limits,
			     AggregationSink &sink);

} // namespace damonctl
