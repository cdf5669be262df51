#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The Debian packages `make bench` needs on top of the project's own:
# bsdtar, with which debuginfod -U reads a .deb, curl, the baseline of a
# transfer, and strace, which counts its system calls.  build-perf.sh
# installs what perf needs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/install-deps.sh"

missing=()
for p in libarchive-tools curl strace; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "bench: need root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
