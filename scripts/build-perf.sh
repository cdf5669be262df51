#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Build perf with the series' combined patch applied: the perf of
# linux-source-7.3 with perf-glue.patch, or with PERF_VERSION=6.12 that of
# linux-source-6.12 with perf-glue-6.12.patch (scripts/perf-source.sh).
#
#   scripts/build-perf.sh [-o OUTDIR] [-f] [-k] [-n] [-a PATCH|none]... [MAKEVAR=value...]
#   scripts/build-perf.sh -p    print the Debian packages it needs, and exit
#
# -a applies PATCH (repeat it: in order) instead of the combined patch, e.g.
# the first patches of the series (scripts/perf-series.sh build); -a none
# builds the stock perf that make bench compares with.
# OUTDIR (default build/perf, build/perf-6.12 for 6.12) gets the perf binary,
# OUTDIR-src the patched source and OUTDIR-obj the objects, kept for
# incremental builds.  The files of the tarball perf needs are extracted
# once, into build/perf-source/ (the whole xz stream is decompressed for
# them: 19 s), and copied to OUTDIR-src for each build.  With -k, an
# OUTDIR-src whose patches are the first of the PATCHes is kept and the
# others applied on it: a step of the series after the one before it.
# Each perf built is kept in build/perf-store/, by what it was built of
# (the source, the make variables, the files the patches change as they
# came out): a build of the same tree takes it from there (stock perf is
# the series' first step, the combined patch's perf its last).  The build is skipped when OUTDIR/perf comes from the
# same source package version, patch and make variables (OUTDIR/.stamp);
# -f builds anyway.  MAKEVARs go to perf's make, e.g. NO_LIBDW=1.  perf is
# built without libsymprov, which it opens at run time when providers are
# configured: it finds this tree's (build/lib, which `make` makes) through
# an rpath; with -n it has none, as a perf where libsymprov is not
# installed.
# Missing Debian packages are installed when run as root.
# LINUX_SOURCE_TARBALL overrides the Debian tarball.
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=perf-source.sh
. "$top/scripts/perf-source.sh"
patchfiles=()
outdir=$default_outdir
force=
keep=
rpath=1

# Without these perf does not build at all.  linux-source-7.3 is fetched
# with apt, checked with the archive keyring.
required=(gcc make libc6-dev flex bison pkg-config patch xz-utils)
case $perf_version in
6.12) required+=(linux-source-6.12) ;;
*) required+=(apt dpkg debian-archive-keyring) ;;
esac
# What the project needs for both perfs: the tests run the 6.12 one too.
all_required=(linux-source-6.12 apt dpkg debian-archive-keyring)
# The features perf is expected to have: libelf, libdw and libdebuginfod.
wanted=(libelf-dev libdw-dev libdebuginfod-dev libtraceevent-dev
	libunwind-dev libslang2-dev libzstd-dev libcap-dev libnuma-dev
	zlib1g-dev liblzma-dev)

die() {
	echo "build-perf: $*" >&2
	exit 1
}

while getopts "o:fkna:p" opt; do
	case $opt in
	o) outdir=$(mkdir -p "$OPTARG" && cd "$OPTARG" && pwd) ;;
	f) force=1 ;;
	k) keep=1 ;;
	n) rpath= ;;
	a) if [ "$OPTARG" = none ]; then
		patchfiles+=(/dev/null)
	else
		patchfiles+=("$(cd "$(dirname "$OPTARG")" && pwd)/${OPTARG##*/}")
	fi ;;
	p)
		printf '%s\n' "${required[@]}" "${all_required[@]}" \
			"${wanted[@]}" | sort -u
		exit 0
		;;
	*) die "usage: build-perf.sh [-o OUTDIR] [-f] [-k] [-n] [-a PATCH|none]... [-p] [MAKEVAR=value...]" ;;
	esac
done
[ ${#patchfiles[@]} -gt 0 ] || patchfiles=("$combined")
shift $((OPTIND - 1))
for arg in "$@"; do
	case $arg in
	*=*) ;;
	*) die "not a make variable: $arg" ;;
	esac
