#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test tier, in order, each timed:
#
#   deps      scripts/deps.sh (installs what is missing)
#   harness   tests/harness/selftest.sh (the verdicts below are right)
#   style     scripts/style.sh (make style): shellcheck, checkpatch --strict,
#             kernel-doc, clang-format, clang-tidy; one test each
#   userland  CMake configure + build of tools/, ctest
#   kernel    the debug test kernel (built once, then cached), and the stock
#             kernels of Debian 13 (trixie, 6.12) and unstable (sid, 7.2)
#             with module trees matching them (fetched once, then cached)
#   modules   the module for every kernel, W=1, in its two builds
#             (scripts/kbuild.sh): the test build (+ KUnit/test modules)
#             and the production build (the module users load);
#             tests/pkg: modinfo of each, the production build free of
#             test code against the debug kernel (KUnit) beside the test
#             build (prodbuild.sh), make install into a staging directory
#             (stock and debug kernels) and make dkms into a private tree
#             (stock kernel)
#   kunit     tests/vm/kunit.sh on the debug kernel: every KTAP leaf case
#             (with the vm tier: one more boot in its lanes, counted and
#             timed as this tier after them)
#   vm        every other tests/vm/*.sh on the debug and stock kernels: its TAP
#             lines plus one "clean kernel log" test per script. Scripts
#             with the same kernel and NUMA setting share one boot (a batch;
#             CHECK_BATCH=0: one boot each), and a batch adds one test for
#             the log outside the scripts (boot, kmemleak scan). Batches
#             run side by side in lanes that take them from one queue,
#             longest first, a batch longer than a lane's share split in
#             parts (estimates from earlier runs' script times, kept in
#             the cache); a VM that ends before its batch's last script
#             (crash, stuck script) is followed by a new boot for the
#             scripts it never reached. The scripts whose header names
#             the prod flavour run once more per kernel against the
#             production build, one more batch a kernel (KERNEL-prod,
#             with two NUMA nodes when one of them asks for it)
#   arm64     (before vm) Debian 12's arm64 kernel (6.1), a matching tree
#             (scripts/kernel/arm64.sh, fetched once, then cached), the
#             module cross-built for it (W=1, modpost against the image's
#             Module.symvers), and the VM scripts whose "# arches:" header
#             names arm64 in qemu-system-aarch64 (one batch per NUMA setting,
#             in the vm tier's lanes when both run)
#
#   skips     every skip (TAP "# SKIP"/"# TODO", KUnit, ctest) on
#             tests/skips.allow (KERNEL "TEST" REASON lines); each
#             unlisted one counts as failed
#
# Ends with a line saying what the results are, then exactly one line
# "N passed, N failed" summing every tier:
#   N results: A assertions in R VM script runs, K KUnit cases, G GoogleTest cases, O other checks; S skipped, each on tests/skips.allow
#   N passed, N failed
# and exits non-zero when anything failed. A step that cannot run because
# an earlier one failed (no module for a kernel, ...) counts as failed.
#
#   scripts/check.sh [TIER...]      only these tiers (default: all)
#   CHECK_VM="basic ctl_nl" ...     only these VM scripts
#   CHECK_KERNELS="stock sid" ...   only these kernels (debug stock trixie sid
#                                   arm64; arm64 is the arm64 tier's)
#   TALLY_VERBOSE=1                 print every test line, not only failures
#   CHECK_BATCH=0                   one VM boot per script
#   CHECK_VM_JOBS=N                 batches in N lanes side by side (3)
#   CHECK_PREFETCH=0                no background fetch and build of the
#                                   kernels beside the first tiers
#
# A VM script can restrict or configure its runs with header comments:
#   # kernels: debug           (default: debug stock; "stock" means
#                              every stock kernel: stock trixie sid;
#                              "bookworm" Debian 12's 6.1 alone)
#   # numa: yes                (boot with two NUMA nodes)
#   # numa: tier               (two nodes as two memory tiers: vm.sh --tier)
#   # cpus: 3                  (boot with three vCPUs; not with numa)
#   # timeout: 300             (seconds, per run)
#   # arches: x86_64 arm64     (default: x86_64; arm64: also in the arm64
#                              tier, on Debian 12's arm64 kernel)
#   # needs: python3           (python3 and the kernel's YNL CLI in the
#                              image of its batch: scripts/vm.sh)
#   # needs: test-build        (it loads a test module or calls a test
#                              export: never run against the production
#                              build; a script loading a test module
#                              without it fails the vm tier)
#   # flavours: test prod      (default: test; prod: also in the kernel's
#                              production-build batch, scripts/vm.sh --prod)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# the damo interop test (ctest damo_interop) runs the real damo: damo from
# PATH, else $DAMO; else the copy beside the clone, or beside the local
# repository it was cloned from (a clone made elsewhere, e.g. in /tmp)
if [ -z "${DAMO:-}" ]; then
	for d in "$top" "$(git -C "$top" remote get-url origin 2> /dev/null)"; do
		if [ -n "$d" ] && [ -x "$d/../shared/tools/damo/damo" ]; then
			DAMO=$(cd "$d/../shared/tools/damo" && pwd)/damo
			export DAMO
			break
		fi
	done
fi
cd "$top" || exit 1
logs=$top/build/logs/check
mkdir -p "$logs"
: > "$logs/results.txt"
TALLY_RESULTS=$logs/results.txt
. "$top/scripts/lib/tally.sh"

