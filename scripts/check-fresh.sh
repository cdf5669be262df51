#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The README's set-up on a fresh Debian 12: debootstrap bookworm into ROOT,
# clone this repository into it and run the two commands there.
#
#   scripts/check-fresh.sh [-c CACHE] [-m MIRROR] [-M SECURITY_MIRROR]
#                          [-s STEPS] [-r REV] [-R] ROOT
#
#   ROOT      a new or empty directory outside the tree; it gets a Debian
#             12 minbase root (2.5 GB after `make check`) and is kept
#   -c CACHE  keep the downloaded .deb files in CACHE (debootstrap's
#             --cache-dir and the root's apt archives) for the next run
#   -m, -M    Debian and Debian security mirrors (default: those of this
#             machine's apt sources, scripts/debian-mirror.sh)
#   -s STEPS  what to run, in order (default "nonroot demo check"):
#               nonroot  `make -j2 demo` and `make -j2 check` as nobody
#                        before anything is installed: each must fail,
#                        build nothing and say which command to run
#               demo     `make demo` as root: passes, and installs the
#                        packages before the first compile
#               check    `make check` as root: the same
#   -r REV    the commit to clone (default HEAD: commit your changes first)
#   -R        reuse ROOT from an earlier run, skipping debootstrap and the
#             clone (to look into a failed step; not a fresh machine)
#
# The root is what a standard Debian 12 has: minbase, the apt sources of an
# install (bookworm, bookworm-updates, bookworm-security: linux-source-6.12
# is only in the last), and, as in a container, a policy-rc.d so packages
# start no services.  Only `make` is installed by hand: the README's
# commands need it, as they need git or a tarball to get the source; the
# rest must come from `make demo` and `make check`.
#
# Inside: /proc, /sys, /dev (with /dev/pts) and tmpfs on /dev/shm and /run,
# mounted in a private mount namespace: they are unmounted on every exit
# and cannot outlive it.  Each step runs with ROOT as the root of a mount
# namespace of its own, as in a container (in_root() says why not a plain
# chroot); processes left in them are stopped at the end.  Each step's
# output goes to ROOT/var/log/check-fresh/STEP.log.  Needs root,
# debootstrap, git, unshare and pivot_root.  Ends with "fresh: N passed, N
# failed"; exit 0 when every step passed.
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=
mirror=
secmirror=
steps="nonroot demo check"
rev=HEAD
reuse=
src=/srv/symprov
inpath=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

die() {
	echo "check-fresh: $*" >&2
	exit 1
}
usage() {
	die "usage: check-fresh.sh [-c CACHE] [-m MIRROR] [-M SECURITY_MIRROR] [-s STEPS] [-r REV] [-R] ROOT"
}

args=("$@")
while getopts "c:m:M:s:r:R" opt; do
	case $opt in
	c) cache=$OPTARG ;;
	m) mirror=$OPTARG ;;
	M) secmirror=$OPTARG ;;
	s) steps=$OPTARG ;;
	r) rev=$OPTARG ;;
	R) reuse=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
[ -n "$mirror" ] || mirror=$(bash "$top/scripts/debian-mirror.sh") || exit 1
[ -n "$secmirror" ] || secmirror=$(bash "$top/scripts/debian-mirror.sh" -s) ||
	exit 1

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, namespaces, mounts)"
for t in debootstrap git unshare pivot_root findmnt; do
	command -v "$t" >/dev/null || die "$t not found"
done
for s in $steps; do
	case $s in
	nonroot | demo | check) ;;
	*) die "unknown step '$s' (nonroot, demo, check)" ;;
	esac
done

