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

// A cell's colour; a collapsed row's empty cells slate.
Rgb cell_colour(const HeatGrid &g, size_t r, size_t c)
{
	double v = g.maxv > 0 ? g.at(r, c) / g.maxv : 0;
	if (g.row[r].kind == HeatRow::COLLAPSED && v < 0.5 / 9)
		return {0x2a, 0x4d, 0x69};
	return colour(v);
}

std::string css(Rgb c)
{
	return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

// What a collapsed row stands for: "~ 16.0 MiB idle, 1.2 TiB unmonitored".
std::string collapsed_label(const HeatRow &r)
{
	std::string out = "~";
	if (r.idle_bytes)
		out += fmt::format(" {} {}", human_size(r.idle_bytes),
				   r.accesses > 0 ? "with few accesses"
						  : "idle");
	if (r.gap_bytes)
		out += fmt::format("{} {} unmonitored", r.idle_bytes ? "," : "",
				   human_size(r.gap_bytes));
	return out;
}

std::string seconds(uint64_t ns)
{
	return fmt::format("{:.1f}", double(ns) / 1e9);
}

// One stretch of the address axis in heat_grid_by_accesses: a run of
// addresses that saw accesses, or a collapsed one.
struct Piece {
	uint64_t start, end;
	bool accessed;
	double acc;               // nr_accesses summed over the aggregations
	uint64_t idle, gap;       // collapsed: monitored and unmonitored bytes
	std::vector<size_t> segs; // accessed: its segments (indexes)
};

// Rows at equal shares of a piece's accesses: n + 1 boundaries from
// p.start to p.end, each inside [start, end], strictly increasing, on a
// page boundary where that keeps them so.
void split_by_accesses(const Piece &p, size_t n,
		       const std::vector<uint64_t> &pt,
		       const std::vector<double> &acc,
		       std::vector<uint64_t> &out)
{
	const uint64_t PAGE = 4096;
	out.push_back(p.start);
	double cum = 0;
	size_t i = 0;
	for (size_t k = 1; k < n; k++) {
		double want = p.acc * double(k) / double(n);
		while (i < p.segs.size() && cum + acc[p.segs[i]] < want) {
			cum += acc[p.segs[i]];
			i++;
		}
		uint64_t lo = pt[p.segs[std::min(i, p.segs.size() - 1)]];
		uint64_t hi = pt[p.segs[std::min(i, p.segs.size() - 1)] + 1];
		double a = acc[p.segs[std::min(i, p.segs.size() - 1)]];
		double f = a > 0 ? std::clamp((want - cum) / a, 0.0, 1.0) : 0;
		uint64_t at = lo + uint64_t(f * double(hi - lo));
		uint64_t paged = (at + PAGE / 2) / PAGE * PAGE;
		uint64_t prev = out.back();
		// room for the rows still to come, a byte each
		uint64_t last = p.end - (n - k);
		if (paged > prev && paged <= last)
			at = paged;
		out.push_back(std::clamp(at, prev + 1, last));
	}
}

HeatGrid heat_grid_by_accesses(const std::vector<Aggregation> &aggs,
			       const HeatmapSpec &spec)
{
	HeatGrid g;

	// the segments between every region boundary of every aggregation
	std::vector<uint64_t> pt;
	for (const auto &a : aggs)
		for (const auto &r : a.regions) {
			auto iv = Axis::clip(spec, r);
			if (iv.first >= iv.second)
				continue;
			pt.push_back(iv.first);
			pt.push_back(iv.second);
		}
	std::sort(pt.begin(), pt.end());
	pt.erase(std::unique(pt.begin(), pt.end()), pt.end());
	if (pt.size() < 2)
		return g;
	const size_t nseg = pt.size() - 1;
	// per segment: regions covering it, and accesses per byte summed
	// over the aggregations (a region's nr_accesses spread over its
	// bytes), by difference arrays
	struct Diff {
		double dens = 0;
		long cover = 0;
	};
	std::vector<Diff> diff(nseg + 1);
	double total = 0;
	auto idx = [&](uint64_t a) {
		return size_t(std::lower_bound(pt.begin(), pt.end(), a) -
			      pt.begin());
	};
	for (const auto &a : aggs)
		for (const auto &r : a.regions) {
			auto iv = Axis::clip(spec, r);
			if (iv.first >= iv.second)
				continue;
			size_t i = idx(iv.first), j = idx(iv.second);
			diff[i].cover++;
			diff[j].cover--;
			if (!r.nr_accesses)
				continue;
			double d = double(r.nr_accesses) / double(r.size());
			diff[i].dens += d;
			diff[j].dens -= d;
			total += d * double(iv.second - iv.first);
		}
	if (total <= 0)
		return g;
	std::vector<double> acc(nseg);
	std::vector<char> covered(nseg);
	double d = 0;
	long c = 0;
	for (size_t i = 0; i < nseg; i++) {
		d += diff[i].dens;
		c += diff[i].cover;
		covered[i] = c > 0;
		// rounding of the running sum must not make an idle segment
		// look accessed
		acc[i] = d > 1e-15 ? d * double(pt[i + 1] - pt[i]) : 0;
	}

	// pieces: runs of accessed segments, and the stretches between
	std::vector<Piece> pieces;
	for (size_t i = 0; i < nseg; i++) {
		bool accd = acc[i] > 0;
		uint64_t len = pt[i + 1] - pt[i];
		if (pieces.empty() || pieces.back().accessed != accd)
			pieces.push_back({pt[i], pt[i], accd, 0, 0, 0, {}});
		Piece &p = pieces.back();
		p.end = pt[i + 1];
		p.acc += acc[i];
		if (accd)
			p.segs.push_back(i);
		else if (covered[i])
			p.idle += len;
		else
			p.gap += len;
	}
	// the space before the first and after the last access: left out
	if (!pieces.front().accessed)
		pieces.erase(pieces.begin());
	if (!pieces.back().accessed)
		pieces.pop_back();
	// more pieces than rows: collapse the accessed piece with the fewest
	// accesses into its neighbours, until they fit
	auto nacc = [&] {
		return size_t(std::count_if(
			pieces.begin(), pieces.end(),
			[](const Piece &p) { return p.accessed; }));
	};
	while (pieces.size() > spec.rows && nacc() > 1) {
		size_t m = pieces.size();
		for (size_t i = 0; i < pieces.size(); i++)
			if (pieces[i].accessed &&
			    (m == pieces.size() ||
			     pieces[i].acc < pieces[m].acc))
				m = i;
		Piece &p = pieces[m];
		p.accessed = false;
		p.idle += p.end - p.start;
		p.segs.clear();
		// merge with collapsed neighbours
		if (m + 1 < pieces.size() && !pieces[m + 1].accessed) {
			p.end = pieces[m + 1].end;
			p.acc += pieces[m + 1].acc;
			p.idle += pieces[m + 1].idle;
			p.gap += pieces[m + 1].gap;
			pieces.erase(pieces.begin() + long(m) + 1);
		}
		if (m > 0 && !pieces[m - 1].accessed) {
			Piece &q = pieces[m - 1];
			q.end = pieces[m].end;
			q.acc += pieces[m].acc;
			q.idle += pieces[m].idle;
			q.gap += pieces[m].gap;
			pieces.erase(pieces.begin() + long(m));
		}
		// at an end, a collapsed piece without accesses is left out
		if (!pieces.front().accessed && pieces.front().acc <= 0)
			pieces.erase(pieces.begin());
		if (!pieces.back().accessed && pieces.back().acc <= 0)
			pieces.pop_back();
	}
	// one accessed piece between two collapsed ones, and fewer rows: the
	// collapsed ones are left out
	while (pieces.size() > spec.rows) {
		if (!pieces.front().accessed)
			pieces.erase(pieces.begin());
		else
			pieces.pop_back();
	}

	// rows for the accessed pieces: by their share of the accesses, at
	// least one each (largest remainder)
	size_t ncoll = pieces.size() - nacc();
	size_t avail = spec.rows - ncoll;
	double acc_total = 0;
	for (const auto &p : pieces)
		if (p.accessed)
			acc_total += p.acc;
	std::vector<size_t> n(pieces.size(), 1);
	std::vector<double> rem(pieces.size(), -1);
	size_t used = 0;
	for (size_t i = 0; i < pieces.size(); i++) {
		if (!pieces[i].accessed) {
			n[i] = 1;
			continue;
		}
		double want = double(avail) * pieces[i].acc / acc_total;
		// a piece cannot hold more rows than bytes
		uint64_t bytes = pieces[i].end - pieces[i].start;
		n[i] = size_t(std::clamp(std::floor(want), 1.0, double(bytes)));
		rem[i] = n[i] < bytes ? want - double(n[i]) : -1;
		used += n[i];
	}
	while (used > avail) { // minimums took more than the shares
		size_t m = 0;
		for (size_t i = 1; i < pieces.size(); i++)
			if (n[i] > n[m])
				m = i;
		n[m]--;
		used--;
	}
	while (used < avail) {
		size_t m = 0;
		for (size_t i = 1; i < pieces.size(); i++)
			if (rem[i] > rem[m])
				m = i;
		if (rem[m] < -0.5)
			break; // no piece can take another row
		n[m]++;
		used++;
		uint64_t bytes = pieces[m].end - pieces[m].start;
		rem[m] = n[m] < bytes ? rem[m] - 1 : -1;
	}

	for (size_t i = 0; i < pieces.size(); i++) {
		const Piece &p = pieces[i];
		if (!p.accessed) {
			g.row_addr.push_back(p.start);
			HeatRow hr;
			hr.kind = HeatRow::COLLAPSED;
			hr.idle_bytes = p.idle;
			hr.gap_bytes = p.gap;
			g.row.push_back(hr);
			g.gaps++;
			continue;
		}
		std::vector<uint64_t> b;
		split_by_accesses(p, n[i], pt, acc, b);
		for (uint64_t a : b) {
			g.row_addr.push_back(a);
			g.row.push_back(HeatRow{});
		}
		g.covered += p.end - p.start;
	}
	g.row_addr.push_back(pieces.back().end);
	g.rows = g.row.size();
	g.by_accesses = true;

	// the accesses of each row, and the cells: mean nr_accesses over the
	// row's bytes
	g.cols = std::min(spec.cols, aggs.size());
	g.cell.assign(g.rows * g.cols, 0);
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
			auto it = std::upper_bound(g.row_addr.begin(),
						   g.row_addr.end(), iv.first);
			size_t row =
				it == g.row_addr.begin()
					? 0
					: size_t(it - g.row_addr.begin()) - 1;
			for (; row < g.rows && g.row_addr[row] < iv.second;
			     row++) {
				uint64_t lo =
					std::max(g.row_addr[row], iv.first);
				uint64_t hi = std::min(g.row_addr[row + 1],
						       iv.second);
				if (hi <= lo)
					continue;
				double ov = double(hi - lo);
				g.cell[row * g.cols + col] +=
					r.nr_accesses * ov /
					double(g.row_addr[row + 1] -
					       g.row_addr[row]);
				g.row[row].accesses +=
					r.nr_accesses * ov / double(r.size());
			}
		}
	}
	for (size_t row = 0; row < g.rows; row++)
		for (size_t col = 0; col < g.cols; col++) {
			double &v = g.cell[row * g.cols + col];
			if (per_col[col])
				v /= double(per_col[col]);
			g.maxv = std::max(g.maxv, v);
		}
	return g;
}

} // namespace

