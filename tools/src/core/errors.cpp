// SPDX-License-Identifier: GPL-2.0
#include "errors.hpp"

#include <cstring>

#include <netlink/errno.h>

namespace damonctl {

namespace {

class NlCategory : public std::error_category {
public:
	const char *name() const noexcept override { return "libnl"; }
	std::string message(int code) const override
	{
		return nl_geterror(code);
	}
};

} // namespace

const std::error_category &nl_category()
{
	static const NlCategory category;
	return category;
}

KernelError::KernelError(int err, const std::string &extack)
	: std::system_error(err, std::generic_category(),
			    extack.empty() ? std::strerror(err) : extack)
	, extack_(extack)
{
}

std::string errno_name(int err)
{
	const char *name = strerrorname_np(err);
	return name ? name : "errno " + std::to_string(err);
}

} // namespace damonctl
