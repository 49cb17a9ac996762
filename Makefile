# SPDX-License-Identifier: GPL-2.0
#
# make            module (against KDIR) + tools
# make module     kmod/damon_perf.ko against KDIR
# make module-debug  module + KUnit modules against the debug test kernel
# make tools      damonctl and the GoogleTest binary (CMake, build/tools)
# make check      every test tier; ends with "N passed, N failed"
# make bench      native microbenchmarks (not part of check): build/bench/results.txt
# make demo       boots a VM and monitors a real workload
# make sparse     sparse (C=2) over the module
# make style      shellcheck, checkpatch, kernel-doc, clang-format, clang-tidy
# make install    install the module (+ depmod) and damonctl

KERNELRELEASE ?= $(shell uname -r)
ifneq ($(wildcard /lib/modules/$(KERNELRELEASE)/build/Makefile),)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
else
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
endif
KERNELDIR ?= $(KDIR)
BUILD ?= $(CURDIR)/build
JOBS ?= $(shell echo $$(( $$(nproc) + 1 )))
KMAKE = $(MAKE) -C $(KERNELDIR) M=$(CURDIR) W=1

.PHONY: all module module-debug tools check bench demo sparse style install clean deps debug-kernel

all: module tools

deps:
	@scripts/deps.sh

module:
	@test -n "$(KERNELDIR)" || { echo "KDIR not found: install linux-headers or set KDIR=" >&2; exit 1; }
	$(KMAKE) modules

debug-kernel:
	@scripts/kernel/build.sh >/dev/null

module-debug:
	$(MAKE) module KDIR=$$(scripts/kernel/build.sh)

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

install: module tools
	$(MAKE) -C $(KERNELDIR) M=$(CURDIR) modules_install
	depmod -a $(KERNELRELEASE)
	install -m 0755 $(BUILD)/tools/damonctl /usr/local/sbin/damonctl

clean:
	$(MAKE) -C $(KERNELDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)
