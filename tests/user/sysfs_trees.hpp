// SPDX-License-Identifier: GPL-2.0
// The fake sysfs trees of tests/user/data (sysfs-NAME: the PMUs of a
// machine, with their type, format and event files) and the check every
// event test makes against them: an event string refused with a clear
// message.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "errors.hpp"
#include "events.hpp"

namespace damonctl::test {

// tests/user/data/sysfs-@name, e.g. "intel" or "61-amd".
inline std::string sysfs_tree(const std::string &name)
{
	return std::string(DAMONCTL_TEST_DATA) + "/sysfs-" + name;
}

// An event string resolve_event() must refuse on @machine's tree.
struct BadEvent {
	const char *desc;
	const char *machine;
	const char *event;
	const char *message; // a substring of the error
};

inline void PrintTo(const BadEvent &c, std::ostream *os)
{
	*os << c.event;
}

// Success when resolving @c.event in @root throws a UsageError whose
// message holds @c.message.
inline testing::AssertionResult refused(const BadEvent &c,
					const std::string &root)
{
	try {
		ResolvedEvent ev = resolve_event(c.event, root);
		return testing::AssertionFailure()
		       << "resolved " << c.event << " to type " << ev.type
		       << " config " << std::hex << ev.config;
	} catch (const UsageError &e) {
		if (std::string(e.what()).find(c.message) == std::string::npos)
			return testing::AssertionFailure()
			       << "refused " << c.event << " with '" << e.what()
			       << "', not '" << c.message << "'";
	}
	return testing::AssertionSuccess();
}

} // namespace damonctl::test
