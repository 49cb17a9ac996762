// SPDX-License-Identifier: GPL-2.0
// GoogleTest for the userspace half of the AUX transport
// (tools/src/core/spe_aux.cpp). Opening a real AUX PMU needs one (the VM test
// tests/vm/spe_aux.sh does that with the test PMU); these cover argument
// checks and the cleanup of a failing open.
#include <gtest/gtest.h>

#include <dirent.h>

#include <stdexcept>
#include <system_error>

#include "spe_aux.hpp"

namespace {

size_t open_fds()
{
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

perf_event_attr sw_attr()
{
	perf_event_attr a{};

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	return a;
}

TEST(SpeAux, RejectsBadSizesAndFrequency)
{
	perf_event_attr a = sw_attr();

	EXPECT_THROW(damonctl::AuxBuffers(a, {0}, -1, 3, 4),
		     std::invalid_argument);
	EXPECT_THROW(damonctl::AuxBuffers(a, {0}, -1, 1, 1),
		     std::invalid_argument);
	EXPECT_THROW(damonctl::AuxBuffers(a, {0}, -1, 1, 6),
		     std::invalid_argument);
	a.freq = 1;
	EXPECT_THROW(damonctl::AuxBuffers(a, {0}, -1, 1, 4),
		     std::invalid_argument);
}

TEST(SpeAux, FailingOpenLeavesNothingOpen)
{
	perf_event_attr a = sw_attr();
	const size_t before = open_fds();

	a.type = 0x7fff0000; /* no such PMU */
	EXPECT_THROW(damonctl::AuxBuffers(a, {0}, -1, 1, 4), std::system_error);
	EXPECT_EQ(open_fds(), before);
}

TEST(SpeAux, PmuWithoutAuxFailsAtTheAuxMapping)
{
	perf_event_attr a = sw_attr();
	const size_t before = open_fds();

	/* a software event opens (when perf is allowed at all), maps its
	 * data area, but has no AUX area: the second mmap must fail and
	 * everything be released */
	try {
		damonctl::AuxBuffers b(a, {0}, 0, 1, 4);
		ADD_FAILURE() << "a software event accepted an AUX mapping";
	} catch (const std::system_error &e) {
		SUCCEED() << e.what();
	}
	EXPECT_EQ(open_fds(), before);
}

} // namespace