mkdir -p "$1"
root=$(cd "$1" && pwd -P)
[[ $root != *[[:space:]]* ]] || die "$root: no spaces in ROOT, please"
[ "$root" != / ] || die "ROOT cannot be /"
case $root/ in
"$top"/*) die "$root is inside the tree: put it outside" ;;
esac
if [ -n "$cache" ]; then
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd -P)
fi

# Everything below runs in a private mount namespace: its mounts vanish
# with it, whatever ends the script.
if [ "${CHECK_FRESH_NS:-}" != "$root" ]; then
	export CHECK_FRESH_NS=$root
	exec unshare --mount --propagation private -- \
		bash "${BASH_SOURCE[0]}" "${args[@]}"
fi

logdir=$root/var/log/check-fresh
nsfile=$root/run/check-fresh.ns
passed=0
failed=0

# The mounts under ROOT, deepest first.
mounts_under_root() {
	findmnt -rn -o TARGET |
		awk -v r="$root" '$0 == r || index($0, r "/") == 1' | sort -r
}

# Processes in the mount namespaces in_root made: only this script
# starts any.
procs_in_root() {
	local p

	[ -s "$nsfile" ] || return 0
	for p in /proc/[0-9]*; do
		grep -qxF "$(readlink "$p/ns/mnt" 2>/dev/null)" "$nsfile" &&
			echo "${p#/proc/}"
	done
	return 0
}

cleanup() {
	local rc=$? m pids

	pids=$(procs_in_root | tr "\n" " ")
	if [ -n "$pids" ]; then
		echo "check-fresh: stopping processes left in the root: $pids" >&2
		# shellcheck disable=SC2086 # one pid per word
		kill -KILL $pids 2>/dev/null || true
		sleep 1
	fi
	for m in $(mounts_under_root); do
		umount "$m" 2>/dev/null || umount -l "$m" ||
			echo "check-fresh: cannot unmount $m" >&2
	done
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

bootstrap() {
	local cache_opt=()

	[ -z "$(ls -A "$root")" ] ||
		die "$root is not empty (a fresh root needs an empty directory; -R reuses one)"
	[ -z "$cache" ] || cache_opt=(--cache-dir="$cache")
	echo "check-fresh: debootstrap --variant=minbase bookworm $root $mirror"
	debootstrap --variant=minbase "${cache_opt[@]}" bookworm "$root" \
		"$mirror" >"$root.debootstrap.log" 2>&1 ||
		die "debootstrap failed: $(tail -5 "$root.debootstrap.log")"
	mv "$root.debootstrap.log" "$root/var/log/debootstrap.log"

	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<-EOF
		Types: deb
		URIs: $mirror
		Suites: bookworm bookworm-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb
		URIs: $secmirror
		Suites: bookworm-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"

	local sha
	sha=$(git -C "$top" rev-parse --verify "$rev^{commit}")
	[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
		echo "check-fresh: warning: uncommitted changes are not in the clone" >&2
	echo "check-fresh: git clone $top -> $src at $sha"
	git clone --quiet --no-checkout "$top" "$root$src"
	git -C "$root$src" checkout --quiet --detach "$sha"
}

mount_all() {
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
	mount -t tmpfs -o mode=755 tmpfs "$root/run"
	mkdir -p "$root/run/lock"
	[ -z "$cache" ] || mount --bind "$cache" "$root/var/cache/apt/archives"
}

# in_root root|nobody COMMAND: a login's clean environment, in the clone.
# ROOT becomes the root of a mount namespace of its own (pivot_root), as in
# a container: a plain chroot does not hold for perf, which after reading
# the files of a process of another mount namespace setns()es back into
# its own, and that resets its root to the namespace's, outside a chroot.
in_root() {
	local spec=root:root home=/root

	[ "$1" = root ] || spec=nobody:nogroup home=/nonexistent
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare --mount --propagation private -- /bin/sh -ec '
		mount --rbind "$1" "$1"
		cd "$1"
		mkdir -p .old-root
		pivot_root . .old-root
		umount -l /.old-root
		rmdir /.old-root || true
		readlink /proc/self/ns/mnt >>/run/check-fresh.ns
		spec=$2
		shift 2
		exec chroot --userspec="$spec" / "$@"' sh "$root" "$spec" \
		/usr/bin/env -i HOME="$home" PATH="$inpath" \
		LANG=C.UTF-8 TERM=dumb SHELL=/bin/bash \
		/bin/bash -c "cd $src && $2" </dev/null
}

# run_step NAME USER COMMAND: output to the log NAME.log.
run_step() {
	local name=$1 log=$logdir/$1.log t0 rc=0

	echo "check-fresh: [$name] $3 (as $2; log $log)"
	t0=$(date +%s)
	# in the background: a signal's trap runs at once, not after the step
	in_root "$2" "$3" >"$log" 2>&1 &
	wait $! || rc=$?
	echo "check-fresh: [$name] exit $rc after $(($(date +%s) - t0)) s"
	return $rc
}

verdict() {  # NAME OK? WHY
	if [ "$2" = 1 ]; then
		passed=$((passed + 1))
		echo "PASS $1${3:+: $3}"
	else
		failed=$((failed + 1))
		echo "FAIL $1${3:+: $3}"
		[ ! -s "$logdir/$1.log" ] || tail -n 25 "$logdir/$1.log" | sed 's/^/  | /'
	fi
}

# Without root, before anything is installed: a clear stop, nothing built.
step_nonroot() {
	local goal name log ok why rc

	if [ "$(chroot "$root" dpkg-query -W -f='${Status}' gcc 2>/dev/null)" = \
		"install ok installed" ]; then
		verdict nonroot 0 "gcc is installed already: not a fresh root"
		return
	fi
	for goal in demo check; do
		name=nonroot-$goal log=$logdir/nonroot-$goal.log ok=1 rc=0
		why="stops, says \"run 'sudo make $goal'\" and what is missing"
		# -j2: parallel make must not start a compile either
		run_step "$name" nobody "make -j2 $goal" || rc=$?
		sed 's/^/  | /' "$log"
		if [ $rc -eq 0 ]; then
			ok=0 why="make $goal exited 0 as nobody"
		elif ! grep -q "run 'sudo make $goal'" "$log" ||
			! grep -q 'missing Debian packages: .*libdw-dev' "$log"; then
			ok=0 why="make $goal did not name the command and the packages"
		elif [ -e "$root$src/build" ] || grep -qE '^(gcc|cc|clang) ' "$log"; then
			ok=0 why="make $goal built something before it stopped"
		fi
		verdict "$name" "$ok" "$why"
	done
}

# Why LOG (of make demo or make check) does not show the packages
# installed before the first compile; nothing when it does.
not_installed_first() {
	local inst cc

	inst=$(grep -n -m1 '^install-deps: installing' "$1" | cut -d: -f1) || true
	cc=$(grep -n -m1 -E '^(gcc|cc|clang) ' "$1" | cut -d: -f1) || true
	if [ -z "$inst" ]; then
		# -R: the packages may be there from the earlier run
		[ -n "$reuse" ] || echo "it installed no package"
		[ -z "$reuse" ] || echo "(-R) nothing to install" >&2
	elif [ -z "$cc" ] || [ "$inst" -gt "$cc" ]; then
		echo "no package install before the first compile (log lines ${inst}, ${cc:-none})"
	fi
}

# `make demo` as root: passes, the packages before the first compile.
step_demo() {
	local ok=1 why="make demo passed, installing its packages first" late

	run_step demo root "make demo" || { ok=0 why="make demo failed"; }
	late=$(not_installed_first "$logdir/demo.log")
	[ $ok = 0 ] || [ -z "$late" ] || ok=0 why="make demo passed, but $late"
	[ $ok = 0 ] || sed -n '/== BEFORE/,$p' "$logdir/demo.log" | sed 's/^/  | /'
	verdict demo "$ok" "$why"
}

step_check() {
	local ok=1 why="make check passed, installing its packages first" late

	run_step check root "make check" || { ok=0 why="make check failed"; }
	late=$(not_installed_first "$logdir/check.log")
	[ $ok = 0 ] || [ -z "$late" ] || ok=0 why="make check passed, but $late"
	grep -E '(^|: )[0-9]+ passed, [0-9]+ failed|^OK|^FAILED|CANNOT RUN' \
		"$logdir/check.log" | sed 's/^/  | /' || true
	verdict check "$ok" "$why"
}

t_start=$(date +%s)
if [ -n "$reuse" ]; then
	[ -d "$root$src" ] || die "$root has no $src: not a root from this script"
else
	bootstrap
fi
mount_all
mkdir -p "$logdir"
echo "check-fresh: apt-get install make (the README's commands need it)"
in_root root "apt-get update -q && apt-get install -y -q --no-install-recommends make" \
	>"$logdir/make.log" 2>&1 ||
	die "installing make failed: $(tail -5 "$logdir/make.log")"
for s in $steps; do
	"step_$s"
done
echo "check-fresh: $root, $(($(date +%s) - t_start)) s"
echo "fresh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
