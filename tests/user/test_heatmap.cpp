// SPDX-License-Identifier: GPL-2.0
// Heatmap images of a recording (tests/user/data/recordings/
// demo-hot-band.jsonl: target 1 maps 64 MiB at 0x7f0000000000 whose 8 MiB
// at +16 MiB are hot, one other 8 MiB region is touched once every fourth
// aggregation, a 2 MiB mapping is idle; target 2 has one warm 4 MiB
// region at 0x555500000000). The images are rasterized (the PNG as
// written, the SVG with rsvg-convert) and the hot band is looked for
// where the hot range sits on the address axis.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <png.h>

#include "heatmap.hpp"
#include "errors.hpp"
#include "recording.hpp"

using namespace damonctl;

namespace {

const uint64_t MiB = 1 << 20;
const uint64_t BASE = 0x7f0000000000ULL;
const uint64_t HOT_LO = BASE + 16 * MiB, HOT_HI = BASE + 24 * MiB;

std::vector<Aggregation> demo()
{
	return read_recording_file(std::string(DAMONCTL_TEST_DATA) +
				   "/recordings/demo-hot-band.jsonl");
}

struct Image {
	int w = 0, h = 0;
	std::vector<uint8_t> rgb;
	int lum(int x, int y) const
	{
		const uint8_t *p =
			&rgb[(size_t(y) * size_t(w) + size_t(x)) * 3];
		return (p[0] * 299 + p[1] * 587 + p[2] * 114) / 1000;
	}
};

Image read_png(const std::string &path)
{
	png_image img{};
	Image out;

	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, path.c_str()))
		return out;
	img.format = PNG_FORMAT_RGB;
	out.rgb.resize(PNG_IMAGE_SIZE(img));
	if (!png_image_finish_read(&img, nullptr, out.rgb.data(), 0, nullptr)) {
		out.rgb.clear();
		return out;
	}
	out.w = int(img.width);
	out.h = int(img.height);
	return out;
}

// The plot rows (0 = top) whose middle pixel is bright, as a fraction of
// the plot height: [first, last + 1).
std::pair<double, double> bright_band(const Image &img, const HeatGrid &g)
{
	using L = HeatmapLayout;
	const int ph = int(g.rows) * L::CELL_H;
	const int x = L::LEFT + int(g.cols) * L::cell_w(g) / 2;
	int first = -1, last = -1;

	for (int y = 0; y < ph; y++)
		if (img.lum(x, L::TOP + y) > 160) {
			if (first < 0)
				first = y;
			last = y;
		}
	return {double(first) / ph, double(last + 1) / ph};
}

// Where [lo, hi) sits on the grid's address axis, as fractions.
std::pair<double, double> axis_band(const HeatGrid &g, uint64_t lo, uint64_t hi)
{
	size_t first = g.rows, last = 0;

	for (size_t r = 0; r < g.rows; r++)
		if (g.row_addr[r] >= lo && g.row_addr[r] < hi) {
			first = std::min(first, r);
			last = r;
		}
	return {double(first) / double(g.rows),
		double(last + 1) / double(g.rows)};
}

void expect_band(const Image &img, const HeatGrid &g)
{
	ASSERT_GT(img.w, 0);
	using L = HeatmapLayout;
	ASSERT_EQ(img.w, L::LEFT + int(g.cols) * L::cell_w(g) + L::RIGHT);
	ASSERT_EQ(img.h, L::TOP + int(g.rows) * L::CELL_H + L::BOTTOM);
	auto want = axis_band(g, HOT_LO, HOT_HI);
	auto got = bright_band(img, g);
	// within a row of the grid (anti-aliasing at the edges)
	EXPECT_NEAR(got.first, want.first, 1.5 / double(g.rows));
	EXPECT_NEAR(got.second, want.second, 1.5 / double(g.rows));
}

} // namespace

