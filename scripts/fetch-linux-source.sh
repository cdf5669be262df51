#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fetch Debian's linux-source-7.3 (trixie-backports) on a machine whose apt
# does not know it, e.g. Debian 12, and print the path of its tarball.
#
#   scripts/fetch-linux-source.sh [-v]  print the tarball's path, fetching it
#                                       when it is not cached
#   -v  print the package version instead
#
# The package is fetched with an apt state of its own (sources list, lists
# and cache in a temporary directory): the machine's apt sources, lists and
# dpkg status are neither read nor changed.  Its signature is checked with
# the Debian archive keyring that Debian 12 ships (debian-archive-keyring
# holds the trixie keys).  The tarball is kept in
# ${XDG_CACHE_HOME:-~/.cache}/symprov/linux-source-7.3/VERSION/ and used
# from there the next times, without network.
#
# The archive is the one this machine's apt uses (scripts/debian-mirror.sh);
# DEBIAN_MIRROR overrides it, LINUX_SOURCE_CACHE the cache directory.
set -euo pipefail
export LC_ALL=C

package=linux-source-7.3
suite=trixie-backports
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cache=${LINUX_SOURCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symprov/$package}

die() {
	echo "fetch-linux-source: $*" >&2
	exit 1
}

print_version=
case "${1:-}" in
-v) print_version=1 ;;
"") ;;
*) die "usage: fetch-linux-source.sh [-v]" ;;
esac

# The newest version in the cache, by Debian's version order.
cached_version() {
	local d best=

	for d in "$cache"/*/"$package.tar.xz"; do
		[ -e "$d" ] || continue
		d=${d%/*}
		d=${d##*/}
		if [ -z "$best" ] || dpkg --compare-versions "$d" gt "$best"; then
			best=$d
		fi
	done
	echo "$best"
}

fetch() {
	local tmp state version deb stage mirror
	local apt_state=()

	mirror=$(bash "$(dirname "$0")/debian-mirror.sh") || exit 1
	[ -r "$keyring" ] ||
		die "$keyring not found (apt-get install debian-archive-keyring)"
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # the path is known now
	trap "rm -rf '$tmp'" EXIT
	state=$tmp/apt
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	echo "deb [signed-by=$keyring] $mirror $suite main" \
		>"$state/sources.list"
	apt_state=(-o Dir::Etc::sourcelist="$state/sources.list"
		-o Dir::Etc::sourceparts=/dev/null
		-o Dir::Etc::preferences=/dev/null
		-o Dir::Etc::preferencesparts=/dev/null
		-o Dir::State::Lists="$state/lists"
		-o Dir::State::status=/dev/null
		-o Dir::Cache="$state/cache"
		-o APT::Sandbox::User=root)
	echo "fetch-linux-source: fetching $package from $suite" >&2
	apt-get -q "${apt_state[@]}" update >"$tmp/update.log" 2>&1 || {
		cat "$tmp/update.log" >&2
		die "apt-get update of $suite failed"
	}
	version=$(apt-cache "${apt_state[@]}" show --no-all-versions \
		"$package" 2>/dev/null | sed -n 's/^Version: //p' | head -n1) ||
		true
	[ -n "$version" ] || die "$suite has no $package"
	(cd "$tmp" && apt-get -q "${apt_state[@]}" download "$package") \
		>"$tmp/download.log" 2>&1 || {
		cat "$tmp/download.log" >&2
		die "apt-get download $package failed"
	}
	deb=$(echo "$tmp/${package}_"*.deb)
	[ -f "$deb" ] || die "apt-get download gave no .deb"
	mkdir -p "$tmp/pkg" "$cache"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp/pkg" "./usr/src/$package.tar.xz" ||
		die "no $package.tar.xz in $(basename "$deb")"
	# Into the cache in one rename: a half-written tarball is never seen
	# (the staging directory's dot name keeps it out of cached_version).
	stage=$(mktemp -d "$cache/.stage.XXXXXX")
	chmod 755 "$stage"
	mv "$tmp/pkg/usr/src/$package.tar.xz" "$stage/"
	rm -rf "${cache:?}/$version"
	mv -T "$stage" "$cache/$version"
	echo "fetch-linux-source: $package $version in $cache/$version" >&2
}

version=$(cached_version)
if [ -z "$version" ]; then
	# one fetch at a time (make check builds two perfs at once): the
	# others wait for it and take its tarball
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	version=$(cached_version)
fi
if [ -z "$version" ]; then
	fetch
	version=$(cached_version)
	[ -n "$version" ] || die "nothing in $cache after the fetch"
fi
if [ -n "$print_version" ]; then
	echo "$version"
else
	echo "$cache/$version/$package.tar.xz"
fi
