# SPDX-License-Identifier: GPL-2.0
#
# make            module (against KDIR) + tools
# make module     kmod/damon_perf.ko against KDIR: the production module,
#                 without test hooks or test exports (also on a KUnit kernel)
# make module-debug  a test build (DAMON_PERF_TEST_EXPORTS=y) against the
#                 debug test kernel: the module + KUnit and test modules
# make tools      damonctl and the GoogleTest binary (CMake, build/tools)
# make check      every test tier; ends with "N passed, N failed"
# make bench      native microbenchmarks (not part of check): build/bench/results.txt
# make demo       installs and builds what it needs, boots a VM, monitors a
#                 real workload and promotes its hot range (scripts/demo.sh)
# make sparse     sparse (C=2) over the module
# make style      shellcheck, checkpatch, kernel-doc, clang-format, clang-tidy,
#                 ynl-gen, layering (scripts/style.sh)
# make install    the module (damon_perf.ko alone, + depmod), damonctl, its man page, bash
#                 completion and the damonctl-schemes@.service unit
#                 (SYSTEMDUNITDIR=, default PREFIX/lib/systemd/system);
#                 DESTDIR= stages, PREFIX= (default /usr/local)
# make uninstall  removes exactly what make install put there
# make dkms       adds, builds and installs the module through dkms

KERNELRELEASE ?= $(shell uname -r)
ifneq ($(wildcard /lib/modules/$(KERNELRELEASE)/build/Makefile),)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
else
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
endif
KERNELDIR ?= $(KDIR)
BUILD ?= $(CURDIR)/build
JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
# The directory the module is built in (M=): this tree, or a copy of its
# sources such as scripts/kbuild.sh's build/kbuild-<kernel>.
MDIR ?= $(CURDIR)
KMAKE = $(MAKE) -C $(KERNELDIR) M=$(MDIR) W=1

# make install / uninstall
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
destdir = $(if $(DESTDIR),$(abspath $(DESTDIR)))
# The release the module is built for (its vermagic): Debian's headers say
# 6.1.0-57-amd64 there, while their kernel.release says 6.1.192.
MODRELEASE ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KERNELDIR)/include/generated/utsrelease.h 2>/dev/null)
MODDEST = $(destdir)/lib/modules/$(MODRELEASE)/updates
# What modules_install puts under MODDEST: the module alone (a production
# build has no test module, Kbuild), by its path under M=, maybe compressed.
MODFILES = kmod/damon_perf.ko
TOOLFILES = $(SBINDIR)/damonctl $(MANDIR)/man1/damonctl.1 \
	$(BASHCOMPDIR)/damonctl $(SYSTEMDUNITDIR)/damonctl-schemes@.service

damon_perf_top := $(CURDIR)
include kmod/version.mk
PACKAGE_VERSION ?= $(damon_perf_version)

# make dkms: the DKMS source tree goes to DKMS_SRCTREE/damon-perf-VERSION;
# DKMS_FLAGS adds dkms options to every dkms command (tests/pkg/dkms.sh
# points --dkmstree, --installtree into a temporary directory).
DKMS ?= dkms
DKMS_NAME = damon-perf
DKMS_SRCTREE ?= /usr/src
DKMS_FLAGS ?=
dkms_src = $(abspath $(DKMS_SRCTREE))/$(DKMS_NAME)-$(PACKAGE_VERSION)
dkms_mv = -m $(DKMS_NAME) -v $(PACKAGE_VERSION) $(DKMS_FLAGS) \
	--sourcetree $(abspath $(DKMS_SRCTREE))

.PHONY: all module module-debug tools check bench demo sparse style install \
	install-module install-tools uninstall dkms dkms-remove version clean \
	deps debug-kernel

all: module tools

deps:
	@scripts/deps.sh

module:
	@test -n "$(KERNELDIR)" || { echo "KDIR not found: install linux-headers or set KDIR=" >&2; exit 1; }
	$(KMAKE) modules

debug-kernel:
	@scripts/kernel/build.sh >/dev/null

module-debug:
	$(MAKE) module KDIR=$$(scripts/kernel/build.sh) DAMON_PERF_TEST_EXPORTS=y

tools:
	cmake -S tools -B $(BUILD)/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD)/tools -j$(JOBS)

check:
	@scripts/check.sh

bench:
	@BUILD=$(BUILD) JOBS=$(JOBS) scripts/bench.sh

demo:
	@scripts/demo.sh

sparse:
	$(KMAKE) C=2 CHECK=sparse modules

style:
	@scripts/style.sh

version:
	@echo $(PACKAGE_VERSION)

