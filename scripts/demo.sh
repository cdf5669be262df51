#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# symprov demo (`make demo`): kernel symbols for a profile whose kernel is
# not installed, fetched by build ID from a debuginfod server.
#
#  1. builds symprov (make) and the patched perf (make perf)
#  2. records a few seconds of system-wide samples (perf record -a; root)
#  3. "moves" the profile: gives its kernel a build ID nothing here has
#  4. builds a stand-in vmlinux with that build ID from /proc/kallsyms
#  5. serves it from a local debuginfod on 127.0.0.1 (a free port)
#  6. perf report before (raw kernel addresses) and after, with
#     DEBUGINFOD_URLS and PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so
#     (symbols), both with an empty HOME and a fresh debuginfod cache.
#     The bare name is found as README.md says: the perf `make perf`
#     builds looks in the tree's build/lib (no install, no
#     LD_LIBRARY_PATH)
#  7. stops the server and runs the line it prints for you, on the same
#     profile: the answer comes from the client cache it filled
#
# Its files stay in build/demo/ (the profile, the stand-in, the client
# cache), so that the last line it prints can be run again.
#
# Environment:
#   PERF=path             perf to demo (default build/perf/perf)
#   RECORD_PERF=path      perf to record with (default $PERF)
#   DEMO_SKIP_BUILD=1     don't run make / make perf
#   DEMO_BEFORE_ONLY=1    stop after the "before" report (any perf)
#   DEMO_DURATION=secs    workload length (default 3)
#   DEMO_DIR=dir          where its files go (default build/demo)
#   DEMO_LINES=n          kernel entries shown per report (default 12)
#
# Needs root (system-wide recording, real /proc/kallsyms addresses), gcc,
# binutils, python3 and elfutils' debuginfod: `make demo` installs them
# first (scripts/install-deps.sh demo).  Exit status 0 when the "after"
# report resolves every kernel sample the original profile resolved to the
# same symbols (samples outside the vmlinux, such as BPF programs, stay raw
# in both), and so does the line printed at the end, server stopped.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
E2E=$REPO/tests/e2e
TESTLIB=$REPO/tests/lib
MAKE=${MAKE:-make}
PYTHON=${PYTHON:-python3}
PERF=${PERF:-$REPO/build/perf/perf}
RECORD_PERF=${RECORD_PERF:-$PERF}
DURATION=${DEMO_DURATION:-3}
PROVIDERS=${PERF_SYMBOL_PROVIDERS:-libdebuginfodprov.so}
SHOW=${DEMO_LINES:-12}
DEMO_DIR=${DEMO_DIR:-$REPO/build/demo}

WORK=
SERVER_PID=

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

stop_server() {
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		echo "demo: debuginfod stopped" >&2
	fi
	SERVER_PID=
}

cleanup() {
	local rc=$?
	stop_server
	[ -z "$WORK" ] || echo "demo: files in ${WORK#"$REPO"/}" >&2
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found${2:+ (Debian package: $2)}"
}

# perf report with a clean environment: HOME (so ~/.debug) under $WORK,
# no debuginfod or provider settings unless given as VAR=value arguments.
perf_report() {
	local data=$1 home=$2; shift 2
	mkdir -p "$home"
	env -u DEBUGINFOD_URLS -u PERF_SYMBOL_PROVIDERS -u DEBUGINFOD_CACHE_PATH \
		-u PERF_BUILDID_DIR -u PERF_CONFIG \
		HOME="$home" LC_ALL=C PAGER=cat \
		no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}" \
		NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" "$@" \
		timeout 300 "$PERF" report --stdio --sort dso,sym -i "$data"
}

show() {  # the first kernel ([k]) entries of a report
	grep -F '[k]' "$1" | head -n "$SHOW" || true
}

show_stderr() {  # what perf said, indented
	[ -s "$1" ] || return 0
	echo "perf's stderr:"
	sed 's/^/  | /' "$1"
}

# compare_reports.py's summary lines ("N entries, N kernel, N unresolved"
# and the verdict), without the work directory in the file names
summarize() {
	"$PYTHON" "$E2E/compare_reports.py" "$@" | sed "s|$WORK/||g"
	return "${PIPESTATUS[0]}"
}

[ "$(id -u)" = 0 ] || die "run as root: perf record -a and real /proc/kallsyms addresses"
for t in "$PYTHON:python3" gcc:gcc ld:binutils readelf:binutils \
	 debuginfod:debuginfod timeout:coreutils; do
	need "${t%%:*}" "${t#*:}"
done

if [ "${DEMO_SKIP_BUILD:-0}" != 1 ]; then
	say "Building symprov (make) and perf (make perf)"
	timeout 1800 "$MAKE" -C "$REPO"
	timeout 3600 "$MAKE" -C "$REPO" perf