tiers=${*:-deps harness style userland kernel modules kunit arm64 vm}
want() { case " $tiers " in *" $1 "*) return 0 ;; esac; return 1; }
check_kernels=${CHECK_KERNELS:-debug stock trixie sid arm64}
want_kernel() { case " $check_kernels " in *" $1 "*) return 0 ;; esac; return 1; }
check_start=$(date +%s)
timings=()
stage_name=
stage_start=0
stage_p=0
stage_f=0
stage_s=0
stage() {
	stage_end
	stage_name=$1
	stage_start=$(date +%s)
	stage_p=$TALLY_PASSED
	stage_f=$TALLY_FAILED
	stage_s=$TALLY_SKIPPED
	echo
	echo "=== $1: $2"
}
# stage_note: said after a tier's time (stage_end clears it); a tier run
# inside another sets stage_secs to its own seconds
stage_note=
stage_secs=
stage_end() {
	[ -n "$stage_name" ] || return 0
	local t=${stage_secs:-$(( $(date +%s) - stage_start ))}
	local line
	line=$(printf '%-9s %4d s  %3d passed, %d failed, %d skipped%s' "$stage_name" "$t" \
		$((TALLY_PASSED - stage_p)) $((TALLY_FAILED - stage_f)) \
		$((TALLY_SKIPPED - stage_s)) "$stage_note")
	stage_note=
	stage_secs=
	echo "--- $line"
	timings+=("$line")
	stage_name=
}
# run LOG CMD...: run a step with its output in LOG; show the tail on failure.
run() {
	local log=$1
	shift
	if "$@" > "$log" 2>&1; then
		return 0
	fi
	echo "  FAILED: $* (log $log), last lines:"
	tail -n 15 "$log" | sed 's/^/  | /'
	return 1
}

# --- deps ---------------------------------------------------------------
if want deps; then
	stage deps "Debian packages"
	if run "$logs/deps.log" scripts/deps.sh; then
		tail -n 1 "$logs/deps.log" | sed 's/^/  /'
		tally_test ok "deps: packages installed"
	else
		tally_test fail "deps: packages installed"
	fi
fi

