// SPDX-License-Identifier: GPL-2.0
// GoogleTest for `damonctl spe decode` (tools/src/cmd/spe_decode.cpp,
// tools/src/cmd/cmd_spe.cpp) over the shared SPE case bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd_spe.hpp"
#include "fake_transport.hpp"
#include "spe_decode.hpp"
#include "spe_parse.h"
#include "spe_cases.h"

namespace {

std::vector<uint8_t> bytes(const u8 *p, size_t n)
{
	return std::vector<uint8_t>(p, p + n);
}

TEST(SpeDecode, TextDumpsPacketsAndRecords)
{
	std::ostringstream out;
	auto r = damonctl::spe_decode_text(
		bytes(spe_load_store, sizeof(spe_load_store)), out);
	const std::string s = out.str();

	EXPECT_EQ(r.records, 2u);
	EXPECT_EQ(r.errors, 0u);
	EXPECT_EQ(r.trailing, 0u);
	EXPECT_NE(s.find(". 00000000:  b0 56 34 12 08 00 80 ff a0"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("PC 0xff800008123456 el1 ns=1"), std::string::npos);
	EXPECT_NE(s.find("PA 0x81234230 ns=1"), std::string::npos);
	EXPECT_NE(s.find("LAT 42 TOT"), std::string::npos);
	EXPECT_NE(s.find("LD/ST 0x01 ST"), std::string::npos);
	EXPECT_NE(s.find("=> record load,pa-ns,pc-ns vaddr=0xffffb7e01230 "
			 "paddr=0x81234230 pc=0xffff800008123456 el1 lat=42 "
			 "ctx=1234"),
		  std::string::npos)
		<< s;
	EXPECT_NE(s.find("ts=1311768467463790320"), std::string::npos);
}

TEST(SpeDecode, TextCountsGarbageAndTrailingBytes)
{
	std::ostringstream out;
	auto r = damonctl::spe_decode_text(
		bytes(spe_garbage_load, sizeof(spe_garbage_load)), out);

	EXPECT_EQ(r.records, 1u);
	EXPECT_EQ(r.errors, 4u);
	out.str("");
	r = damonctl::spe_decode_text(
		bytes(spe_trunc_second, sizeof(spe_trunc_second)), out);
	EXPECT_EQ(r.records, 1u);
	EXPECT_EQ(r.trailing, sizeof(spe_trunc_second) - sizeof(spe_rec_load));
}

TEST(SpeDecode, JsonHasOneObjectPerRecord)
{
	auto j = damonctl::spe_decode_json(
		bytes(spe_load_store, sizeof(spe_load_store)));

	ASSERT_EQ(j["records"].size(), 2u);
	EXPECT_EQ(j["records"][0]["vaddr"], 0x0000ffffb7e01230ULL);
	EXPECT_EQ(j["records"][0]["op"], "load");
	EXPECT_EQ(j["records"][0]["pa_ns"], true);
	EXPECT_EQ(j["records"][1]["op"], "store");
	EXPECT_EQ(j["records"][1]["timestamp"], 0x123456789abcdef0ULL);
	EXPECT_EQ(j["errors"], 0);
	EXPECT_EQ(j["trailing"], 0);
}

TEST(SpeDecode, CommandLineRunsDecode)
{
	char path[] = "/tmp/spe_decode_testXXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, spe_rec_store, sizeof(spe_rec_store)),
		  ssize_t(sizeof(spe_rec_store)));
	close(fd);

	damonctl::test::FakeTransport t;
	CLI::App app{"damonctl"};
	damonctl::setup_spe(app, t);
	std::vector<std::string> args = {path, "decode", "spe"};
	testing::internal::CaptureStdout();
	app.parse(args); /* CLI11 takes the reversed argument vector */
	std::string s = testing::internal::GetCapturedStdout();
	unlink(path);
	EXPECT_NE(s.find("=> record store"), std::string::npos) << s;

	CLI::App bad{"damonctl"};
	damonctl::setup_spe(bad, t);
	std::vector<std::string> missing = {"/nonexistent/x", "decode", "spe"};
	EXPECT_THROW(bad.parse(missing), CLI::ValidationError);
}

} // namespace
