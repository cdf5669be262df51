#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Check what a command prints, so that a check cannot pass on a command
# that did not run: `! cmd | grep -q X` passes when cmd is not there.
#
#   scripts/check-output.sh [-n] -c CONTROL PATTERN -- COMMAND [ARG...]
#
# COMMAND must exit 0 and print (stdout and stderr) a line matching
# CONTROL, what it prints when it did its work; then a line must match
# PATTERN, or with -n none may.  Both are grep -E patterns.  One line says
# what was checked; exit 0 when it holds, 1 when it does not.
set -uo pipefail

absent=
control=
while getopts "nc:" opt; do
	case $opt in
	n) absent=1 ;;
	c) control=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
pattern=${1:?usage: check-output.sh [-n] -c CONTROL PATTERN -- COMMAND...}
shift
[ "${1:-}" = -- ] && shift
[ -n "$control" ] && [ $# -gt 0 ] ||
	{ echo "usage: check-output.sh [-n] -c CONTROL PATTERN -- COMMAND..." >&2; exit 2; }

out=$("$@" 2>&1)
status=$?
what="'$*'"
tail=$(tail -c 500 <<<"$out")
if [ $status -ne 0 ]; then
	echo "check-output: $what failed (exit $status): $tail" >&2
	exit 1
fi
if ! grep -Eq -- "$control" <<<"$out"; then
	echo "check-output: $what printed no '$control': it did not do its work: $tail" >&2
	exit 1
fi
if grep -Eq -- "$pattern" <<<"$out"; then
	found=1
else
	found=
fi
if [ -n "$absent" ] && [ -n "$found" ]; then
	echo "check-output: $what printed '$pattern': $(grep -E -m1 -- "$pattern" <<<"$out")" >&2
	exit 1
elif [ -z "$absent" ] && [ -z "$found" ]; then
	echo "check-output: $what printed no '$pattern'" >&2
	exit 1
fi
if [ -n "$absent" ]; then
	echo "check-output: $what printed '$control', not '$pattern'"
else
	echo "check-output: $what printed '$control' and '$pattern'"
fi