# --- prefetch (background) ----------------------------------------------
# On a fresh machine the kernels are fetched and built once, then cached.
# Those steps wait on the network or can fill what the style and userland
# tiers leave of the two cores, so they start here, in the background:
# the fetches of the newer stock kernels and of the arm64 kernel with its
# sysroot, then damonctl's arm64 cross build, and, at low priority (nice),
# the debug kernel's build. The tiers that need them call the same
# scripts, which hold a lock while they work: they wait for the
# background job or find its result cached. With everything cached this
# returns at once. CHECK_PREFETCH=0: no background job.
prefetch_pids=()
prefetch_arm64_pid=
# prefetch_job NAME CMD...: CMD in the background, its stderr in
# prefetch-NAME.log, the seconds it took into prefetch-NAME.secs.
prefetch_job() {
	local name=$1
	shift
	(
		"$@" > /dev/null 2> "$logs/prefetch-$name.log"
		echo "$? $(( $(date +%s) - prefetch_t0 ))" > "$logs/prefetch-$name.secs"
	) &
	prefetch_pids+=($!)
}
prefetch_stock() {
	local k
	for k in "$@"; do scripts/kernel/stock.sh "$k" || return 1; done
}
prefetch_arm64() {
	local d
	d=$(scripts/kernel/arm64.sh | tail -n 1) && [ -f "$d/.damon-perf-built" ] &&
		nice -n 10 bash -c '. scripts/lib/kernels.sh && arm64_damonctl "$1"' _ "$d/sysroot"
}
rm -f "$logs"/prefetch-*
if [ "${CHECK_PREFETCH:-1}" = 1 ] &&
	{ want kernel || want modules || want kunit || want vm || want arm64; }; then
	prefetch_t0=$(date +%s)
	want_kernel debug && prefetch_job debug nice -n 10 scripts/kernel/build.sh
	suites=()
	for k in trixie sid; do want_kernel $k && suites+=("$k"); done
	[ ${#suites[@]} -eq 0 ] || prefetch_job stock prefetch_stock "${suites[@]}"
	if want arm64 && want_kernel arm64; then
		prefetch_job arm64 prefetch_arm64
		prefetch_arm64_pid=$!
	fi
fi

# --- harness self-test --------------------------------------------------
if want harness; then
	stage harness "self-test of the log verdicts (tests/harness)"
	tests/harness/selftest.sh > "$logs/harness.log" 2>&1
	tally_logcheck tap "$logs/harness.log" && echo "  $TALLY_LAST"
fi

# --- style --------------------------------------------------------------
if want style; then
	stage style "scripts/style.sh (make style)"
	scripts/style.sh > "$logs/style.log" 2>&1
	if tally_logcheck tap "$logs/style.log"; then
		echo "  $TALLY_LAST"
	else
		grep '^# ' "$logs/style.log" | head -n 20 | sed 's/^/  /'
		echo "  (every finding in ${logs#$top/}/style.log; make style)"
	fi
fi

# --- userland -----------------------------------------------------------
if want userland; then
	stage userland "tools/ with CMake, GoogleTest via ctest"
	bt=$top/build/tools
	# ccache (scripts/deps.sh installs it) keeps what a build compiled in
	# ~/.cache/damon-perf/ccache, keyed by content, with the tree's own
	# location taken out of the key (CCACHE_BASEDIR, CCACHE_NOHASHDIR), so
	# a clean clone compiles only what changed.
	. scripts/lib/kernels.sh
	ccache_env
	launch=("${ccache_cmake[@]}")
	if [ ! -f tools/CMakeLists.txt ]; then
		tally_test fail "userland: tools/CMakeLists.txt missing"
	elif ! run "$logs/cmake-configure.log" cmake -S tools -B "$bt" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo "${launch[@]}"; then
		tally_test fail "userland: cmake configure"
	else
		tally_test ok "userland: cmake configure"
		[ ${#launch[@]} -eq 0 ] || ccache -z > /dev/null 2>&1
		if run "$logs/cmake-build.log" cmake --build "$bt" -j2; then
			tally_test ok "userland: build"
			[ ${#launch[@]} -eq 0 ] ||
				echo "  ccache: $(ccache -s 2>/dev/null | grep -m1 -E '^ *Hits:' | sed 's/^ *//')"
			[ -x "$bt/damonctl" ] && tally_test ok "userland: damonctl built" ||
				tally_test fail "userland: damonctl built"
			# every test by its JUnit status: ctest's own summary
			# counts a skipped test (SKIP_RETURN_CODE, GTEST_SKIP)
			# as passed
			rm -f "$logs/ctest.xml"
			ctest --test-dir "$bt" --output-on-failure -j2 \
				--output-junit "$logs/ctest.xml" > "$logs/ctest.log" 2>&1
			tally_logcheck ctest "$logs/ctest.xml" --name "userland: ctest "
			echo "  ctest: $TALLY_LAST (log ${logs#"$top"/}/ctest.log)"
		else
			tally_test fail "userland: build"
		fi
	fi
	# The SPE parser under libFuzzer for a bounded time (tests/fuzz/run.sh
	# documents longer runs).
	# (its TAP: "# SKIP clang not installed" is a skip, not a pass)
	run "$logs/spe-fuzz.log" tests/fuzz/run.sh
	tally_logcheck tap "$logs/spe-fuzz.log" --name userland &&
		echo "  fuzz: $(sed -n 's/^ok 1 - //p' "$logs/spe-fuzz.log")"
fi

# --- debug kernel -------------------------------------------------------
debug_tree=
if want_kernel debug && { want kernel || want modules || want kunit || want vm; }; then
	stage kernel "debug test kernel (scripts/kernel/build.sh)"
	if debug_tree=$(scripts/kernel/build.sh 2> >(tee "$logs/kernel.log" >&2) | tail -n 1) &&
		[ -f "$debug_tree/.damon-perf-built" ]; then
		if grep -q 'cached debug kernel' "$logs/kernel.log"; then
			echo "  cached: $debug_tree"
		else
			echo "  built: $debug_tree"
		fi
		tally_test ok "kernel: debug test kernel"
		export KDIR_DEBUG=$debug_tree
	else
		debug_tree=
		tally_test fail "kernel: debug test kernel (log $logs/kernel.log)"
	fi
fi

# --- stock kernels of the newer suites ---------------------------------
for k in trixie sid; do
	want_kernel $k && { want kernel || want modules || want vm; } || continue
	[ "$stage_name" = kernel ] || stage kernel "stock kernels (scripts/kernel/stock.sh)"
	if d=$(scripts/kernel/stock.sh $k 2>"$logs/stock-$k.log" | tail -n 1) &&
		[ -f "$d/.damon-perf-built" ]; then
		tally_test ok "kernel: $k stock kernel $(basename "$(ls "$d"/image/boot/vmlinuz-*)" | sed 's/^vmlinuz-//')"
		sed 's/^/  /' "$logs/stock-$k.log" | tail -n 1
	else
		tail -n 15 "$logs/stock-$k.log" | sed 's/^/  | /'
		tally_test fail "kernel: $k stock kernel (log $logs/stock-$k.log)"
	fi
done

# --- module builds ------------------------------------------------------
# module_build KERNEL TIER [prod]: scripts/kbuild.sh KERNEL (the test
# build, or with prod the production build), two tests: it builds
# (ko[KERNEL], ko[KERNEL-prod] for prod, is then its directory), and
# without a W=1 warning.
module_build() {
	local k=$1 tier=$2 flavour=${3:-test} d w what=$1 key=$1 opt=()
	[ "$tier" = arm64 ] && what=module
	if [ "$flavour" = prod ]; then
		key=$k-prod
		what="$what production"
		opt=(--prod)
	fi
	if d=$(scripts/kbuild.sh "${opt[@]}" "$k" 2>"$logs/kbuild-$key.err" | tail -n 1) && [ -f "$d/damon_perf.ko" ]; then
		ko[$key]=$d
		tally_test ok "$tier: $what build ($(cd "$d" && echo *.ko))"
		w=$(grep -c 'warning:' "$top/build/logs/kbuild-$key.log")
		if [ "$w" -eq 0 ]; then
			tally_test ok "$tier: $what build has no W=1 warnings"
		else
			grep 'warning:' "$top/build/logs/kbuild-$key.log" | head -n 10 | sed 's/^/  | /'
			tally_test fail "$tier: $what build has no W=1 warnings ($w warnings)"
		fi
	else
		sed 's/^/  | /' "$logs/kbuild-$key.err" | tail -n 20
		tally_test fail "$tier: $what build (log build/logs/kbuild-$key.log)"
	fi
}
declare -A ko=()
if want modules || want kunit || want vm; then
	stage modules "damon_perf.ko (+ test modules) for each kernel, test and production builds, W=1"
	for k in $check_kernels; do
		[ $k = arm64 ] && continue
		if [ $k = debug ] && [ -z "$debug_tree" ]; then
			tally_test fail "modules: $k build (no debug kernel)"
			tally_test fail "modules: $k production build (no debug kernel)"
			continue
		fi
		module_build "$k" modules
		module_build "$k" modules prod
	done
	# Packaging (tests/pkg): modinfo of every module built; the production
	# build against the debug kernel (KUnit) carries no test code, where
	# the test build does; make install into a staging directory (the
	# production builds of the stock kernel and of the debug one, whose
	# KUnit once brought the test modules along) and make dkms into a
	# private dkms tree, against the stock kernel's headers.
	if [ ${#ko[@]} -gt 0 ]; then
		tests/pkg/modinfo.sh "${ko[@]}" > "$logs/pkg-modinfo.log" 2>&1
		tally_logcheck tap "$logs/pkg-modinfo.log" && echo "  modinfo: $TALLY_LAST"
	fi
	if [ -n "${ko[debug]:-}" ] && [ -n "${ko[debug-prod]:-}" ]; then
		# (both builds are cached by now: kbuild.sh finds them built)
		tests/pkg/prodbuild.sh debug > "$logs/pkg-prodbuild.log" 2>&1
		tally_logcheck tap "$logs/pkg-prodbuild.log" && echo "  production build: $TALLY_LAST"
	fi
	for k in stock debug; do
		[ -n "${ko[$k-prod]:-}" ] || continue
		kdir=$(. scripts/lib/kernels.sh && kernel_kdir $k)
		tests/pkg/install.sh "$kdir" "$(dirname "${ko[$k-prod]}")" \
			> "$logs/pkg-install-$k.log" 2>&1
		tally_logcheck tap "$logs/pkg-install-$k.log" && echo "  make install ($k): $TALLY_LAST"
	done
	if [ -n "${ko[stock]:-}" ]; then
		stock_kdir=$(. scripts/lib/kernels.sh && kernel_kdir stock)
		tests/pkg/dkms.sh "$stock_kdir" > "$logs/pkg-dkms.log" 2>&1
		tally_logcheck tap "$logs/pkg-dkms.log" && echo "  make dkms: $TALLY_LAST"
	fi
fi

# A batch's boot shape, NUMA in what follows: 0 two vCPUs, 1 two NUMA
# nodes (a script's "# numa: yes"), 2 three vCPUs ("# cpus: 3"), 3 two
# memory tiers ("# numa: tier").
# shape NUMA: the suffix of its batches' log names.
shape() {
	case $1 in 1) echo -numa ;; 2) echo -cpus3 ;; 3) echo -tier ;; esac
}
# shape_where NUMA: the shape in words, for the batch lines.
shape_where() {
	case $1 in 1) echo ', 2 NUMA nodes' ;; 2) echo ', 3 vCPUs' ;; 3) echo ', 2 memory tiers' ;; esac
}
# shape_of SCRIPT: the boot shape its header asks for.
shape_of() {
	if grep -qiE '^# *numa: *yes' "$1"; then
		echo 1
	elif grep -qiE '^# *numa: *tier' "$1"; then
		echo 3
	elif grep -qE '^# *cpus: *3' "$1"; then
		echo 2
	else
		echo 0
	fi
}

# vm_run SCRIPT KERNEL[-prod] [--ktap]: one VM run, counted.
vm_run() {
	local script=$1 k=$2 ktap=${3:-} name numa='' log t0 prod=''
	[ "$k" = "${k%-prod}" ] || prod=--prod
	name=$(basename "$script" .sh)
	case $(shape_of "$script") in
	1) numa=--numa ;;
	2) numa='--cpus 3' ;;
	3) numa=--tier ;;
	esac
	log=$logs/$name-$k.log
	if [ -z "${ko[$k]:-}" ]; then
		tally_test fail "$name-$k: not run, no modules for the $k kernel"
		return
	fi
	t0=$(date +%s)
	# (the VM's time limit: vm.sh's default, the boot plus the script's own)
	scripts/vm.sh --quiet --kernel "${k%-prod}" $prod --ko "${ko[$k]}" $numa \
		--log "$log" "$script" 2>"$logs/$name-$k.vm.err"
	tally_logcheck vm "$log" $ktap --name "$name-$k"
	echo "  $name on $k: $TALLY_LAST ($(( $(date +%s) - t0 )) s, log ${log#$top/})"
}