TEST(Heatmap, ByDefaultRowsByAccesses)
{
	HeatmapSpec spec;
	HeatGrid g = heat_grid(demo(), spec);

	// target 2's 4 MiB, the hot 8 MiB and the once-in-four 8 MiB have
	// rows; the stretches between them one collapsed row each
	EXPECT_TRUE(g.by_accesses);
	EXPECT_EQ(g.covered, 20 * MiB);
	EXPECT_EQ(g.rows, 20u);
	size_t collapsed = 0;
	for (const auto &r : g.row)
		collapsed += r.kind == HeatRow::COLLAPSED;
	EXPECT_EQ(collapsed, g.gaps);
	EXPECT_EQ(g.gaps, 2u);
	// the hot range has most of the accesses, so most of the rows
	auto band = axis_band(g, HOT_LO, HOT_HI);
	EXPECT_GE(band.second - band.first, 0.6);

	spec.all_ranges = true;
	HeatGrid all = heat_grid(demo(), spec);
	EXPECT_FALSE(all.by_accesses);
	EXPECT_EQ(all.covered, (4 + 64 + 2) * MiB);
	// the hot range then gets 8 of 70 MiB
	band = axis_band(all, HOT_LO, HOT_HI);
	EXPECT_LT(band.second - band.first, 0.15);
}

namespace {

// As make demo saw it: a 48 MiB heap range below the mapping touched in two
// of ten aggregations; the 64 MiB mapping idle but for its 4 MiB hot range
// (four regions); a warm 128 KiB stack far above.
const uint64_t HEAP = 0x555500000000ULL, MAP = 0x7f0000000000ULL,
	       STACK = 0x7ffc00000000ULL;

std::vector<Aggregation> heap_below_hot()
{
	std::vector<Aggregation> aggs;

	for (uint64_t i = 0; i < 10; i++) {
		Aggregation a;
		a.ctx_id = 1;
		a.ctx_name = "demo";
		a.seq = i + 1;
		a.time_ns = (i + 1) * 1000000000ULL;
		auto add = [&](uint64_t s, uint64_t e, uint32_t n) {
			Region r;
			r.target_id = 1;
			r.start = s;
			r.end = e;
			r.nr_accesses = n;
			a.regions.push_back(r);
		};
		add(HEAP, HEAP + 48 * MiB, i == 2 || i == 7 ? 1 : 0);
		add(MAP, MAP + 16 * MiB, 0);
		for (uint64_t k = 0; k < 4; k++)
			add(MAP + (16 + k) * MiB, MAP + (17 + k) * MiB, 20);
		add(MAP + 20 * MiB, MAP + 64 * MiB, 0);
		add(STACK, STACK + 128 * 1024ULL, 2);
		aggs.push_back(a);
	}
	return aggs;
}

// The rows fully inside [lo, hi).
size_t rows_in(const HeatGrid &g, uint64_t lo, uint64_t hi)
{
	size_t n = 0;

	for (size_t r = 0; r < g.rows; r++)
		n += g.row_addr[r] >= lo && g.row_addr[r + 1] <= hi;
	return n;
}

} // namespace

TEST(Heatmap, RowsGoToTheRangesWithAccesses)
{
	HeatmapSpec spec;
	spec.rows = 16;
	HeatGrid g = heat_grid(heap_below_hot(), spec);

	ASSERT_EQ(g.rows, 16u);
	// 800 of the 822 accesses: 12 rows, the heap and the stack one each,
	// the two stretches without accesses one each
	EXPECT_EQ(rows_in(g, MAP + 16 * MiB, MAP + 20 * MiB), 12u);
	EXPECT_EQ(rows_in(g, HEAP, HEAP + 48 * MiB), 1u);
	EXPECT_EQ(rows_in(g, STACK, STACK + 128 * 1024ULL), 1u);
	EXPECT_EQ(g.row_addr.front(), HEAP);
	EXPECT_EQ(g.row_addr.back(), STACK + 128 * 1024ULL);
}

