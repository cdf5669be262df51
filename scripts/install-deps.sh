#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Install the Debian 12 packages symprov needs (apt-get, as root).
#
#   scripts/install-deps.sh [--check] [--for GOAL] [demo|all] [PACKAGE...]
#
#   demo        what `make demo` needs: the build, perf's build, debuginfod
#   all         (default) that and what `make check` needs besides
#   PACKAGE     these too (make bench asks for its own)
#   --check     only say what is missing (exit 1 when something is)
#   --for GOAL  run before GOAL (`make demo`, `make check`), which needs
#               root: without root, stop and say what to run
#
# Exit 0 when everything is installed, 1 otherwise: nothing may be built
# before it succeeds.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# libzstd: perf.data files recorded with -z
build=(gcc make pkg-config libc6-dev libdebuginfod-dev libdw-dev libelf-dev
	libzstd-dev)
# make demo: perf record/report, the stand-in vmlinux, a local debuginfod
demo=(python3 binutils debuginfod coreutils)
# make check: unit tests, static checkers, valgrind, sanitizers, libFuzzer,
# the privilege and fault tests (setcap, setpriv, tmpfs mounts)
check=(libcmocka-dev valgrind cppcheck clang clang-tidy libclang-rt-14-dev
	libcap2-bin util-linux mount time
	# perf's TUI on a terminal, in the end-to-end tests
	tmux
	# compressed perf.data files made by the tests
	zstd
	# libdebuginfod 0.188's double close, seen at the system calls
	strace
	# Debian's own perf: the tests of symprov prefetch --perf-cache read
	# what it puts there with the perf people already have
	linux-perf
	# man pages (make check-install, man renders them), the Debian package
	# (make check-deb: git ls-files, dpkg-buildpackage's build-essential)
	scdoc man-db debhelper dpkg-dev build-essential git
	# libsymprov's ABI against the stored one (make check-abi); the
	# privilege test's setuid copy finds libsymprov by an absolute RUNPATH
	abigail-tools patchelf)

check_only=
goal=
set_name=all
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--check) check_only=1 ;;
	--for) goal=${2:?--for needs a goal}; shift ;;
	demo | all) set_name=$1 ;;
	-*)
		echo "usage: install-deps.sh [--check] [--for GOAL] [demo|all] [PACKAGE...]" >&2
		exit 2
		;;
	*) extra+=("$1") ;;
	esac
	shift
done

# perf's build deps come from the script that builds it.
mapfile -t perf < <(bash "$top/scripts/build-perf.sh" -p)
packages=("${build[@]}" "${demo[@]}" "${perf[@]}" "${extra[@]}")
[ "$set_name" = demo ] || packages+=("${check[@]}")

missing=()
for p in $(printf '%s\n' "${packages[@]}" | sort -u); do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) || status=
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ "$(id -u)" -ne 0 ] && [ -n "$goal" ]; then
	echo "$goal: needs root (to install Debian packages, and for perf record -a): run 'sudo $goal'" >&2
	[ ${#missing[@]} -eq 0 ] ||
		echo "$goal: missing Debian packages: ${missing[*]}" >&2
	exit 1
fi
[ ${#missing[@]} -gt 0 ] || exit 0

apt_cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ -n "$check_only" ]; then
	echo "missing Debian packages: ${missing[*]}"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages; run as root: $apt_cmd" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update

unavailable=()
for p in "${missing[@]}"; do
	# read all of it: grep -q would leave apt-cache a SIGPIPE (pipefail)
	candidate=$(apt-cache policy "$p" 2>/dev/null |
		sed -n 's/^ *Candidate: //p')
	case $candidate in
	"" | "(none)") unavailable+=("$p") ;;
	esac
done
if [ ${#unavailable[@]} -gt 0 ]; then
	echo "install-deps: not in apt's sources: ${unavailable[*]}" >&2
	if [[ " ${unavailable[*]} " == *" linux-source-6.12 "* ]]; then
		secmirror=$(bash "$top/scripts/debian-mirror.sh" -s 2>/dev/null) ||
			secmirror="YOUR-DEBIAN-MIRROR/debian-security"
		echo "install-deps: linux-source-6.12 is in bookworm-security:" \
			"add 'deb $secmirror bookworm-security main'" \
			"to /etc/apt/sources.list" >&2
	fi
	exit 1
fi

apt-get install -y --no-install-recommends "${missing[@]}"