# --- KUnit --------------------------------------------------------------
# With the vm tier's batches, the KUnit VM is one more boot in its lanes
# (it keeps about one vCPU busy, and a lane beside it uses the other
# core); its verdicts are counted after the lanes, as the kunit tier.
kunit_in_lanes=0
if want kunit && want_kernel debug; then
	if want vm && [ "${CHECK_BATCH:-1}" != 0 ] && [ -n "${ko[debug]:-}" ]; then
		kunit_in_lanes=1
	else
		stage kunit "KUnit suites in the debug VM (KTAP leaf cases)"
		vm_run tests/vm/kunit.sh debug --ktap
	fi
fi

# The name a kernel goes by in the batch lines (arm64: arm64-SERIES).
declare -A klabel=()

# arches SCRIPT: the architectures its "# arches:" header names (x86_64).
arches() {
	local a
	a=$(sed -nE 's/^# *arches: *(.*)/\1/p' "$1" | head -n 1)
	echo "${a:-x86_64}"
}

# vm_batch_base KERNEL NUMA SLOT NSLOTS: the log name of a batch (of one
# of its NSLOTS parts), without .log: batch-KERNEL[-numa|-cpus3][-sSLOT].
vm_batch_base() {
	echo "$logs/batch-$1$(shape "$2")$([ "$4" -gt 1 ] && echo "-s$3")"
}

