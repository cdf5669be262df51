#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Run make targets one after the other and say how long each took: the
# body of `make check`.
#
#   scripts/check-times.sh [-j N] GROUP...
#
# A GROUP is one make invocation: its words are targets and variables
# ("SAN=1 test"); one of several targets ("check-a+check-b") runs them with
# make -j N (default 1), side by side, each one's output kept together
# (make -O).  It stops at the first group that
# fails.  At the end, and at that failure, a table: each group's seconds
# and the total, for the log.  $MAKE is the make to run.
set -uo pipefail

jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
make=${MAKE:-make}
names=()
times=()
start=$(date +%s)

report() {
	local i

	echo "make check: the time of each part"
	for i in "${!names[@]}"; do
		printf '  %6d s  %s\n' "${times[$i]}" "${names[$i]}"
	done
	printf '  %6d s  in all\n' $(($(date +%s) - start))
}

for group in "$@"; do
	read -ra words <<<"${group//+/ }"
	par=()
	[ "$group" = "${group//+/}" ] || par=(-j "$jobs" -O)
	t=$(date +%s)
	"$make" --no-print-directory "${par[@]}" "${words[@]}"
	status=$?
	names+=("$group")
	times+=($(($(date +%s) - t)))
	if [ $status -ne 0 ]; then
		report
		echo "make check: $group failed (exit $status)" >&2
		exit $status
	fi
done
report