install: install-module install-tools

# modules_install signs with the kernel's key when the build tree has it
# (a kernel built here); distribution headers do not, and signing would only
# print errors.
modsign_key = $(patsubst "%",%,$(shell sed -n 's/^CONFIG_MODULE_SIG_KEY=//p' \
	$(KERNELDIR)/.config 2>/dev/null))
modsign = $(if $(wildcard $(modsign_key) $(KERNELDIR)/$(modsign_key)),,CONFIG_MODULE_SIG_ALL=)
# modules_install's own depmod is skipped (DEPMOD=true): with DESTDIR it
# would leave modules.* files in the staging tree; without, ours runs.
install-module: module
	@test -z "$(DAMON_PERF_TEST_EXPORTS)" || { echo "DAMON_PERF_TEST_EXPORTS is set: a test build is never installed" >&2; exit 1; }
	@test -n "$(MODRELEASE)" || { echo "no kernel release in $(KERNELDIR)/include/generated/utsrelease.h: set MODRELEASE=" >&2; exit 1; }
	$(MAKE) -C $(KERNELDIR) M=$(MDIR) KERNELRELEASE=$(MODRELEASE) \
		INSTALL_MOD_PATH=$(destdir) INSTALL_MOD_DIR=updates DEPMOD=true \
		$(modsign) modules_install
	$(if $(destdir),,depmod -a $(MODRELEASE))

# damonctl and its man page and completion only (not the tests)
install-tools:
	cmake -S tools -B $(BUILD)/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD)/tools -j$(JOBS) --target damonctl damonctl_docs
	install -D -m 0755 $(BUILD)/tools/damonctl $(destdir)$(SBINDIR)/damonctl
	install -D -m 0644 $(BUILD)/tools/damonctl.1 $(destdir)$(MANDIR)/man1/damonctl.1
	install -D -m 0644 $(BUILD)/tools/damonctl.bash $(destdir)$(BASHCOMPDIR)/damonctl
	sed 's|@SBINDIR@|$(SBINDIR)|g' tools/systemd/damonctl-schemes@.service.in \
		> $(BUILD)/tools/damonctl-schemes@.service
	install -D -m 0644 $(BUILD)/tools/damonctl-schemes@.service \
		$(destdir)$(SYSTEMDUNITDIR)/damonctl-schemes@.service

# With DESTDIR, the directories left empty are removed too (up to DESTDIR);
# without, system directories such as /usr/local/sbin stay.
uninstall:
	@test -n "$(MODRELEASE)" || { echo "no kernel release in $(KERNELDIR)/include/generated/utsrelease.h: set MODRELEASE=" >&2; exit 1; }
	rm -f $(foreach f,$(MODFILES),$(MODDEST)/$(f) $(MODDEST)/$(f).gz $(MODDEST)/$(f).xz $(MODDEST)/$(f).zst)
	rm -f $(addprefix $(destdir),$(TOOLFILES))
	$(if $(destdir),cd $(destdir) && rmdir -p --ignore-fail-on-non-empty \
		$(sort $(patsubst /%,%,$(dir $(TOOLFILES)) \
			$(dir $(addprefix /lib/modules/$(MODRELEASE)/updates/,$(MODFILES))))) \
		2>/dev/null || true)
	$(if $(destdir),,depmod -a $(MODRELEASE))

# A version already added is removed first, so make dkms can be rerun.
dkms:
	@test -n "$(MODRELEASE)" || { echo "no kernel release in $(KERNELDIR)/include/generated/utsrelease.h: set MODRELEASE=" >&2; exit 1; }
	if $(DKMS) status $(dkms_mv) | grep -q .; then \
		$(DKMS) remove $(dkms_mv) --all; fi
	rm -rf $(dkms_src)
	mkdir -p $(dkms_src)
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude='modules.order' --exclude='Module.symvers' \
		--exclude='.*.d' --exclude='*.tmp' kmod include $(dkms_src)/
	echo $(PACKAGE_VERSION) > $(dkms_src)/VERSION
	sed 's/@VERSION@/$(PACKAGE_VERSION)/' dkms.conf > $(dkms_src)/dkms.conf
	$(DKMS) add $(dkms_mv)
	$(DKMS) build $(dkms_mv) -k $(MODRELEASE) --kernelsourcedir $(KERNELDIR)
	$(DKMS) install $(dkms_mv) -k $(MODRELEASE) --kernelsourcedir $(KERNELDIR)

dkms-remove:
	$(DKMS) remove $(dkms_mv) --all
	rm -rf $(dkms_src)

clean:
	$(MAKE) -C $(KERNELDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)
