# SPDX-License-Identifier: GPL-2.0
# The damon_perf version, for MODULE_VERSION and the DKMS package: read by
# kmod/Kbuild and the top-level Makefile with damon_perf_top set to the
# source tree's top directory.
#
#   1. a VERSION file at the top (written into DKMS source trees and
#      tarballs by `make dkms`; not in git)
#   2. git describe of the checkout (0.1-g<hash>[-dirty] while no tag
#      exists)
#   3. PACKAGE_VERSION of a dkms.conf at the top, when it is not the
#      template's placeholder
#   4. damon_perf_base_version
damon_perf_base_version := 0.1
damon_perf_version := $(strip $(or \
	$(shell cat '$(damon_perf_top)/VERSION' 2>/dev/null), \
	$(shell cd '$(damon_perf_top)' 2>/dev/null && \
		{ git describe --tags --dirty 2>/dev/null || \
		  { h=$$(git describe --always --dirty 2>/dev/null) && \
		    echo $(damon_perf_base_version)-g$$h; }; }), \
	$(shell sed -n 's/^PACKAGE_VERSION="*\([^"@]*\)"*$$/\1/p' \
		'$(damon_perf_top)/dkms.conf' 2>/dev/null), \
	$(damon_perf_base_version)))