fi
case $PERF in
	*/*) [ -x "$PERF" ] || die "no perf at $PERF (make perf, or PERF=...)" ;;
	*) need "$PERF" ;;
esac

WORK=$DEMO_DIR
rm -rf "$WORK"
mkdir -p "$WORK"

say "Recording ${DURATION}s of system-wide samples, then moving the profile"
timeout $((DURATION + 240)) "$PYTHON" "$E2E/make_profile.py" \
	--perf "$RECORD_PERF" --duration "$DURATION" \
	--original "$WORK/orig.data" --moved "$WORK/moved.data" >"$WORK/ids.json"
NEW_ID=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["new_build_id"])' "$WORK/ids.json")
OLD_ID=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["old_build_id"])' "$WORK/ids.json")
echo "kernel build ID $OLD_ID (running) -> $NEW_ID (in the moved profile)"

say "Reference: the original profile, resolved with /proc/kallsyms (top kernel entries)"
perf_report "$WORK/orig.data" "$WORK/home-original" \
	>"$WORK/report-original.txt" 2>"$WORK/report-original.err" \
	|| die "perf report failed: $(tail -3 "$WORK/report-original.err")"
show "$WORK/report-original.txt"

say "BEFORE: the moved profile, empty HOME, no symbol provider"
echo "\$ perf report --stdio --sort dso,sym -i moved.data"
perf_report "$WORK/moved.data" "$WORK/home-before" >"$WORK/report-before.txt" 2>"$WORK/report-before.err" \
	|| die "perf report failed: $(tail -3 "$WORK/report-before.err")"
show "$WORK/report-before.txt"
show_stderr "$WORK/report-before.err"
summarize --expect-raw-kernel "$WORK/report-before.txt" ||
	die "the moved profile resolved kernel samples without a provider"

if [ "${DEMO_BEFORE_ONLY:-0}" = 1 ]; then
	echo "DEMO_BEFORE_ONLY=1: stopping here"
	exit 0
fi

say "Stand-in vmlinux for build ID $NEW_ID, served by a local debuginfod"
mkdir -p "$WORK/srv"
timeout 600 "$PYTHON" "$E2E/make_standin.py" --build-id "$NEW_ID" \
	-o "$WORK/srv/vmlinux-standin" --kallsyms-copy "$WORK/kallsyms"
"$PYTHON" "$TESTLIB/debuginfod_server.py" serve "$WORK/srv" \
	--url-file "$WORK/url" --log "$WORK/debuginfod.log" --max-seconds 1800 \
	>/dev/null &
SERVER_PID=$!
for _ in $(seq 900); do	# up to 180 s for start and indexing
	[ -s "$WORK/url" ] && break
	kill -0 "$SERVER_PID" 2>/dev/null || break
	sleep 0.2
done
[ -s "$WORK/url" ] || die "debuginfod did not come up: $(tail -5 "$WORK/debuginfod.log" 2>/dev/null)"
URL=$(cat "$WORK/url")
echo "debuginfod: $URL (serving $WORK/srv)"

say "AFTER: the same, with the debuginfod symbol provider"
printf '$ DEBUGINFOD_URLS=%s PERF_SYMBOL_PROVIDERS=%s \\\n    perf report --stdio --sort dso,sym -i moved.data\n' \
	"$URL" "$PROVIDERS"
perf_report "$WORK/moved.data" "$WORK/home-after" \
	DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$WORK/debuginfod-cache" \
	PERF_SYMBOL_PROVIDERS="$PROVIDERS" \
	>"$WORK/report-after.txt" 2>"$WORK/report-after.err" \
	|| die "perf report failed: $(tail -3 "$WORK/report-after.err")"
show "$WORK/report-after.txt"
show_stderr "$WORK/report-after.err"

say "debuginfod responses (code type count)"
"$PYTHON" "$TESTLIB/debuginfod_server.py" counts "$URL"

say "AFTER vs. the original profile (kernel entries, up to aliases)"
summarize --kallsyms "$WORK/kallsyms" --max-problems 8 --kernel-only \
	"$WORK/report-original.txt" "$WORK/report-after.txt" ||
	die "the report through the provider is not the original one"

# The README's line on this profile, as a person would type it in the
# tree: the server is gone, the client cache answers.
stop_server
rel() { case $1 in "$REPO"/*) echo "${1#"$REPO"/}" ;; *) echo "$1" ;; esac; }
line=(DEBUGINFOD_URLS="$URL" DEBUGINFOD_CACHE_PATH="$(rel "$WORK/debuginfod-cache")"
	PERF_SYMBOL_PROVIDERS="$PROVIDERS" "$(rel "$PERF")" report
	-i "$(rel "$WORK/moved.data")")
(cd "$REPO" && env -u DEBUGINFOD_URLS -u PERF_SYMBOL_PROVIDERS \
	-u DEBUGINFOD_CACHE_PATH -u PERF_CONFIG -u LD_LIBRARY_PATH \
	HOME="$WORK/home-yours" LC_ALL=C PAGER=cat "${line[@]}" \
	--stdio --sort dso,sym) >"$WORK/report-yours.txt" \
	2>"$WORK/report-yours.err" ||
	die "the line below failed: $(tail -3 "$WORK/report-yours.err")"
summarize --kernel-only "$WORK/report-after.txt" "$WORK/report-yours.txt" \
	>/dev/null ||
	die "the line below does not give the AFTER report: see $(rel "$WORK")"

say "Your turn: perf report's TUI on the same profile (in $REPO; the server is stopped, the client cache answers)"
printf '$ %s \\\n    %s\n' "${line[*]:0:2}" "${line[*]:2}"
