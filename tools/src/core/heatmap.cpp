// SPDX-License-Identifier: GPL-2.0
#include "heatmap.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <png.h>

#include "errors.hpp"
#include "render.hpp"

namespace damonctl {

namespace {

std::string hex(uint64_t v)
{
	return fmt::format("{:#x}", v);
}

// The union of the address ranges drawn, as an axis without the gaps
// between them: a process's address space is mostly unmapped, so rows
// drawn over raw addresses would put every region in one row.
class Axis {
public:
	Axis(const std::vector<Aggregation> &aggs, const HeatmapSpec &spec)
	{
		std::vector<std::pair<uint64_t, uint64_t>> all;
		for (const auto &a : aggs)
			for (const auto &r : a.regions) {
				if (!spec.all_ranges && !r.nr_accesses)
					continue;
				auto iv = clip(spec, r);
				if (iv.first < iv.second)
					all.push_back(iv);
			}
		std::sort(all.begin(), all.end());
		for (const auto &iv : all) {
			if (!spans_.empty() && iv.first <= spans_.back().end) {
				spans_.back().end =
					std::max(spans_.back().end, iv.second);
				continue;
			}
			spans_.push_back({iv.first, iv.second, 0});
		}
		for (auto &sp : spans_) {
			sp.offset = total_;
			total_ += sp.end - sp.start;
		}
	}

	static std::pair<uint64_t, uint64_t> clip(const HeatmapSpec &spec,
						  const Region &r)
	{
		if (!spec.range)
			return {r.start, r.end};
		return {std::max(r.start, spec.range->first),
			std::min(r.end, spec.range->second)};
	}

	uint64_t total() const { return total_; }
	size_t nr_gaps() const
	{
		return spans_.empty() ? 0 : spans_.size() - 1;
	}

	// Axis position of an address inside the drawn ranges.
	uint64_t pos(uint64_t addr) const
	{
		auto it = std::upper_bound(spans_.begin(), spans_.end(), addr,
					   [](uint64_t a, const Span &sp) {
						   return a < sp.start;
					   });
		if (it == spans_.begin())
			return 0;
		--it;
		return it->offset + std::min(addr, it->end) - it->start;
	}

