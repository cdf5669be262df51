#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Run make targets one after the other and say how long each took, on the
# clock and on the processors: the body of `make check`.
#
#   scripts/check-times.sh [-j N] GROUP...
#
# A GROUP is one make invocation: its words are targets and variables
# ("SAN=1 test"); one of several targets ("check-a+check-b") runs them with
# make -j N (default 1), side by side, each one's output kept together
# (make -O).  Groups joined by " | " ("check-a | SAN=1 check-b") are
# separate make invocations run side by side, for targets whose variables
# differ: each but the last writes to build/check-GROUP.log, printed when
# all have ended, and the part fails if one of them failed.  A group
# "&TARGET" runs in the background at the lowest priority (nice 19), its
# output in build/check-TARGET.log: it takes the processors only while the
# groups after it wait (for servers, timeouts, perf record); "wait" waits
# for it, and fails if it failed.  It stops at the first group that fails.
# At the end, and at that failure, a table for the log: each group's
# seconds on the clock and its processes' processor seconds (user and
# system, of the processes it waited for), and the totals.  $MAKE is the
# make to run.
set -uo pipefail

jobs=1
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
make=${MAKE:-make}
names=()
times=()
cpus=()
bg_pid=
bg_name=
bg_start=
clk_tck=$(getconf CLK_TCK)

# The processor seconds of the children that a process waited for, from
# its /proc/PID/stat line in the file @1: cutime and cstime, its 16th and
# 17th fields.  Each part's are its own process's (a part's processes
# and the background's end in this shell's at different times).
waited_cpu() {
	local stat fields

	stat=$(<"$1")
	read -ra fields <<<"${stat##*) }"
	echo $(((fields[13] + fields[14] + clk_tck / 2) / clk_tck))
}

start=$(date +%s)
# the logs and the processor times of the parts
mkdir -p build

report() {
	local i

	echo "make check: the time of each part (clock, processors)"
	for i in "${!names[@]}"; do
		printf '  %6d s  %6d s  %s\n' "${times[$i]}" "${cpus[$i]}" \
			"${names[$i]}"
	done
	printf '  %6d s  %6d s  in all\n' $(($(date +%s) - start)) \
		"$(waited_cpu /proc/$$/stat)"
}

# the background group's end: 0, or its exit status after its log
wait_background() {
	local status

	[ -n "$bg_pid" ] || return 0
	wait "$bg_pid"
	status=$?
	names+=("$bg_name (in the background, until waited for)")
	times+=($(($(date +%s) - bg_start)))
	cpus+=("$(waited_cpu "build/check-${bg_name#&}.cpu")")
	if [ $status -ne 0 ]; then
		cat "build/check-${bg_name#&}.log"
	fi
	bg_pid=
	return $status
}

stop_background() {
	[ -z "$bg_pid" ] || kill -- "-$bg_pid" 2>/dev/null
}
trap stop_background EXIT

# one group: a make invocation, its targets side by side if joined by +
run_group() {
	local words par=()

	read -ra words <<<"${1//+/ }"
	[ "$1" = "${1//+/}" ] || par=(-j "$jobs" -O)
	"$make" --no-print-directory "${par[@]}" "${words[@]}"
}

# the groups of a part joined by " | ", at once; the status of the first
# that failed
run_side_by_side() {
	local part=$1 side logs=() pids=() log i s status=0

	while [[ $part == *" | "* ]]; do
		side=${part%% | *}
		part=${part#* | }
		log="build/check-${side//[^A-Za-z0-9.=-]/_}.log"
		run_group "$side" >"$log" 2>&1 &
		pids+=($!)
		logs+=("$log")
	done
	run_group "$part" || status=$?
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}"
		s=$?
		[ $status -ne 0 ] || status=$s
		echo "make check: the output of ${logs[$i]}:"
		cat "${logs[$i]}"
	done
	return $status
}

fail() {
	report
	echo "make check: $1 failed (exit $2)" >&2
	exit "$2"
}

for group in "$@"; do
	t=$(date +%s)
	case $group in
	wait)
		wait_background || fail "$bg_name" $?
		continue
		;;
	"&"*)
		bg_name=$group
		bg_start=$t
		# a session of its own, to be stopped whole; where the kernel
		# groups processes by session (autogroup), the groups share
		# the processors equally whatever their processes' nice: the
		# group's own nice lowered too
		# shellcheck disable=SC2016 # sh's own $1, $@, $$
		setsid sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
			cpu=$1
			shift
			nice -n 19 "$@"
			status=$?
			cat /proc/$$/stat >"$cpu"
			exit $status' sh "build/check-${group#&}.cpu" \
			"$make" --no-print-directory "${group#&}" \
			>"build/check-${group#&}.log" 2>&1 &
		bg_pid=$!
		echo "make check: ${group#&} in the background" \
			"(build/check-${group#&}.log)"
		continue
		;;
	esac
	(
		run_side_by_side "$group"
		status=$?
		cat "/proc/$BASHPID/stat" >build/check-part.cpu
		exit $status
	)
	status=$?
	names+=("$group")
	times+=($(($(date +%s) - t)))
	cpus+=("$(waited_cpu build/check-part.cpu)")
	[ $status -eq 0 ] || fail "$group" $status
done
wait_background || fail "$bg_name" $?
report
