#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Install the Debian packages symprov needs to build and test.
#   scripts/install-deps.sh          build + tests
#   scripts/install-deps.sh --check  only say what is missing
set -euo pipefail

PACKAGES=(
	# build
	gcc make pkg-config libc6-dev
	libdebuginfod-dev libdw-dev libelf-dev
	# man pages (make install), the Debian package (make check-deb)
	scdoc debhelper dpkg-dev
	# tests
	libcmocka-dev debuginfod binutils python3 valgrind cppcheck
	clang clang-tidy libclang-rt-14-dev libcap2-bin util-linux time tmux
	# perf-glue.patch and its check (build-perf.sh adds perf's own)
	linux-source-6.12 xz-utils patch
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "${1:-}" = --check ]; then
	echo "missing packages: ${missing[*]}"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