	// Address at an axis position.
	uint64_t addr(uint64_t pos) const
	{
		for (const auto &sp : spans_)
			if (pos < sp.offset + (sp.end - sp.start))
				return sp.start + (pos - sp.offset);
		return spans_.empty() ? 0 : spans_.back().end;
	}

private:
	struct Span {
		uint64_t start;
		uint64_t end;
		uint64_t offset;
	};
	std::vector<Span> spans_;
	uint64_t total_ = 0;
};

struct Rgb {
	uint8_t r, g, b;
};

// magma-like: black, purple, red, orange, pale yellow
Rgb colour(double v)
{
	static const double STOPS[][4] = {
		{0.0, 0x00, 0x00, 0x04}, {0.25, 0x3b, 0x0f, 0x70},
		{0.5, 0x8c, 0x29, 0x81}, {0.75, 0xde, 0x49, 0x68},
		{0.9, 0xfe, 0x9f, 0x6d}, {1.0, 0xfc, 0xfd, 0xbf},
	};
	v = std::clamp(v, 0.0, 1.0);
	size_t i = 1;
	while (i < 5 && v > STOPS[i][0])
		i++;
	double f = (v - STOPS[i - 1][0]) / (STOPS[i][0] - STOPS[i - 1][0]);
	auto mix = [&](int k) {
		return uint8_t(std::lround(
			STOPS[i - 1][k] + f * (STOPS[i][k] - STOPS[i - 1][k])));
	};
	return {mix(1), mix(2), mix(3)};
}

std::string css(Rgb c)
{
	return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

std::string seconds(uint64_t ns)
{
	return fmt::format("{:.1f}", double(ns) / 1e9);
}

} // namespace

HeatGrid heat_grid(const std::vector<Aggregation> &aggs,
		   const HeatmapSpec &spec)
{
	HeatGrid g;

	if (aggs.empty() || spec.rows == 0 || spec.cols == 0)
		return g;
	Axis axis(aggs, spec);
	if (axis.total() == 0)
		return g;
	g.rows = std::min<uint64_t>(spec.rows, axis.total());
	g.cols = std::min(spec.cols, aggs.size());
	g.cell.assign(g.rows * g.cols, 0);
	g.covered = axis.total();
	g.gaps = axis.nr_gaps();
	g.nr_aggs = aggs.size();
	g.t0_ns = aggs.front().time_ns;
	g.t1_ns = aggs.back().time_ns;
	g.ctx = fmt::format("{} \"{}\"", aggs.front().ctx_id,
			    aggs.front().ctx_name);
	auto edge = [&](size_t row) {
		return double(axis.total()) * double(row) / double(g.rows);
	};
	for (size_t row = 0; row <= g.rows; row++)
		g.row_addr.push_back(axis.addr(uint64_t(edge(row))));
	g.row_addr.back() = axis.addr(axis.total());
	// mean nr_accesses per byte of each cell, over the aggregations the
	// column holds
	std::vector<size_t> per_col(g.cols, 0);
	for (size_t i = 0; i < aggs.size(); i++) {
		size_t col = i * g.cols / aggs.size();
		per_col[col]++;
		for (const auto &r : aggs[i].regions) {
			g.nr_probes =
				std::max(g.nr_probes, r.probe_hits.size());
			auto iv = Axis::clip(spec, r);
			if (!r.nr_accesses || iv.first >= iv.second)
				continue;
			double lo = double(axis.pos(iv.first));
			double hi = lo + double(iv.second - iv.first);
			for (size_t row = 0; row < g.rows; row++) {
				double ov = std::min(edge(row + 1), hi) -
					    std::max(edge(row), lo);
				if (ov > 0)
					g.cell[row * g.cols + col] +=
						r.nr_accesses * ov /
						(edge(row + 1) - edge(row));
			}
		}
	}
	for (size_t row = 0; row < g.rows; row++)
		for (size_t c = 0; c < g.cols; c++) {
			double &v = g.cell[row * g.cols + c];
			if (per_col[c])
				v /= double(per_col[c]);
			g.maxv = std::max(g.maxv, v);
		}
	return g;
}

std::string render_heatmap(const std::vector<Aggregation> &aggs,
			   const HeatmapSpec &spec, bool color)
{
	static const char SHADES[] = " .:-=+*#%@";
	HeatGrid g = heat_grid(aggs, spec);
	std::string out;

	if (!g.rows && !spec.all_ranges && !spec.range) {
		// nothing saw an access: draw every monitored range
		HeatmapSpec all = spec;
		all.all_ranges = true;
		g = heat_grid(aggs, all);
		if (g.rows)
			out += "no range saw an access; drawing every "
			       "monitored range\n";
	}
	if (!g.rows)
		return "no regions to draw\n";
	out += fmt::format("address {} (top) .. {} (bottom), {} covered, {} "
			   "gap(s) left out; time ->, {} aggregations; "
			   "max {:.1f} accesses\n",
			   hex(g.row_addr.front()), hex(g.row_addr.back()),
			   human_size(g.covered), g.gaps, g.nr_aggs, g.maxv);
	for (size_t row = 0; row < g.rows; row++) {
		out += fmt::format("{:>18} |", hex(g.row_addr[row]));
		for (size_t col = 0; col < g.cols; col++) {
			double v = g.maxv > 0 ? g.at(row, col) / g.maxv : 0;
			int idx = int(std::lround(v * 9));
			if (color && idx > 0)
				out += fmt::format("\x1b[38;5;{}m{}\x1b[0m",
						   232 + idx * 2, SHADES[idx]);
			else
				out += SHADES[idx];
		}
		out += "|\n";
	}
	return out;
}

std::string render_heatmap(const std::vector<Aggregation> &aggs, size_t rows,
			   size_t cols, bool color)
{
	HeatmapSpec spec;

	spec.rows = rows;
	spec.cols = cols;
	spec.all_ranges = true;
	return render_heatmap(aggs, spec, color);
}

std::string heatmap_svg(const HeatGrid &g)
{
	using L = HeatmapLayout;
	const int cw = L::cell_w(g);
	const int pw = int(g.cols) * cw, ph = int(g.rows) * L::CELL_H;
	const int w = L::LEFT + pw + L::RIGHT, h = L::TOP + ph + L::BOTTOM;
	std::string out;

	out += fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" "
			   "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
			   "font-family=\"sans-serif\" font-size=\"11\">\n",
			   w, h, w, h);
	out += fmt::format(
		"<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", w, h);
	out += fmt::format(
		"<text x=\"12\" y=\"18\" font-size=\"13\">damon_perf "
		"context {}: mean nr_accesses per aggregation, {} "
		"probe(s)</text>\n",
		g.ctx, g.nr_probes);
	out += fmt::format("<text x=\"12\" y=\"34\" fill=\"#555555\">{} "
			   "aggregations; {} of address space drawn, {} "
			   "gap(s) left out (dashed lines)</text>\n",
			   g.nr_aggs, human_size(g.covered), g.gaps);
	// cells, equal neighbours of a row merged into one rect
	for (size_t r = 0; r < g.rows; r++) {
		size_t c = 0;
		while (c < g.cols) {
			std::string fill = css(
				colour(g.maxv > 0 ? g.at(r, c) / g.maxv : 0));
			size_t e = c + 1;
			while (e < g.cols &&
			       css(colour(g.maxv > 0 ? g.at(r, e) / g.maxv
						     : 0)) == fill)
				e++;
			out += fmt::format(
				"<rect x=\"{}\" y=\"{}\" width=\"{}\" "
				"height=\"{}\" fill=\"{}\"/>\n",
				L::LEFT + int(c) * cw,
				L::TOP + int(r) * L::CELL_H, int(e - c) * cw,
				L::CELL_H, fill);
			c = e;
		}
	}
	// address labels: the first and last rows, each gap (a row whose
	// start address jumps by more than a row's bytes), about every 40 px
	int last_y = -100;
	const uint64_t row_bytes = g.rows ? g.covered / g.rows + 1 : 1;
	for (size_t r = 0; r <= g.rows; r++) {
		int y = L::TOP + int(r) * L::CELL_H;
		bool edge = r == 0 || r == g.rows;
		bool jump = r > 0 && r < g.rows &&
			    g.row_addr[r] - g.row_addr[r - 1] > 2 * row_bytes;
		if (jump)
			out += fmt::format(
				"<line x1=\"{}\" y1=\"{}\" x2=\"{}\" "
				"y2=\"{}\" stroke=\"#00c0ff\" "
				"stroke-dasharray=\"4 3\"/>\n",
				L::LEFT, y, L::LEFT + pw, y);
		if ((edge || jump) ? y - last_y < 12 : y - last_y < 40)
			continue;
		out += fmt::format(
			"<text x=\"{}\" y=\"{}\" text-anchor=\"end\" "
			"dominant-baseline=\"middle\">{}</text>\n",
			L::LEFT - 6, y, hex(g.row_addr[r]));
		last_y = y;
	}
	out += fmt::format("<text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 "
			   "{})\" text-anchor=\"middle\">address</text>\n",
			   L::TOP + ph / 2, L::TOP + ph / 2);
	// time labels, seconds after the first aggregation
	for (int i = 0; i <= 4; i++) {
		int x = L::LEFT + pw * i / 4;
		uint64_t t = (g.t1_ns - g.t0_ns) * uint64_t(i) / 4;
		out += fmt::format("<text x=\"{}\" y=\"{}\" "
				   "text-anchor=\"middle\">{}</text>\n",
				   x, L::TOP + ph + 16, seconds(t));
	}
	out += fmt::format(
		"<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time "
		"(s after the first aggregation)</text>\n",
		L::LEFT + pw / 2, L::TOP + ph + 36);
	// colour scale
	int sx = L::LEFT + pw + 24;
	for (int i = 0; i < 32; i++) {
		int y0 = L::TOP + ph * i / 32, y1 = L::TOP + ph * (i + 1) / 32;
		out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"16\" "
				   "height=\"{}\" fill=\"{}\"/>\n",
				   sx, y0, std::max(1, y1 - y0),
				   css(colour(1.0 - (i + 0.5) / 32)));
	}
	out += fmt::format("<text x=\"{}\" y=\"{}\" "
			   "dominant-baseline=\"middle\">{:.1f}</text>\n",
			   sx + 20, L::TOP + 4, g.maxv);
	out += fmt::format("<text x=\"{}\" y=\"{}\" "
			   "dominant-baseline=\"middle\">0</text>\n",
			   sx + 20, L::TOP + ph - 4);
	out += "</svg>\n";
	return out;
}

