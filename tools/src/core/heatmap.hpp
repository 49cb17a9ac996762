// SPDX-License-Identifier: GPL-2.0
// Address-over-time heatmaps of a recording: a grid of mean nr_accesses
// (rows: address, top = lowest; columns: time, left = first), drawn as text,
// SVG or PNG. The address axis is the union of the ranges drawn, without
// the gaps between them; by default only ranges that saw an access.
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

struct HeatGrid {
	size_t rows = 0, cols = 0;
	std::vector<double> cell; // rows * cols, row-major
	double maxv = 0;
	uint64_t covered = 0;           // bytes on the address axis
	size_t gaps = 0;                // ranges left out between drawn ones
	std::vector<uint64_t> row_addr; // address at each row's top; rows + 1
	size_t nr_aggs = 0;
	uint64_t t0_ns = 0, t1_ns = 0; // first and last aggregation end
	std::string ctx;               // "1 \"demo\""
	size_t nr_probes = 0;

	double at(size_t r, size_t c) const { return cell[r * cols + c]; }
};

// rows == 0 when there is nothing to draw.
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
