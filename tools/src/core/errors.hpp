// SPDX-License-Identifier: GPL-2.0
// Exceptions damonctl throws; main() maps each to an exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace damonctl {

// Exit codes.
enum ExitCode {
	EXIT_OK = 0,
	EXIT_KERNEL = 1,   // the kernel refused a request
	EXIT_USAGE = 2,    // bad command line or configuration
	EXIT_NOMODULE = 3, // family damon_perf not registered
	EXIT_OTHER = 4,
};

// The category of libnl's negative NLE_* codes; message() is nl_geterror().
const std::error_category &nl_category();

// A bad command line, config file or event string.
class UsageError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The kernel answered with an error; what() is its extack message, or
// strerror() when it sent none.
class KernelError : public std::system_error {
public:
	KernelError(int err, const std::string &extack);
	const std::string &extack() const { return extack_; }
	int err() const { return code().value(); }

private:
	std::string extack_;
};

// The generic netlink family does not exist.
class ModuleNotLoaded : public std::runtime_error {
public:
	ModuleNotLoaded()
		: std::runtime_error("damon_perf module is not loaded "
				     "(family damon_perf not found)")
	{
	}
};

// A reply that does not parse (wrong attribute length, missing field).
class ProtocolError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// "EINVAL" for EINVAL, or the number.
std::string errno_name(int err);

} // namespace damonctl