void write_heatmap_png(const std::string &path, const HeatGrid &g)
{
	using L = HeatmapLayout;
	const int cw = L::cell_w(g);
	const int pw = int(g.cols) * cw, ph = int(g.rows) * L::CELL_H;
	const int w = L::LEFT + pw + L::RIGHT, h = L::TOP + ph + L::BOTTOM;
	std::vector<uint8_t> px(size_t(w) * size_t(h) * 3, 0xff);
	auto put = [&](int x, int y, Rgb c) {
		uint8_t *p = &px[(size_t(y) * size_t(w) + size_t(x)) * 3];
		p[0] = c.r;
		p[1] = c.g;
		p[2] = c.b;
	};

	for (int y = 0; y < ph; y++)
		for (int x = 0; x < pw; x++) {
			size_t r = size_t(y / L::CELL_H), c = size_t(x / cw);
			put(L::LEFT + x, L::TOP + y,
			    colour(g.maxv > 0 ? g.at(r, c) / g.maxv : 0));
		}
	int sx = L::LEFT + pw + 24;
	for (int y = 0; y < ph; y++)
		for (int x = 0; x < 16; x++)
			put(sx + x, L::TOP + y, colour(1.0 - (y + 0.5) / ph));

	std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "wb"),
						 &std::fclose);
	if (!f)
		throw UsageError("cannot write '" + path + "'");
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING,
						  nullptr, nullptr, nullptr);
	png_infop info = png ? png_create_info_struct(png) : nullptr;
	if (!png || !info) {
		png_destroy_write_struct(&png, &info);
		throw std::runtime_error("libpng: out of memory");
	}
	if (setjmp(png_jmpbuf(png))) { // NOLINT(cert-err52-cpp): libpng's API
		png_destroy_write_struct(&png, &info);
		throw UsageError("cannot write PNG '" + path + "'");
	}
	png_init_io(png, f.get());
	png_set_IHDR(png, info, png_uint_32(w), png_uint_32(h), 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < h; y++)
		png_write_row(png, &px[size_t(y) * size_t(w) * 3]);
	png_write_end(png, nullptr);
	png_destroy_write_struct(&png, &info);
	if (std::fflush(f.get()) != 0)
		throw UsageError("cannot write '" + path + "'");
}

std::pair<uint64_t, uint64_t> parse_addr_range(const std::string &s)
{
	auto dash = s.find('-');
	auto num = [&](const std::string &t) -> uint64_t {
		if (t.empty() || t[0] == '-' || t[0] == '+')
			throw UsageError("bad address range '" + s +
					 "' (START-END, e.g. 0x7f00-0x7fff)");
		errno = 0;
		char *end = nullptr;
		unsigned long long v = std::strtoull(t.c_str(), &end, 0);
		if (errno || *end)
			throw UsageError("bad address range '" + s +
					 "' (START-END, e.g. 0x7f00-0x7fff)");
		return v;
	};
	if (dash == std::string::npos)
		throw UsageError("bad address range '" + s +
				 "' (START-END, e.g. 0x7f00-0x7fff)");
	uint64_t lo = num(s.substr(0, dash)), hi = num(s.substr(dash + 1));
	if (hi <= lo)
		throw UsageError("address range '" + s +
				 "': END must be above START");
	return {lo, hi};
}

} // namespace damonctl
