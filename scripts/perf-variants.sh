#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# perf with the series, built as others build it (make check-perf-variants):
#
#   nodwarf       without libdw and libdebuginfod: it builds, and has the
#                 providers' perf test
#   nolibelf      without libelf: it builds, reads no ELF file, so asks no
#                 provider and has no such test
#   nolibsymprov  without the rpath to this tree's library, as on a machine
#                 where libsymprov is not installed: as stock perf 7.3
#                 (tests/e2e/run_stock_equal.py); the rpath is all that
#                 build-perf.sh -n changes, so it is make perf's binary
#                 with its rpath removed
#   clang         7.3 and 6.12 built with clang, whose -Wthread-safety
#                 checks perf's lock annotations (-Werror): the providers
#                 asked under no dso->lock
#
#   scripts/perf-variants.sh [-b] [VARIANT...]   (default: all of them)
#
# Each variant is built (scripts/build-perf.sh, in build/perf-VARIANT) and
# checked on its own: one failing does not stop the others.  -b builds
# them and checks nothing (make perf-builds, ahead of the checks).  Ends with
# "perf variants: N passed, N failed" of those that ran; exit 0 when all
# passed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
build=(bash scripts/build-perf.sh)
# The variants prove that the series builds and links in each
# configuration; the optimised build is make perf's.  Unoptimised
# (perf's DEBUG=1: -O0, its assertions on), each takes about three
# quarters of the time, two thirds of the compiler's (nodwarf: 92 s
# against 122 s, user 100 s against 156 s).
unoptimised=DEBUG=1

build_nodwarf() {
	"${build[@]}" -o build/perf-nodwarf NO_DWARF=1 NO_LIBDEBUGINFOD=1 \
		"$unoptimised"
}
check_nodwarf() {
	bash scripts/check-output.sh -c '^ *1: ' 'Symbol providers' -- \
		build/perf-nodwarf/perf test list
}

build_nolibelf() {
	"${build[@]}" -o build/perf-nolibelf NO_LIBELF=1 NO_DWARF=1 \
		NO_LIBDEBUGINFOD=1 "$unoptimised"
}
check_nolibelf() {
	bash scripts/check-output.sh -n -c '^ *1: ' 'Symbol providers' -- \
		build/perf-nolibelf/perf test list
}

build_nolibsymprov() {
	"${build[@]}" && "${build[@]}" -o build/perf-stock -a none &&
		mkdir -p build/perf-nolibsymprov &&
		cp build/perf/perf build/perf-nolibsymprov/perf &&
		patchelf --remove-rpath build/perf-nolibsymprov/perf
}
check_nolibsymprov() {
	python3 tests/e2e/run_stock_equal.py --stock build/perf-stock/perf \
		--perf build/perf-nolibsymprov/perf
}

build_clang() {
	"${build[@]}" -o build/perf-clang CC=clang "$unoptimised" &&
		PERF_VERSION=6.12 "${build[@]}" -o build/perf-6.12-clang \
			CC=clang "$unoptimised"
}
check_clang() {
	:  # it built, with -Werror
}

build_only=
if [ "${1:-}" = -b ]; then
	build_only=1
	shift
fi
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(nodwarf nolibelf nolibsymprov clang)
passed=()
failed=()
for v in "${variants[@]}"; do
	if ! declare -F "build_$v" >/dev/null; then
		echo "perf-variants: no variant $v" >&2
		exit 2
	fi
	echo "perf-variants: --- $v"
	if "build_$v" && { [ -n "$build_only" ] || "check_$v"; }; then
		passed+=("$v")
	else
		failed+=("$v")
		echo "perf-variants: FAIL $v" >&2
	fi
done
[ ${#failed[@]} -eq 0 ] || echo "perf variants failed: ${failed[*]}"
if [ -n "$build_only" ]; then
	echo "perf variants: ${#passed[@]} built, ${#failed[@]} failed"
else
	echo "perf variants: ${#passed[@]} passed, ${#failed[@]} failed"
fi
[ ${#failed[@]} -eq 0 ]