done
srcdir=$outdir-src
objdir=$outdir-obj
# One build of OUTDIR at a time: make check tests a perf that its
# background part may still be building.
mkdir -p "$outdir"
exec 9>"$outdir.lock"
flock 9
# prefix=/usr: the system config is /etc/perfconfig, as in a distro's perf.
makevars=(NO_LIBPYTHON=1 NO_JEVENTS=1 prefix=/usr "${perf_makevars[@]}")
if [ -n "$rpath" ]; then
	[ -e "$top/build/lib/libsymprov.so.1" ] ||
		die "no build/lib/libsymprov.so.1: run 'make' first"
	export LDFLAGS="-Wl,-rpath,$top/build/lib"
fi
makevars+=("$@")

missing_packages() {
	local p

	command -v dpkg-query >/dev/null || return 0
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q "install ok installed" || echo "$p"
	done
}

install_packages() {
	local missing req_missing

	mapfile -t missing < <(missing_packages "${required[@]}" "${wanted[@]}")
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		echo "build-perf: installing ${missing[*]}" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update
		apt-get install -y --no-install-recommends "${missing[@]}"
		return
	fi
	req_missing=$(missing_packages "${required[@]}")
	[ -z "$req_missing" ] ||
		die "missing packages (install as root): ${missing[*]}"
	echo "build-perf: warning: missing ${missing[*]}: perf will lack features" >&2
}

# The files the patches create or change, relative to the source top.
patched_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@"
}

# What a source tree was given: the tarball's files, then the sum of each
# of @patchfiles, one a line.
patch_sums() {
	local p

	basename "$pristine"
	for p in "${patchfiles[@]}"; do
		[ -s "$p" ] || continue
		sha256sum <"$p" | cut -d' ' -f1
	done
}

# The key of what this build makes: the stamp but for the patch, and the
# files the patches change, as they are now in the source tree.  The
# series' first step and stock perf have the same, and so do its last step
# and the combined patch.
tree_key() {
	local f

	{
		sed '/^patch /d' <<<"$stamp"
		patched_files "${patchfiles[@]}" | sort -u | while read -r f; do
			if [ -e "$srcdir/$f" ]; then
				printf '%s %s\n' "$(sha256sum <"$srcdir/$f" |
					cut -d' ' -f1)" "$f"
			else
				printf 'absent %s\n' "$f"
			fi
		done
	} | sha256sum | cut -d' ' -f1
}

# perf and its test's provider from @1, a build's object directory or a
# stored one, into @outdir, with its stamp
install_perf() {
	rm -f "$outdir/perf" "$outdir/.stamp"
	cp "$1/perf" "$outdir/perf"
	# the provider of perf test 'Symbol providers', found beside perf
	rm -rf "$outdir/tests/symprov"
	if [ -d "$1/tests/symprov" ]; then
		mkdir -p "$outdir/tests"
		cp -r "$1/tests/symprov" "$outdir/tests/symprov"
	fi
	echo "$stamp" >"$outdir/.stamp"
}

install_packages
tarball=$(perf_source_tarball) || die "no $source_package source"
[ -r "$tarball" ] || die "$tarball not found"
for p in "${patchfiles[@]}"; do
	[ -r "$p" ] || die "$p not found: run 'make ${combined#"$top"/}'"
done

stamp=$(printf 'source %s\npatch %s\nmake %s\n' \
	"$(perf_source_version "$tarball")" \
	"$(cat "${patchfiles[@]}" | sha256sum | cut -d' ' -f1)" \
	"${makevars[*]} ${LDFLAGS:-}")
if [ -z "$force" ] && [ -x "$outdir/perf" ] && [ -f "$outdir/.stamp" ] &&
	[ "$(cat "$outdir/.stamp")" = "$stamp" ]; then
	echo "build-perf: ${outdir#"$top"/}/perf is up to date" >&2
	exit 0
fi

