# SPDX-License-Identifier: GPL-2.0
# CMake toolchain file: damonctl for arm64, cross-built with
# gcc-aarch64-linux-gnu against the arm64 libraries of the sysroot that
# scripts/kernel/arm64.sh unpacks (nothing installed on the host).
#
#   cmake -S tools -B build/tools-arm64 \
#         -DCMAKE_TOOLCHAIN_FILE=scripts/arm64-toolchain.cmake \
#         -DDAMON_PERF_SYSROOT=$(scripts/kernel/arm64.sh | tail -n 1)/sysroot
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
if(NOT DAMON_PERF_SYSROOT)
	set(DAMON_PERF_SYSROOT $ENV{DAMON_PERF_SYSROOT})
endif()
if(NOT DAMON_PERF_SYSROOT)
	message(FATAL_ERROR "set DAMON_PERF_SYSROOT (scripts/kernel/arm64.sh prints its directory)")
endif()
# try_compile projects see the variable too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES DAMON_PERF_SYSROOT)
set(CMAKE_SYSROOT ${DAMON_PERF_SYSROOT})
set(CMAKE_FIND_ROOT_PATH ${DAMON_PERF_SYSROOT})
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (libnl) reads the sysroot's .pc files only.
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${DAMON_PERF_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
	"${DAMON_PERF_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${DAMON_PERF_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
