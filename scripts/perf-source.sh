# shellcheck shell=bash disable=SC2034,SC2154
# (sourced: the variables are its caller's)
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sourced by build-perf.sh and perf-series.sh, with $top set: the perf
# source a series is kept for, chosen by PERF_VERSION.
#
#   7.3   (default) the main series, for perf's development tree:
#         perf-glue/ and perf-glue.patch, on Debian's linux-source-7.3
#         (scripts/fetch-linux-source.sh), built in build/perf
#   6.12  its backport to the perf of Debian 12 and 13: perf-glue-6.12/
#         and perf-glue-6.12.patch, on the installed linux-source-6.12,
#         built in build/perf-6.12
#
# It sets perf_version, source_package, series (the patch directory),
# combined (the series in one patch), perf_makevars (what perf's make
# needs on Debian 12) and default_outdir, and defines
# perf_source_tarball, perf_source_version and perf_source_tree.
# LINUX_SOURCE_TARBALL overrides the tarball.

perf_version=${PERF_VERSION:-7.3}
case $perf_version in
7.3)
	source_package=linux-source-7.3
	series=$top/perf-glue
	combined=$top/perf-glue.patch
	# libunwind is opt-in in 7.3; a rustc on PATH breaks the link
	perf_makevars=(BUILD_BPF_SKEL=0 LIBUNWIND=1 NO_RUST=1)
	default_outdir=$top/build/perf
	;;
6.12)
	source_package=linux-source-6.12
	series=$top/perf-glue-6.12
	combined=$top/perf-glue-6.12.patch
	perf_makevars=()
	default_outdir=$top/build/perf-6.12
	;;
*)
	echo "PERF_VERSION=$perf_version: not 7.3 or 6.12" >&2
	exit 2
	;;
esac

# The path of the source tarball, fetched if need be.
perf_source_tarball() {
	if [ -n "${LINUX_SOURCE_TARBALL:-}" ]; then
		echo "$LINUX_SOURCE_TARBALL"
	elif [ "$perf_version" = 7.3 ]; then
		bash "$top/scripts/fetch-linux-source.sh"
	else
		echo "/usr/src/$source_package.tar.xz"
	fi
}

# The Debian version of the source, or the tarball's size and time.
perf_source_version() {
	local tarball=$1 v=

	if [ -z "${LINUX_SOURCE_TARBALL:-}" ]; then
		if [ "$perf_version" = 7.3 ]; then
			v=$(bash "$top/scripts/fetch-linux-source.sh" -v)
		else
			v=$(dpkg-query -W -f='${Version}' "$source_package" \
				2>/dev/null) || v=
		fi
	fi
	[ -n "$v" ] || v=$(stat -c '%s-%Y' "$tarball")
	echo "$v"
}

# The files of the tarball perf needs (and its series: tools/), extracted
# once into build/perf-source/, by the tarball's version, size and time:
# that directory.  Decompressing the whole xz stream for them takes 19 s;
# each build copies them.
perf_source_tree() {
	local tarball=$1 dir stage name

	dir=$top/build/perf-source/$source_package-$(perf_source_version "$tarball")-$(stat -c '%s-%Y' "$tarball")
	if [ ! -d "$dir" ]; then
		echo "perf-source: extracting $(basename "$tarball")" >&2
		mkdir -p "${dir%/*}"
		stage=$(mktemp -d "${dir%/*}/.stage.XXXXXX")
		name=$(basename "$tarball")
		name=${name%.tar.*}
		tar -xJf "$tarball" -C "$stage" --strip-components=1 \
			"$name/Makefile" "$name/arch" "$name/include" \
			"$name/kernel" "$name/lib" "$name/scripts" \
			"$name/tools" || { rm -rf "$stage"; return 1; }
		# one of two builds at once extracting it wins
		mv -T "$stage" "$dir" 2>/dev/null || rm -rf "$stage"
	fi
	echo "$dir"
}