TEST(Heatmap, StretchesWithoutAccessesCollapseIntoOneMarkedRow)
{
	HeatmapSpec spec;
	spec.rows = 16;
	HeatGrid g = heat_grid(heap_below_hot(), spec);

	ASSERT_EQ(g.rows, 16u);
	EXPECT_EQ(g.gaps, 2u);
	for (size_t r = 0; r < g.rows; r++)
		EXPECT_EQ(g.row[r].kind, r == 1 || r == 14 ? HeatRow::COLLAPSED
							   : HeatRow::ACCESSED)
			<< "row " << r;
	// the unmapped space below the mapping and its idle 16 MiB
	EXPECT_EQ(g.row_addr[1], HEAP + 48 * MiB);
	EXPECT_EQ(g.row[1].idle_bytes, 16 * MiB);
	EXPECT_EQ(g.row[1].gap_bytes, MAP - HEAP - 48 * MiB);
	EXPECT_EQ(g.row_addr[2], MAP + 16 * MiB);
	EXPECT_EQ(g.row[14].idle_bytes, 44 * MiB);
	EXPECT_EQ(g.row[14].gap_bytes, STACK - MAP - 64 * MiB);
	// the hot range's rows: equal shares of its uniform accesses
	for (size_t r = 2; r < 14; r++)
		EXPECT_NEAR(double(g.row_addr[r + 1] - g.row_addr[r]),
			    double(4 * MiB) / 12, 4096)
			<< "row " << r;
	std::string text = render_heatmap(heap_below_hot(), spec);
	EXPECT_NE(text.find("|~~~~~~~~~~| ~ 16.0 MiB idle,"), std::string::npos)
		<< text;
	EXPECT_NE(text.find("2 collapsed"), std::string::npos) << text;

	// fewer rows than ranges: the heap, with the fewest accesses, joins
	// the collapsed stretch after it, marked as having few
	spec.rows = 4;
	g = heat_grid(heap_below_hot(), spec);
	ASSERT_EQ(g.rows, 4u);
	EXPECT_EQ(g.row[0].kind, HeatRow::COLLAPSED);
	EXPECT_GT(g.row[0].accesses, 0);
	EXPECT_EQ(g.row_addr[1], MAP + 16 * MiB);
	EXPECT_EQ(g.row[1].kind, HeatRow::ACCESSED);
	EXPECT_EQ(g.row[2].kind, HeatRow::COLLAPSED);
	EXPECT_EQ(g.row[3].kind, HeatRow::ACCESSED);
	text = render_heatmap(heap_below_hot(), spec);
	EXPECT_NE(text.find("with few accesses"), std::string::npos) << text;

	spec.rows = 1;
	g = heat_grid(heap_below_hot(), spec);
	ASSERT_EQ(g.rows, 1u);
	EXPECT_EQ(g.row_addr.front(), MAP + 16 * MiB);
	EXPECT_EQ(g.row_addr.back(), MAP + 20 * MiB);
}

TEST(Heatmap, RangeZooms)
{
	HeatmapSpec spec;
	spec.range = parse_addr_range("0x7f0000800000-0x7f0002000000");
	spec.rows = 12;
	HeatGrid g = heat_grid(demo(), spec);

	// the hot 8 MiB only: the clipped regions that saw accesses
	EXPECT_EQ(g.covered, 8 * MiB);
	EXPECT_EQ(g.row_addr.front(), HOT_LO);
	EXPECT_EQ(g.row_addr.back(), HOT_HI);

	spec.range = parse_addr_range("0x1000-0x2000");
	EXPECT_EQ(heat_grid(demo(), spec).rows, 0u);
	EXPECT_THROW(parse_addr_range("0x2000-0x1000"), UsageError);
	EXPECT_THROW(parse_addr_range("0x2000"), UsageError);
	EXPECT_THROW(parse_addr_range("zz-0x1000"), UsageError);
}

TEST(Heatmap, PngHasTheHotBandWhereTheHotRangeIs)
{
	HeatmapSpec spec;
	spec.rows = 100;
	spec.cols = 30;
	HeatGrid g = heat_grid(demo(), spec);
	std::string path = testing::TempDir() + "/heatmap_test.png";

	write_heatmap_png(path, g);
	expect_band(read_png(path), g);
	std::remove(path.c_str());
}

TEST(Heatmap, SvgRasterizedHasTheHotBandWhereTheHotRangeIs)
{
	if (std::system("command -v rsvg-convert > /dev/null") != 0)
		GTEST_SKIP() << "rsvg-convert (librsvg2-bin) is not installed";
	HeatmapSpec spec;
	spec.rows = 100;
	spec.cols = 30;
	HeatGrid g = heat_grid(demo(), spec);
	std::string svg = testing::TempDir() + "/heatmap_test.svg";
	std::string png = testing::TempDir() + "/heatmap_test_svg.png";
	{
		std::ofstream f(svg);
		f << heatmap_svg(g);
	}
	ASSERT_EQ(std::system(("rsvg-convert '" + svg + "' -o '" + png + "'")
				      .c_str()),
		  0);
	expect_band(read_png(png), g);
	std::string text = heatmap_svg(g);
	EXPECT_NE(text.find("context 1 \"demo\""), std::string::npos);
	EXPECT_NE(text.find(">0x7f0001000000<"), std::string::npos);
	std::remove(svg.c_str());
	std::remove(png.c_str());
}
