#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run COMMAND on this machine as a machine that runs containers of its own
# release is: a root in the temporary directory holding this machine's
# objects at a second path, and processes running from it while COMMAND
# runs, one under chroot (seen from here under the root's path) and one as
# the root of a mount namespace of its own.  They start a program of the
# root 20 times a second: a system-wide profile has samples in them, so
# its build ID table holds the same libc, one build ID, at two paths (perf
# writes the build IDs of the objects sampled).  The tests must hold.
#
#   scripts/foreign-root.sh [-r ROOT] COMMAND...
#
#   -r ROOT   a root made already, e.g. by debootstrap --variant=minbase
#             bookworm ROOT; it is kept.  Without it, one is made in
#             ${TMPDIR:-/tmp} from this machine's own sh and sleep and
#             the libraries they load, and removed at the end.
#
# A profile of one second (Debian's perf) must name an object of the root
# first: otherwise COMMAND would run on a machine without the pair.
# Needs root (chroot, unshare).  Exits with COMMAND's status; 1 when the
# processes from the root could not be started or are not seen.
set -euo pipefail

root=
made=
pids=()

die() {
	echo "foreign-root: $*" >&2
	exit 1
}

cleanup() {
	local pid

	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$made" ]; then
		rm -rf "$made"
	fi
}

# Copy @1 into the root at the same path, through each symbolic link on the
# way (merged /usr: /lib64 -> usr/lib64 -> ../lib/...).
copy_with_links() {
	local path=$1 part prefix

	while :; do
		prefix=
		for part in $(dirname "$path" | tr / ' '); do
			prefix=$prefix/$part
			if [ -L "$prefix" ]; then
				copy_with_links "$prefix"
			fi
		done
		if [ -d "$path" ] && [ ! -L "$path" ]; then
			mkdir -p "$root$path"
			break
		fi
		cp -P --parents "$path" "$root"
		[ -L "$path" ] || break
		path=$(readlink -f "$path")
	done
}

# This machine's sh and sleep and what they load, as a root of the same
# release holds them: the same files, so the same build IDs.
make_root() {
	local prog lib

	made=$(mktemp -d "${TMPDIR:-/tmp}/symprov-foreign-root.XXXXXX")
	root=$made
	for prog in /usr/bin/sh /usr/bin/sleep; do
		copy_with_links "$prog"
		for lib in $(ldd "$prog" | grep -o '/[^ ]*'); do
			copy_with_links "$lib"
		done
	done
}

# A profile of the whole machine names a file of the root.
check_seen() {
	local data

	command -v perf >/dev/null ||
		die "no perf (Debian's linux-perf): cannot check that a profile sees $root"
	data=$(mktemp "${TMPDIR:-/tmp}/symprov-foreign-root.XXXXXX.data")
	perf record -q -e cpu-clock -a -o "$data" -- sleep 1 >/dev/null 2>&1 ||
		{ rm -f "$data"; die "perf record failed"; }
	if ! perf buildid-list -i "$data" 2>/dev/null | grep -q " $root/"; then
		rm -f "$data"
		die "a system-wide profile names no file of $root"
	fi
	perf buildid-list -i "$data" 2>/dev/null | grep " $root/" |
		sed 's/^/foreign-root: in a profile: /'
	rm -f "$data"
}

# Start @@ in the background and wait until it runs the root's program
# and maps its libc: the process is then what a profile records.  (chroot
# and unshare map this machine's libc before they exec that program.)
start_from_root() {
	local pid tries=100 launcher=$1 exe

	"$@" &
	pid=$!
	pids+=("$pid")
	while exe=$(readlink "/proc/$pid/exe" 2>/dev/null) &&
		[ "${exe##*/}" = "$launcher" ] ||
		! grep -q 'libc\.so' "/proc/$pid/maps" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || die "'$*' did not start"
		sleep 0.1
	done
	echo "foreign-root: pid $pid: $*"
}

while getopts "r:" opt; do
	case $opt in
	r) root=$OPTARG ;;
	*) die "usage: foreign-root.sh [-r ROOT] COMMAND..." ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || die "usage: foreign-root.sh [-r ROOT] COMMAND..."
[ "$(id -u)" = 0 ] || die "needs root (chroot, unshare)"

trap cleanup EXIT
# Stopped by a signal: the processes and the root go too.
trap 'exit 1' INT TERM HUP
if [ -z "$root" ]; then
	make_root
fi
root=$(cd "$root" && pwd -P)
for prog in sh sleep; do
	[ -x "$root/usr/bin/$prog" ] || die "$root has no /usr/bin/$prog"
done

loop='while :; do sleep 0.05; done'
start_from_root chroot "$root" /usr/bin/sh -c "$loop"
# Its files' paths seen from here are the root's.
grep -q " $root/.*libc\.so" "/proc/${pids[0]}/maps" ||
	die "the process under chroot maps no libc of $root"
start_from_root unshare --mount --propagation private --root "$root" \
	/usr/bin/sh -c "$loop"
check_seen

status=0
"$@" || status=$?
echo "foreign-root: '$*' exited $status with processes running from $root"
exit "$status"
