// SPDX-License-Identifier: GPL-2.0
// Address-over-time heatmaps of a recording: a grid of mean nr_accesses
// (rows: address, top = lowest; columns: time, left = first), drawn as text,
// SVG or PNG. By default the rows go to the address ranges that saw
// accesses, in proportion to their accesses (each such range at least one
// row), and every stretch between them without an access (idle or not
// monitored) is collapsed into one marked row; with all_ranges the axis is
// every monitored range to scale, without the gaps between them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model.hpp"

namespace damonctl {

struct HeatmapSpec {
	size_t rows = 20;
	size_t cols = 60;        // at most one per aggregation
	bool all_ranges = false; // also the ranges that never saw an access
	std::optional<std::pair<uint64_t, uint64_t>> range; // [start, end)
};

// A row of the grid: addresses that saw accesses, or a collapsed stretch
// without any (monitored but idle, not monitored, or both), or a range
// with so few accesses that there were not rows enough to give it its own.
struct HeatRow {
	enum Kind { ACCESSED, COLLAPSED };
	Kind kind = ACCESSED;
	uint64_t idle_bytes = 0; // COLLAPSED: monitored bytes in it
	uint64_t gap_bytes = 0;  // COLLAPSED: bytes no region covered
	double accesses = 0;     // nr_accesses summed over aggregations
};

struct HeatGrid {
	size_t rows = 0, cols = 0;
	std::vector<double> cell; // rows * cols, row-major
	double maxv = 0;
	uint64_t covered = 0;           // bytes of the ACCESSED rows
	size_t gaps = 0;                // all_ranges: ranges left out between
					// drawn ones; else COLLAPSED rows
	std::vector<uint64_t> row_addr; // address at each row's top; rows + 1
	std::vector<HeatRow> row;       // rows
	bool by_accesses = false;       // rows by accesses, not by bytes
	size_t nr_aggs = 0;
	uint64_t t0_ns = 0, t1_ns = 0; // first and last aggregation end
	std::string ctx;               // "1 \"demo\""
	size_t nr_probes = 0;

	double at(size_t r, size_t c) const { return cell[r * cols + c]; }
};

// rows == 0 when there is nothing to draw. Without all_ranges: the rows
// by accesses (above), collapsed stretches one row each; when there are
// more stretches than rows, the ranges with the fewest accesses are
// collapsed with their neighbours.
HeatGrid heat_grid(const std::vector<Aggregation> &aggs,
		   const HeatmapSpec &spec);

// Text: a title line ("address A (top) .. B (bottom), ...") then one line
// a row. @color: 256-colour ANSI escapes.
std::string render_heatmap(const std::vector<Aggregation> &aggs,
			   const HeatmapSpec &spec, bool color = false);
// The former signature: every covered range.
std::string render_heatmap(const std::vector<Aggregation> &aggs,
			   size_t rows = 20, size_t cols = 60,
			   bool color = false);

// The plot area of the images, in pixels: it starts at (LEFT, TOP), cells
// are cell_w(g) x CELL_H (cell_w: at least 8, and the plot at least 400
// wide).
struct HeatmapLayout {
	static constexpr int LEFT = 150, TOP = 48, RIGHT = 110, BOTTOM = 50;
	static constexpr int CELL_H = 3;
	static int cell_w(const HeatGrid &g)
	{
		return g.cols ? std::max(8, int((400 + g.cols - 1) / g.cols))
			      : 8;
	}
};

// An SVG image: title with the context and the probes, hex address labels,
// time labels in seconds, a colour scale.
std::string heatmap_svg(const HeatGrid &g);
// A PNG image of the same plot and scale, without text. Throws UsageError
// when it cannot write @path.
void write_heatmap_png(const std::string &path, const HeatGrid &g);

// "START-END" (hex or decimal, END > START); throws UsageError.
std::pair<uint64_t, uint64_t> parse_addr_range(const std::string &s);

} // namespace damonctl
