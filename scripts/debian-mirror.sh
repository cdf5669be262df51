#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The Debian archive this machine's apt uses, so that the scripts that
# fetch from Debian go where apt goes (a site's mirror or proxy).
#
#   scripts/debian-mirror.sh [-s]
#
# Prints the URL of the archive of Debian's main suites (the one apt has
# for bookworm), with -s that of its security updates (for
# bookworm-security), as apt's own sources give them
# (`apt-cache policy`, which reads sources.list and deb822 files alike).
# $DEBIAN_MIRROR (or with -s $DEBIAN_SECURITY_MIRROR) wins when set.
# Exits 1, saying so, when apt's sources have no such archive.
set -euo pipefail
export LC_ALL=C

label=Debian
var=DEBIAN_MIRROR
case "${1:-}" in
-s)
	label=Debian-Security
	var=DEBIAN_SECURITY_MIRROR
	;;
"") ;;
*)
	echo "usage: debian-mirror.sh [-s]" >&2
	exit 2
	;;
esac

if [ -n "${!var:-}" ]; then
	echo "${!var}"
	exit 0
fi
# " 500 URL SUITE/COMPONENT ARCH Packages", then its " release ..." line
url=$(apt-cache policy 2>/dev/null | awk -v label="$label" '
	$1 ~ /^[0-9]+$/ && $2 ~ /^(https?|file):/ { url = $2; next }
	/^ *release / && url != "" && index($0, "o=Debian,") &&
	    index($0, ",l=" label ",") { print url; exit }
	{ url = "" }')
if [ -z "$url" ]; then
	echo "debian-mirror: apt's sources name no $label archive; set $var" >&2
	exit 1
fi
echo "$url"