HeatGrid heat_grid(const std::vector<Aggregation> &aggs,
		   const HeatmapSpec &spec)
{
	HeatGrid g;

	if (aggs.empty() || spec.rows == 0 || spec.cols == 0)
		return g;
	if (!spec.all_ranges) {
		g = heat_grid_by_accesses(aggs, spec);
		if (g.rows) {
			g.nr_aggs = aggs.size();
			g.t0_ns = aggs.front().time_ns;
			g.t1_ns = aggs.back().time_ns;
			g.ctx = fmt::format("{} \"{}\"", aggs.front().ctx_id,
					    aggs.front().ctx_name);
		}
		return g;
	}
	// every monitored range, to scale
	Axis axis(aggs, spec);
	if (axis.total() == 0)
		return g;
	g.rows = std::min<uint64_t>(spec.rows, axis.total());
	g.cols = std::min(spec.cols, aggs.size());
	g.cell.assign(g.rows * g.cols, 0);
	g.row.assign(g.rows, HeatRow{});
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
	if (g.by_accesses)
		out += fmt::format(
			"address {} (top) .. {} (bottom), rows by accesses "
			"({} accessed), {} collapsed (~: no or few accesses); "
			"time ->, {} aggregations; max {:.1f} accesses\n",
			hex(g.row_addr.front()), hex(g.row_addr.back()),
			human_size(g.covered), g.gaps, g.nr_aggs, g.maxv);
	else
		out += fmt::format(
			"address {} (top) .. {} (bottom), {} covered, {} "
			"gap(s) left out; time ->, {} aggregations; "
			"max {:.1f} accesses\n",
			hex(g.row_addr.front()), hex(g.row_addr.back()),
			human_size(g.covered), g.gaps, g.nr_aggs, g.maxv);
	for (size_t row = 0; row < g.rows; row++) {
		bool coll = g.row[row].kind == HeatRow::COLLAPSED;
		out += fmt::format("{:>18} |", hex(g.row_addr[row]));
		for (size_t col = 0; col < g.cols; col++) {
			double v = g.maxv > 0 ? g.at(row, col) / g.maxv : 0;
			int idx = int(std::lround(v * 9));
			if (coll && idx == 0)
				out += '~';
			else if (color && idx > 0)
				out += fmt::format("\x1b[38;5;{}m{}\x1b[0m",
						   232 + idx * 2, SHADES[idx]);
			else
				out += SHADES[idx];
		}
		out += "|";
		if (coll)
			out += " " + collapsed_label(g.row[row]);
		out += "\n";
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
	if (g.by_accesses)
		out += fmt::format(
			"<text x=\"12\" y=\"34\" fill=\"#555555\">{} "
			"aggregations; rows by accesses ({}), {} stretch(es) "
			"without any one row each (slate)</text>\n",
			g.nr_aggs, human_size(g.covered), g.gaps);
	else
		out += fmt::format(
			"<text x=\"12\" y=\"34\" fill=\"#555555\">{} "
			"aggregations; {} of address space drawn, {} "
			"gap(s) left out (dashed lines)</text>\n",
			g.nr_aggs, human_size(g.covered), g.gaps);
	// cells, equal neighbours of a row merged into one rect
	for (size_t r = 0; r < g.rows; r++) {
		size_t c = 0;
		while (c < g.cols) {
			std::string fill = css(cell_colour(g, r, c));
			size_t e = c + 1;
			while (e < g.cols && css(cell_colour(g, r, e)) == fill)
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
	// start address jumps by more than a row's bytes; rows by accesses:
	// where an accessed range starts after a collapsed row), and about
	// every 40 px where no such label is within 12 px
	const uint64_t row_bytes = g.rows ? g.covered / g.rows + 1 : 1;
	std::vector<char> jump(g.rows + 1, 0), mark(g.rows + 1, 0);
	for (size_t r = 0; r <= g.rows; r++) {
		bool inner = r > 0 && r < g.rows;
		if (inner && g.by_accesses) {
			bool after = g.row[r - 1].kind == HeatRow::COLLAPSED;
			jump[r] = after || g.row[r].kind == HeatRow::COLLAPSED;
			mark[r] = after;
		} else if (inner) {
			jump[r] = g.row_addr[r] - g.row_addr[r - 1] >
				  2 * row_bytes;
			mark[r] = jump[r];
		} else {
			mark[r] = 1;
		}
	}
	int last_y = -100;
	size_t next_mark = 0;
	for (size_t r = 0; r <= g.rows; r++) {
		int y = L::TOP + int(r) * L::CELL_H;
		if (jump[r])
			out += fmt::format(
				"<line x1=\"{}\" y1=\"{}\" x2=\"{}\" "
				"y2=\"{}\" stroke=\"#00c0ff\" "
				"stroke-dasharray=\"4 3\"/>\n",
				L::LEFT, y, L::LEFT + pw, y);
		if (next_mark <= r)
			for (next_mark = r + 1;
			     next_mark <= g.rows && !mark[next_mark];)
				next_mark++;
		int next_y = L::TOP + int(next_mark) * L::CELL_H;
		if (mark[r] ? y - last_y < 12
			    : y - last_y < 40 ||
				      (next_mark <= g.rows && next_y - y < 12))
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
			put(L::LEFT + x, L::TOP + y, cell_colour(g, r, c));
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