# Objects of another source or other make variables are not reused: the
# sources keep the tarball's time stamps, which may be older than they are.
# (Stamps of earlier builds have a libsymprov line: it does not count.)
if [ -f "$objdir/.stamp" ] &&
	[ "$(sed '/^patch /d;/^libsymprov /d' "$objdir/.stamp")" != \
		"$(sed '/^patch /d' <<<"$stamp")" ]; then
	rm -rf "$objdir"
fi
mkdir -p "$outdir" "$objdir"

# The source: a fresh copy, or with -k the tree of the build before,
# given the patches it lacks
pristine=$(perf_source_tree "$tarball") ||
	die "cannot extract $(basename "$tarball")"
mapfile -t given < <(patch_sums)
applied=0
if [ -n "$keep" ] && [ -f "$srcdir/.symprov-patches" ] &&
	[ "$(printf '%s\n' "${given[@]}" |
		head -n "$(wc -l <"$srcdir/.symprov-patches")")" = \
		"$(cat "$srcdir/.symprov-patches")" ]; then
	applied=$(($(wc -l <"$srcdir/.symprov-patches") - 1))
else
	rm -rf "$srcdir"
	cp -a "$pristine" "$srcdir"
fi
# a tree a patch failed on is copied afresh the next time
rm -f "$srcdir/.symprov-patches"
nonempty=()
for p in "${patchfiles[@]}"; do
	[ -s "$p" ] && nonempty+=("$p")
done
for p in "${nonempty[@]:$applied}"; do
	patch -p1 -s -F0 -N --no-backup-if-mismatch -r - -d "$srcdir" <"$p" ||
		die "${p##*/} does not apply to $(basename "$tarball")"
done
printf '%s\n' "${given[@]}" >"$srcdir/.symprov-patches"

# The same tree built before, by another step or target: its perf
store=$top/build/perf-store/$(tree_key)
if [ -z "$force" ] && [ -x "$store/perf" ]; then
	install_perf "$store"
	echo "build-perf: ${outdir#"$top"/}/perf is the one built from the" \
		"same tree (${store#"$top"/})" >&2
	exit 0
fi

# What a patch ever changed in this object directory is rebuilt when it
# is not what the last build here compiled (a patch more, or one less);
# the rest gets the tarball's time back, which patch(1) took from it: a
# step of the series then rebuilds what its patch changed, not what every
# patch before it did.  No sums after a failed build: all is rebuilt.
patched_files "${patchfiles[@]}" >>"$objdir/.patched"
sort -u -o "$objdir/.patched" "$objdir/.patched"
while read -r f; do
	if [ -e "$srcdir/$f" ]; then
		printf '%s %s\n' "$(sha256sum <"$srcdir/$f" | cut -d' ' -f1)" "$f"
	else
		printf 'absent %s\n' "$f"
	fi
done <"$objdir/.patched" >"$objdir/.patched-sums.new"
while read -r sum f; do
	[ -e "$srcdir/$f" ] || continue
	if grep -qxF "$sum $f" "$objdir/.patched-sums" 2>/dev/null; then
		touch -r "$srcdir/Makefile" "$srcdir/$f"
	else
		touch "$srcdir/$f"
	fi
done <"$objdir/.patched-sums.new"
rm -f "$objdir/.patched-sums"

rm -f "$outdir/perf" "$outdir/.stamp"
make -C "$srcdir/tools/perf" O="$objdir" -j"$(nproc)" "${makevars[@]}"
mv "$objdir/.patched-sums.new" "$objdir/.patched-sums"
echo "$stamp" >"$objdir/.stamp"
install_perf "$objdir"
# for a build of the same tree, elsewhere
rm -rf "$store.tmp"
mkdir -p "$store.tmp"
cp -a "$outdir/perf" "$store.tmp/perf"
if [ -d "$outdir/tests/symprov" ]; then
	mkdir -p "$store.tmp/tests"
	cp -r "$outdir/tests/symprov" "$store.tmp/tests/symprov"
fi
rm -rf "$store"
mv -T "$store.tmp" "$store"
echo "build-perf: built ${outdir#"$top"/}/perf" >&2
