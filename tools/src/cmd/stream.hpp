// SPDX-License-Identifier: GPL-2.0
// The loop of `monitor` and `record`: AGGREGATION notifications one after
// the other, each handed to the sink of the command's output, until a
// limit or SIGINT/SIGTERM; and the aggregations that never arrived.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client.hpp"
#include "model.hpp"

namespace CLI {
class App;
}

namespace damonctl {

struct StreamLimits {
	std::vector<std::string> names; // contexts to take (empty: every one)
	uint64_t count = 0;             // stop after this many (0: no limit)
	double duration = 0; // stop after this many seconds (0: none)
	int rcvbuf = 0;      // SO_RCVBUF of the subscription (0: default)
};

// The aggregations a subscriber missed: the kernel numbers each context's
// aggregations (seq, one more each), so a jump is what was dropped on the
// way, its receive buffer full when it could not keep up.
class MissedAggregations {
public:
	struct Gap {
		uint64_t missed = 0; // aggregations missed before this one
		uint64_t from = 0;   // the first seq missed
	};
	struct Context {
		std::string name;
		uint64_t last_seq = 0;
		uint64_t missed = 0; // in every gap
		uint64_t gaps = 0;
	};

	// @agg received: the gap before it. Nothing for the first of a
	// context, or when seq goes back (a reloaded module numbers anew).
	Gap see(const Aggregation &agg);
	uint64_t total() const;
	const std::map<uint32_t, Context> &contexts() const { return ctxs_; }

private:
	std::map<uint32_t, Context> ctxs_;
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

// --rcvbuf BYTES, into @limits.
void add_rcvbuf_option(CLI::App *sub, StreamLimits &limits);

// Subscribes @t to notifications and hands @sink every aggregation of the
// contexts @limits names until @limits or SIGINT/SIGTERM; returns the number
// handed. Each aggregation carries the ones of its context missed before it
// (Aggregation::missed); a gap is said on stderr (at most one line every
// 10 seconds), and at the end how many each context missed.
uint64_t stream_aggregations(Transport &t, const StreamLimits &limits,
			     AggregationSink &sink);

} // namespace damonctl