# A batch's kernel is a kernel, or KERNEL-prod for the kernel's batch
# against the production build (scripts/vm.sh --prod, ko[KERNEL-prod]).
# kbase KERNEL[-prod]: the kernel itself.
kbase() { echo "${1%-prod}"; }

# vm_batch_run BASE KERNEL NUMA(0|1) PART SCRIPT...: the scripts one after
# the other in one boot (a debug boot plus its kmemleak scan cost about a
# minute). When the VM ends before the last one (a crash, /init's watchdog
# powered off on a script stuck in the kernel, or /init abandoned the
# batch after a script killed at its limit or modules that would not
# unload), those not reached run in a new boot, PART + 1 (log
# BASE-PART.log). Each boot adds a line "LOG SECONDS UNRUN SCRIPT..." to
# the batch's list of boots (BASE.boots), which vm_batch_count reads.
# Prints nothing, so batches can run side by side.
vm_batch_run() {
	local base=$1 k=$2 numa=$3 part=$4 t0 s log numa_opt=() rest=() unrun=0
	shift 4
	[ "$numa" = 1 ] && numa_opt=(--numa)
	[ "$numa" = 2 ] && numa_opt=(--cpus 3)
	[ "$numa" = 3 ] && numa_opt=(--tier)
	[ "$k" = "$(kbase "$k")" ] || numa_opt+=(--prod)
	[ "$part" -gt 1 ] || : > "$base.boots"
	if [ -z "${ko[$k]:-}" ]; then
		echo "- 0 0 $*" >> "$base.boots"
		return 0
	fi
	# (the VM's time limit: vm.sh's default, the boot plus the scripts' own)
	log=$base$([ "$part" -gt 1 ] && echo "-$part").log
	t0=$(date +%s)
	scripts/vm.sh --quiet --kernel "$(kbase "$k")" --ko "${ko[$k]}" "${numa_opt[@]}" \
		--log "$log" "$@" 2>"${log%.log}.vm.err"
	# scripts never begun: the VM died, or /init abandoned the batch
	for s in "$@"; do
		grep -aqx "DAMON_PERF_BEGIN test=$(basename "$s")" "$log" || rest+=("$s")
	done
	# a new boot only when this one ran at least one script
	[ ${#rest[@]} -gt 0 ] && [ ${#rest[@]} -lt $# ] && unrun=1
	echo "$log $(( $(date +%s) - t0 )) $unrun $*" >> "$base.boots"
	[ $unrun = 0 ] || vm_batch_run "$base" "$k" "$numa" $((part + 1)) "${rest[@]}"
}

# vm_batch_count KERNEL NUMA(0|1) NSLOTS: the verdicts of the batch's
# boots (of each of its parts), each script counted on its own part of
# the console log.
vm_batch_count() {
	local k=$1 numa=$2 n=$3 slot s log secs unrun list where base
	where="${klabel[$k]:-$k}$(shape_where "$numa")"
	for ((slot = 1; slot <= n; slot++)); do
		base=$(vm_batch_base "$k" "$numa" "$slot" "$n")
		if [ -z "${ko[$k]:-}" ]; then
			while read -r log secs unrun list; do
				for s in $list; do
					tally_test fail "$(basename "$s" .sh)-$k: not run, no modules for the $k kernel"
				done
			done < "$base.boots"
			continue
		fi
		while read -r log secs unrun list; do
			if [ "$unrun" = 1 ]; then
				tally_logcheck vm "$log" --kernel "$k" --unrun-ok
			else
				tally_logcheck vm "$log" --kernel "$k"
			fi
			sed -nE 's/^DAMON_PERF_END test=([^ ]+) rc=([0-9]+) took=(.*)/  \1 on '"$k"': exit \2, \3/p' "$log"
			grep -a '^vm: HUNG\|^DAMON_PERF_HUNG' "$log" | sed 's/^/  /'
			# shellcheck disable=SC2086 # a list of script paths
			echo "  batch of $(echo $list | wc -w) on $where$([ "$n" -gt 1 ] && echo " (part $slot of $n)"): $TALLY_LAST ($secs s, log ${log#"$top"/})"
			[ "$unrun" = 0 ] ||
				echo "  the VM ended before the batch's last script: the rest run in a new boot"
		done < "$base.boots"
	done
}

# The scripts' times of earlier runs, to plan the lanes: "KERNEL NUMA
# SCRIPT SECONDS" lines in the cache (vm_times_save keeps the latest),
# over those of scripts/lib/vm-times (a clean-clone run's, in the tree, so
# that a first run on a new machine plans as a later one does: with the
# defaults below, the last batch of a fresh run ended 90 s after the
# others).
vm_times_file=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}/vm-times
declare -A vm_times=()
vm_times_load() {
	local k numa s t f
	for f in "$top/scripts/lib/vm-times" "$vm_times_file"; do
		[ -f "$f" ] || continue
		while read -r k numa s t; do
			[[ "$t" =~ ^[0-9]+$ ]] && vm_times[$k:$numa:$s]=$t
		done < "$f"
	done
}
vm_times_save() {
	local f k numa s t tmp
	for f in "$logs"/batch-*.log; do
		[ -f "$f" ] || continue
		k=${f##*/batch-}
		k=${k%.log}
		case "$k" in
		*-prod*) k=${k%%-*}-prod ;;
		*) k=${k%%-*} ;;
		esac
		numa=0
		case "$f" in *-numa*) numa=1 ;; *-cpus3*) numa=2 ;; *-tier*) numa=3 ;; esac
		while read -r s t; do
			vm_times[$k:$numa:$s]=${t%s}
		done < <(sed -nE 's/^DAMON_PERF_END test=([^ ]+) rc=[0-9]+ took=([0-9]+)s.*/\1 \2/p' "$f")
	done
	t=$(sed -nE 's/^DAMON_PERF_END test=kunit.sh rc=[0-9]+ took=([0-9]+)s.*/\1/p' \
		"$logs/kunit-debug.log" 2> /dev/null | tail -n 1)
	[ -z "$t" ] || vm_times[kunit:0:kunit.sh]=$t
	mkdir -p "${vm_times_file%/*}" || return 0
	tmp=$(mktemp "$vm_times_file.XXXXXX") || return 0
	for f in "${!vm_times[@]}"; do
		IFS=: read -r k numa s <<< "$f"
		echo "$k $numa $s ${vm_times[$f]}"
	done | sort > "$tmp" && mv "$tmp" "$vm_times_file"
}
# vm_cost KERNEL NUMA SCRIPT...: the scripts' estimated seconds (a
# production batch's script without a time of its own: the test build's
# on that kernel, with either NUMA setting).
vm_cost() {
	local k=$1 numa=$2 s c=0 d=10 b
	b=$(kbase "$k")
	shift 2
	case $b in debug) d=30 ;; arm64) d=20 ;; esac
	for s in "$@"; do
		s=$(basename "$s")
		c=$((c + ${vm_times[$k:$numa:$s]:-${vm_times[$b:$numa:$s]:-${vm_times[$b:$((1 - numa)):$s]:-$d}}}))
	done
	echo $c
}
# vm_boot_cost KERNEL: a boot's and its end's estimated seconds (debug:
# KASAN and lockdep under TCG, and the kmemleak scan).
vm_boot_cost() {
	case $(kbase "$1") in debug) echo 60 ;; arm64) echo 30 ;; *) echo 15 ;; esac
}
# vm_split KEY SHARE SCRIPT...: the queue lines "COST KEY SLOT NSLOTS
# SCRIPT..." of batch KEY (KERNEL:NUMA): one part, or as many as its
# estimated cost holds lanes' shares (SHARE seconds), the scripts dealt
# longest first to the lightest part and kept in their order within it.
vm_split() {
	local key=$1 share=$2 k=${1%:*} numa=${1#*:} n c i best s boot
	shift 2
	boot=$(vm_boot_cost "$k")
	c=$(( $(vm_cost "$k" "$numa" "$@") + boot ))
	n=$(( (c + share - 1) / share ))
	[ "$n" -ge 1 ] || n=1
	[ "$n" -le $# ] || n=$#
	parts[$key]=$n
	local -a load=() list=() order=()
	for ((i = 1; i <= n; i++)); do load[i]=$boot; list[i]=''; done
	mapfile -t order < <(for s in "$@"; do echo "$(vm_cost "$k" "$numa" "$s") $s"; done |
		sort -k1,1nr | cut -d' ' -f2)
	for s in "${order[@]}"; do
		best=1
		for ((i = 2; i <= n; i++)); do
			[ "${load[i]}" -lt "${load[best]}" ] && best=$i
		done
		list[best]+=" $s"
		load[best]=$((load[best] + $(vm_cost "$k" "$numa" "$s")))
	done
	for ((i = 1; i <= n; i++)); do
		# the part's scripts in the batch's order
		echo "${load[i]} $key $i $n$(for s in "$@"; do
			case "${list[i]} " in *" $s "*) printf ' %s' "$s" ;; esac
		done)"
	done
}
# vm_lane QUEUE: run the queue's parts, one at a time, until it is empty.
vm_lane() {
	local line key slot n k numa scripts
	while :; do
		line=$({
			flock 8
			head -n 1 "$1"
			sed -i 1d "$1"
		} 8> "$1.lock")
		[ -n "$line" ] || return 0
		read -r _ key slot n scripts <<< "$line"
		k=${key%:*}
		numa=${key#*:}
		if [ "$k" = kunit ]; then
			kunit_t0=$(date +%s)
			scripts/vm.sh --quiet --kernel debug --ko "${ko[debug]}" \
				--log "$logs/kunit-debug.log" tests/vm/kunit.sh \
				2> "$logs/kunit-debug.vm.err"
			echo $(( $(date +%s) - kunit_t0 )) > "$logs/kunit-debug.secs"
			continue
		fi
		# shellcheck disable=SC2086 # a list of script paths
		vm_batch_run "$(vm_batch_base "$k" "$numa" "$slot" "$n")" "$k" "$numa" 1 $scripts
	done
}

# --- arm64 --------------------------------------------------------------
# Its kernel and module here; its batches run with the vm tier's, in its
# lanes (or alone, when the vm tier is not asked for).
if want arm64 && want_kernel arm64; then
	stage arm64 "Debian 12's arm64 kernel and the module cross-built for it"
	# (the background fetch and cross build use the same build directory)
	[ -z "$prefetch_arm64_pid" ] || wait "$prefetch_arm64_pid"
	if d=$(scripts/kernel/arm64.sh 2>"$logs/arm64-kernel.log" | tail -n 1) &&
		[ -f "$d/.damon-perf-built" ]; then
		export DAMON_PERF_ARM64_DIR=$d
		rel=$(cat "$d/release")
		klabel[arm64]=arm64-$(echo "$rel" | grep -oE '^[0-9]+\.[0-9]+')
		tally_test ok "arm64: kernel $rel"
		tail -n 1 "$logs/arm64-kernel.log" | sed 's/^/  /'
		module_build arm64 arm64
		module_build arm64 arm64 prod
		# damonctl for arm64 before the batches start (vm.sh would
		# build it there, while the other lane's VM runs)
		if (. scripts/lib/kernels.sh && arm64_damonctl "$d/sysroot") 2> "$logs/arm64-damonctl.err"; then
			tally_test ok "arm64: damonctl cross-built"
		else
			sed 's/^/  | /' "$logs/arm64-damonctl.err" | tail -n 20
			tally_test fail "arm64: damonctl cross-built (log build/logs/damonctl-arm64.log)"
			unset 'ko[arm64]' 'ko[arm64-prod]'
		fi
	else
		tail -n 15 "$logs/arm64-kernel.log" | sed 's/^/  | /'
		tally_test fail "arm64: kernel (log $logs/arm64-kernel.log)"
	fi
fi

# --- end-to-end VM scripts ----------------------------------------------
if want vm || { want arm64 && want_kernel arm64; }; then
	stage vm "tests/vm/*.sh on each kernel (+ clean kernel log per script)"
	declare -A batch=() pbatch=() pnuma=()
	# What a script says of its build: a script that loads a test module
	# says "# needs: test-build", and such a script never lists the prod
	# flavour (scripts/vm.sh --prod refuses it).
	testmods=$(sed -nE 's/^obj-[^ ]* *[:+]?= *(damon_perf_[a-z0-9_]+)\.o.*/\1/p' tests/*/Kbuild |
		sort -u | paste -sd'|')
	bad=
	for s in tests/vm/*.sh; do
		n=$(basename "$s" .sh)
		[ "$n" = lib ] && continue
		needs_test=0
		grep -qE '^# *needs:.*\btest-build\b' "$s" && needs_test=1
		if [ $needs_test = 0 ] && grep -qE "\b($testmods)\b" "$s"; then
			bad+=" $n (loads a test module without '# needs: test-build')"
		fi
		if [ $needs_test = 1 ] && sed -nE 's/^# *flavours: *(.*)/\1/p' "$s" | grep -qw prod; then
			bad+=" $n (needs the test build but lists the prod flavour)"
		fi
	done
	if [ -z "$bad" ]; then
		tally_test ok "vm: the scripts that need the test build say so ($(grep -lE '^# *needs:.*\btest-build\b' tests/vm/*.sh | wc -l) scripts), none in a production batch"
	else
		tally_test fail "vm: the scripts that need the test build say so:$bad"
	fi
	# flavours SCRIPT: its "# flavours:" header (test).
	flavours() {
		local f
		f=$(sed -nE 's/^# *flavours: *(.*)/\1/p' "$1" | head -n 1)
		echo "${f:-test}"
	}
	for s in tests/vm/*.sh; do
		want vm || break
		n=$(basename "$s" .sh)
		case "$n" in lib|kunit) continue ;; esac
		case " $(arches "$s") " in *" x86_64 "*) ;; *) continue ;; esac
		if [ -n "${CHECK_VM:-}" ]; then
			case " $CHECK_VM " in *" $n "*) ;; *) continue ;; esac
		fi
		kernels=$(sed -nE 's/^# *kernels: *(.*)/\1/p' "$s" | head -n 1)
		numa=$(shape_of "$s")
		kernels=${kernels:-debug stock}
		# each kernel once, however often the header names it
		kernels=$(echo " $kernels " | sed 's/ stock / stock trixie sid /; s/ bookworm / stock /' |
			tr ' ' '\n' | awk 'NF && !seen[$0]++')
		for k in $kernels; do
			want_kernel "$k" || continue
			if [ "${CHECK_BATCH:-1}" = 0 ]; then
				vm_run "$s" "$k"
				case " $(flavours "$s") " in *" prod "*) vm_run "$s" "$k-prod" ;; esac
				continue
			fi
			batch[$k:$numa]+="$s "
			case " $(flavours "$s") " in *" prod "*)
				pbatch[$k]+="$s "
				[ $numa = 0 ] || pnuma[$k]=$numa ;;
			esac
		done
	done
	# arm64: the scripts whose "# arches:" header names it
	if want arm64 && want_kernel arm64; then
		for s in tests/vm/*.sh; do
			n=$(basename "$s" .sh)
			case " $(arches "$s") " in *" arm64 "*) ;; *) continue ;; esac
			if [ -n "${CHECK_VM:-}" ]; then
				case " $CHECK_VM " in *" $n "*) ;; *) continue ;; esac
			fi
			numa=$(shape_of "$s")
			batch[arm64:$numa]+="$s "
			case " $(flavours "$s") " in *" prod "*)
				pbatch[arm64]+="$s "
				[ $numa = 0 ] || pnuma[arm64]=$numa ;;
			esac
		done
	fi
	# The production build's batches: one boot a kernel (two NUMA nodes
	# when one of its scripts asks for them), the scripts in their order.
	for k in "${!pbatch[@]}"; do
		batch[$k-prod:${pnuma[$k]:-0}]=${pbatch[$k]}
	done
	[ -z "${klabel[arm64]:-}" ] || klabel[arm64-prod]=${klabel[arm64]}-prod
	# Batches run in CHECK_VM_JOBS lanes side by side (default 3 on the
	# two cores: a VM waits for its guest's timers much of the time, and
	# its spinning workload fills only what the others leave; six scripts
	# of the stock batch, three copies side by side, took 64 s a copy
	# against 73 s with two and 105 s alone). Each batch's cost is
	# estimated from its scripts' times in earlier runs (vm_times_load;
	# unknown: 30 s a debug script, 20 s arm64, 10 s stock) plus a boot;
	# a batch longer than a lane's share of the whole is split into parts
	# of about that length, each its own boot. The lanes take the parts
	# from one queue, longest first, so none idles while another has two
	# left; the verdicts are counted afterwards in the usual order.
	jobs=${CHECK_VM_JOBS:-3}
	vm_times_load
	declare -A parts=()
	queue=$logs/vm-queue
	: > "$queue"
	total=0
	for key in "${!batch[@]}"; do
		# shellcheck disable=SC2086
		total=$((total + $(vm_cost "${key%:*}" "${key#*:}" ${batch[$key]}) + $(vm_boot_cost "${key%:*}")))
	done
	# the KUnit VM, as one more part (its last time, or 90 s)
	kunit_cost=0
	if [ $kunit_in_lanes = 1 ]; then
		kunit_cost=${vm_times[kunit:0:kunit.sh]:-30}
		kunit_cost=$((kunit_cost + $(vm_boot_cost debug)))
		total=$((total + kunit_cost))
	fi
	share=$(( (total + jobs - 1) / jobs ))
	for key in "${!batch[@]}"; do
		# shellcheck disable=SC2086
		vm_split "$key" "$share" ${batch[$key]} >> "$queue"
	done
	rm -f "$logs/kunit-debug.secs"
	[ $kunit_in_lanes = 0 ] || echo "$kunit_cost kunit:0 1 1 tests/vm/kunit.sh" >> "$queue"
	sort -t' ' -k1,1nr -o "$queue" "$queue"
	echo "  $(wc -l < "$queue") boots in $jobs lanes, about $total s of VM time in all:"
	while read -r c key slot n list; do
		if [ "$key" = kunit:0 ]; then
			echo "    debug, KUnit (counted as the kunit tier): about $c s"
			continue
		fi
		# shellcheck disable=SC2086 # a list of script paths
		echo "    ${klabel[${key%:*}]:-${key%:*}}$(shape_where "${key#*:}")$([ "$n" -gt 1 ] && echo " (part $slot of $n)"): $(echo $list | wc -w) scripts, about $c s"
	done < "$queue"
	pids=()
	for ((i = 1; i <= jobs; i++)); do
		vm_lane "$queue" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for key in {debug,stock,trixie,sid,arm64}:{0,1,2,3} {debug,stock,trixie,sid,arm64}-prod:{0,1,2,3}; do
		[ -n "${batch[$key]:-}" ] || continue
		# shellcheck disable=SC2086
		vm_batch_count "${key%:*}" "${key#*:}" "${parts[$key]:-1}"
	done
	vm_times_save
	if [ $kunit_in_lanes = 1 ]; then
		stage kunit "KUnit suites in the debug VM (KTAP leaf cases), run in the vm tier's lanes"
		tally_logcheck vm "$logs/kunit-debug.log" --ktap --name kunit-debug
		stage_secs=$(cat "$logs/kunit-debug.secs" 2>/dev/null || echo 0)
		stage_note=" (in a lane of the vm tier)"
		echo "  kunit on debug: $TALLY_LAST ($stage_secs s in a lane, log ${logs#"$top"/}/kunit-debug.log)"
	fi
fi

# --- skips ---------------------------------------------------------------
# Every skip (SKIP or TODO, in any tier) must be on tests/skips.allow,
# which names the kernel, the test and why it cannot run there; each one
# that is not is a failure.
stage skips "every skip on tests/skips.allow"
# (a full run lists the entries that named no skip too)
[ $# -gt 0 ] || [ -n "${CHECK_VM:-}${CHECK_KERNELS:-}" ] || TALLY_ALLOW_UNUSED=1
tally_skips "$top/tests/skips.allow"
echo "  $TALLY_LAST"
stage_end
if [ ${#prefetch_pids[@]} -gt 0 ]; then
	wait "${prefetch_pids[@]}"
	echo
	echo "=== prefetch: background jobs (exit status, seconds after the start of check)"
	for f in "$logs"/prefetch-*.secs; do
		[ -f "$f" ] || continue
		n=${f##*/prefetch-}
		read -r rc secs < "$f"
		echo "  ${n%.secs}: exit $rc after $secs s (log ${logs#$top/}/prefetch-${n%.secs}.log)"
	done
fi

echo
echo "=== timings (total $(( $(date +%s) - check_start )) s); every result in ${logs#$top/}/results.txt"
printf '  %s\n' "${timings[@]}"
tally_summary
