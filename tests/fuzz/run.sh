#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build and run the SPE parser fuzzer for a bounded time; prints TAP.
#   tests/fuzz/run.sh                  20 s (make check)
#   FUZZ_TIME=3600 tests/fuzz/run.sh   a longer run
#   FUZZ_RUNS=10000000 tests/fuzz/run.sh   a run of 10^7 inputs, however long
# New inputs go to a scratch corpus under $BUILD, never into the seeds.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}/fuzz
time=${FUZZ_TIME:-20}
runs=${FUZZ_RUNS:-}
cc=${CLANG:-clang}

mkdir -p "$build/corpus"
echo "1..1"
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "ok 1 - spe_fuzz # SKIP $cc not installed"
	exit 0
fi
"$cc" -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$root/kmod" \
	"$root/tests/fuzz/spe_fuzz.c" "$root/kmod/spe_parse.c" \
	-o "$build/spe_fuzz"
cp "$root"/tests/fuzz/corpus/spe/* "$build/corpus/"
if [ -n "$runs" ]; then
	limit="-runs=$runs"
else
	limit="-max_total_time=$time"
fi
start=$(date +%s)
if "$build/spe_fuzz" "$limit" -max_len=4096 \
	-print_final_stats=1 "$build/corpus" >"$build/spe_fuzz.log" 2>&1; then
	done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$build/spe_fuzz.log")
	echo "ok 1 - spe_fuzz: ${done_runs:-?} inputs in $(($(date +%s) - start))s, no crash"
else
	tail -n 40 "$build/spe_fuzz.log" | sed 's/^/# /'
	echo "not ok 1 - spe_fuzz: crash, see $build/spe_fuzz.log"
	exit 1
fi
