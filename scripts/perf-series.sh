#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The perf side of symprov: a patch series for tools/perf, kept for two
# perf sources (scripts/perf-source.sh): linux-source-7.3, the main series
# (PERF_VERSION=7.3, the default), and its backport to linux-source-6.12
# (PERF_VERSION=6.12).
#
# Each series' directory holds it in `git format-patch` form, a cover letter
# (0000-cover-letter.patch) and one file per patch: it is the source of the
# perf side.  Its combined patch, the one patch users apply, is made from
# it.  perf opens libsymprov.so.1 at run time, with its own declarations of
# what it calls: no file of the project is in the series.  Below,
# perf-glue/ and perf-glue.patch stand for the chosen series' directory and
# combined patch.
#
# Usage:
#   perf-series.sh checkout DIR  a git tree in DIR (a new directory): the
#                                source files perf needs to build,
#                                tools/ committed as "base", then one commit
#                                per patch
#   perf-series.sh export DIR    write the commits base..HEAD of DIR to
#                                perf-glue/ (cover letter: DIR's branch
#                                description) and perf-glue.patch
#   perf-series.sh refresh       checkout to a temporary tree, then export:
#                                perf-glue.patch made again from perf-glue/
#   perf-series.sh check         apply the series one patch at a time to
#                                pristine tools/, check that export gives
#                                perf-glue/ back, that perf-glue.patch gives
#                                the same tree as the series, and that no
#                                file of lib/ or include/ is in it
#   perf-series.sh build [N]     build perf (scripts/build-perf.sh) with the
#                                first N patches, in build/perf-step-V-N
#                                (V: PERF_VERSION); N
#                                defaults to the patch that hooks into
#                                util/symbol.c
#   perf-series.sh build-each    build perf without the series, then after
#                                each patch, one after the other in one
#                                object directory (build/perf-each-V),
#                                each patch applied on the tree of the
#                                step before
#   perf-series.sh port OLD NEW DIR
#                                merge into DIR's work tree (3-way, by file)
#                                what changed in the tree from the combined
#                                patch OLD to NEW, e.g. perf-glue.patch before
#                                and after a change made on another branch,
#                                list the commit each changed file last came
#                                from
#   perf-series.sh test PERF     run PERF's 'Symbol providers' test
#
# Changing the perf side:
#   scripts/perf-series.sh checkout build/perf-tree
#   cd build/perf-tree
#   ... edit, then `git commit --fixup=COMMIT` and
#   `git rebase -i --autosquash base`, or `git commit` a new patch ...
#   cd -; scripts/perf-series.sh export build/perf-tree
#   make check-perf-glue check-perf-series
# docs/PERF.md ("Changing the perf side") says more.
#
# LINUX_SOURCE_TARBALL overrides the source package's tarball.
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=perf-source.sh
. "$top/scripts/perf-source.sh"

# The patches carry no author: whoever sends them is their author for the
# list and adds the Signed-off-by.  A checkout commits them as the person
# who runs it (their git identity, read before the config is cut off
# below), ready for `git format-patch -s`; export drops the From: again.
sender=$(git config user.name 2>/dev/null || true)
sender_email=$(git config user.email 2>/dev/null || true)
if [ -z "$sender" ] || [ -z "$sender_email" ]; then
	sender="Not yet sent" sender_email=nobody@invalid
fi

# Exports do not depend on who runs this, when, or their git config: the
# same series gives the same files.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
base_date="2024-11-17 00:00:00 +0000"
git_fixed=(-c core.abbrev=12 -c diff.algorithm=myers -c diff.renames=false
	-c format.signature= -c core.autocrlf=false -c am.keepcr=false
	-c commit.gpgsign=false)

die() {
	echo "perf-series.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '/^# Usage:/,/^# Changing/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

g() {
	git -C "$tree" "${git_fixed[@]}" "$@"
}

patches() {
	local f

	for f in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		0000-*) ;;
		*) echo "$f" ;;
		esac
	done
}

# Copy the top directories $2... of the tarball's files into $1, and
# commit tools/ there as "base".
make_base() {
	local dir=$1 tarball source d
	shift

	tarball=$(perf_source_tarball) || die "no $source_package source"
	[ -r "$tarball" ] ||
		die "$tarball not found (apt-get install $source_package)"
	source=$(perf_source_tree "$tarball") ||
		die "cannot extract from $tarball"
	mkdir -p "$dir"
	for d in "$@"; do
		cp -a "$source/$d" "$dir/" || die "no $d in $tarball"
	done
	tree=$dir
	g init -q -b series
	g config user.name "$sender"
	g config user.email "$sender_email"
	# the build-id cache and objects of an in-tree build
	printf '%s\n' "/*" "!/tools/" "*.o" "*.cmd" >"$dir/.git/info/exclude"
	g add tools
	GIT_AUTHOR_NAME=$source_package GIT_AUTHOR_EMAIL=linux@kernel.org \
		GIT_AUTHOR_DATE=$base_date GIT_COMMITTER_DATE=$base_date \
		g commit -q -m "Linux $perf_version tools/ from $source_package" \
		-m "$source_package $(perf_source_version "$tarball")"
	g tag base
}

# Apply the series to the base in $tree, one commit per patch; $1 = check
# to check each commit's message.
apply_series() {
	local mode=$1 p n=0

	while read -r p; do
		n=$((n + 1))
		# git am wants an author: the person who runs this
		sed "1a From: $sender <$sender_email>" "$p" >"$tmp/mail"
		g am -q --committer-date-is-author-date --whitespace=nowarn \
			"$tmp/mail" >"$tmp/am.log" 2>&1 || {
			cat "$tmp/am.log" >&2
			die "${p#"$top"/} does not apply on top of the ones before"
		}
		[ "$mode" = check ] && check_commit "$p"
	done < <(patches)
	echo "$n" >"$tmp/count"
}

# The cover letter's text: subject, blank line, body up to the shortlog.
cover_text() {
	local cover=$series/0000-cover-letter.patch

	[ -f "$cover" ] || return 0
	# the Subject header, folded on several lines
	sed '/^$/q' "$cover" | awk '
		/^Subject: / { s = $0; sub(/^Subject: \[PATCH[^]]*\] /, "", s); on = 1; next }
		on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
		{ on = 0 }
		END { print s }'
	echo
	sed '1,/^$/d' "$cover" | sed '/^[^ ].* ([0-9]*):$/,$d' | sed '$d'
}

do_checkout() {
	local dir=$1

	[ ! -e "$dir" ] || die "$dir exists"
	make_base "$dir" Makefile arch include kernel lib scripts tools
	apply_series plain
	g config branch.series.description "$(cover_text)"
	echo "perf-series.sh: $(cat "$tmp/count") patches on top of base in $dir" >&2
}

# The combined patch of the tree's base..HEAD on stdout.
combined_patch() {
	cat <<-EOF
	SPDX-License-Identifier: GPL-2.0
	${combined##*/}: symbol providers (symprov) for perf, $source_package.

	The patches of ${series##*/}/ in one, made by scripts/perf-series.sh: do not
	edit, see docs/PERF.md.  Apply with 'patch -p1' in the top directory of
	the kernel source.

	EOF
	g diff --no-color --no-ext-diff --no-renames base HEAD
}

# format-patch base..HEAD of $tree into $1.
format_series() {
	local out=$1 last_date files f

	g format-patch -q --zero-commit --no-signature --no-renames \
		--cover-letter --cover-from-description=subject -o "$out" \
		base..HEAD >/dev/null
	# no author (see $sender), and the cover letter's shortlog under no name
	for f in "$out"/*.patch; do
		awk 'head && /^$/ { head = 0 }
			head && /^From: / { skip = 1; next }
			skip && /^[ \t]/ { next }
			{ skip = 0; print }' head=1 "$f" >"$tmp/unsent"
		mv "$tmp/unsent" "$f"
	done
	sed -i -E 's/^[^ ].* \(([0-9]+)\):$/Patches (\1):/' \
		"$out"/0000-cover-letter.patch
	# the cover letter is dated like the last patch, not now
	files=("$out"/*.patch)
	last_date=$(sed -n 's/^Date: //p' "${files[-1]}" | head -n1)
	sed -i "0,/^Date: /s/^Date: .*/Date: $last_date/" \
		"$out"/0000-cover-letter.patch
	if grep -q '\*\*\* SUBJECT HERE \*\*\*' "$out"/0000-cover-letter.patch; then
		die "no cover letter text: git -C $tree branch --edit-description"
	fi
}

do_export() {
	local dir=$1 f files

	tree=$(cd "$dir" && pwd)
	g rev-parse -q --verify base >/dev/null || die "$dir has no base tag"
	if ! g diff --quiet HEAD || ! g diff --cached --quiet; then
		die "$dir has uncommitted changes"
	fi
	format_series "$tmp/out"
	mkdir -p "$series"
	# unchanged files keep their time stamps, gone ones go
	for f in "$series"/*.patch; do
		[ ! -e "$f" ] || [ -e "$tmp/out/${f##*/}" ] || rm "$f"
	done
	for f in "$tmp/out"/*.patch; do
		cmp -s "$f" "$series/${f##*/}" || cp "$f" "$series/"
	done
	combined_patch >"$tmp/combined"
	cmp -s "$tmp/combined" "$combined" || cp "$tmp/combined" "$combined"
	# newer than the series, for make
	touch "$combined"
	files=("$tmp/out"/*.patch)
	echo "perf-series.sh: wrote ${series#"$top"/}/ (${#files[@]} files)" \
		"and ${combined#"$top"/}" >&2
}

# What a patch needs to be reviewed: a subject in perf's style and a
# message that says what and why.
check_commit() {
	local p=${1#"$top"/} subject body

	subject=$(g log -1 --format=%s)
	body=$(g log -1 --format=%b | grep -cv '^[[:space:]]*$' || true)
	[[ $subject =~ ^perf\ [a-z\ -]+:\ [A-Z] ]] ||
		die "$p: subject '$subject' is not 'perf <area>: <What>'"
	[ "$body" -ge 3 ] || die "$p: the commit message says too little"
}

do_check() {
	local n

	make_base "$tmp/series" tools scripts include
	apply_series check
	n=$(cat "$tmp/count")
	[ "$n" -gt 0 ] || die "no patch in ${series#"$top"/}"
	echo "perf-series.sh: $n patches apply one after the other" >&2
	check_no_copy
	check_budget
	check_style
	check_locks
	check_no_libsymprov_build

	# The series is in the form export writes: nothing is lost by a
	# checkout and export.
	g config branch.series.description "$(cover_text)"
	format_series "$tmp/out"
	if ! diff -r "$tmp/out" "$series" >"$tmp/diff"; then
		head -n 40 "$tmp/diff" >&2
		die "${series#"$top"/}/ is not what export gives: checkout and export it"
	fi

	combined_patch >"$tmp/combined"
	if ! cmp -s "$tmp/combined" "$combined"; then
		die "${combined#"$top"/} is stale: run 'make ${combined#"$top"/}'"
	fi
	# patch(1), as users apply it, gives the series' tree
	mkdir "$tmp/pristine"
	g archive base | tar -x -C "$tmp/pristine"
	patch -p1 -s -F0 -N --no-backup-if-mismatch -r - -d "$tmp/pristine" \
		<"$combined" || die "${combined#"$top"/} does not apply"
	rm -rf "$tmp/series-tree"
	mkdir "$tmp/series-tree"
	g archive HEAD | tar -x -C "$tmp/series-tree"
	diff -r --no-dereference "$tmp/pristine" "$tmp/series-tree" >&2 ||
		die "${combined#"$top"/} and the series give different trees"
	echo "perf-series.sh: ${combined#"$top"/} gives the series' tree" >&2
	echo "perf series: $n patches, no copy of lib/, combined patch equal"
}

# No file of lib/ or include/ is in the series, under any name: perf links
# libsymprov instead.
check_no_copy() {
	local f added bad=0

	added=$(g diff --name-only --diff-filter=A base HEAD)
	for f in "$top"/lib/*.[ch] "$top"/include/*.h; do
		while read -r a; do
			[ -n "$a" ] || continue
			if cmp -s "$f" "$tree/$a"; then
				echo "perf-series.sh: $a is a copy of ${f#"$top"/}" >&2
				bad=1
			fi
		done <<<"$added"
	done
	[ $bad -eq 0 ] || die "the series carries files of the project"
	echo "perf-series.sh: no file of lib/ or include/ in the series" >&2
}

# Lines a range of the series adds outside Documentation/ and tests/: all,
# or (with "existing") in files base already has.
added_lines() {
	local paths=(tools ':!tools/perf/Documentation' ':!tools/perf/tests')

	if [ "${3:-}" = existing ]; then
		mapfile -t paths < <(g diff --name-only --diff-filter=M "$1" "$2" \
			-- "${paths[@]}")
		[ ${#paths[@]} -gt 0 ] || { echo 0; return; }
	fi
	g diff --numstat "$1" "$2" -- "${paths[@]}" |
		awk '{ n += $1 } END { print n + 0 }'
}

# Two series: perf's own fixes, then the symbol providers, from the first
# patch that adds a file named *symprov*.  The providers' part stays small:
# at most 1,160 lines outside Documentation/ and tests/, 250 of them in
# files perf has.  The aim is 1,000: the prefetch from perf 7's MMAP2
# events, the debug info of stripped objects, checkpatch's --strict, the
# sort keys' DWARF flag, --debuginfod[=URLs], the asking moved out of
# dso__load(), the keys read in perf, libsymprov opened at run time (the
# declarations of what perf calls, symprov-lib.h) and perf c2c report
# asking took it to 1,338; the requests noted in libsymprov (LIBSYMPROV_1.2)
# rather than in a table of perf's, the providers loaded on the main thread
# before the events, and perf's message window wrapping its own lines
# brought it back to 1,198; the providers always built in (no build
# switch, no stubs) and loaded by the tools' step alone (no
# symbol_conf.symprov) to 1,150.
check_budget() {
	local c first="" all existing fixes

	for c in $(g rev-list --reverse base..HEAD); do
		if g diff --name-only --diff-filter=A "$c~1" "$c" |
			grep -q symprov; then
			first=$c
			break
		fi
	done
	[ -n "$first" ] || die "no patch adds the symbol providers' files"
	fixes=$(added_lines base "$first~1")
	all=$(added_lines "$first~1" HEAD)
	existing=$(added_lines "$first~1" HEAD existing)
	echo "perf-series.sh: the fixes add $fixes lines; the symbol" \
		"providers $all, $existing in perf's files (outside" \
		"Documentation/ and tests/)" >&2
	[ "$all" -le 1160 ] && [ "$existing" -le 250 ] ||
		die "the symbol providers' series is over 1,160 lines, or 250 in perf's files"
}

# The kernel's checkpatch.pl --strict, from the source package, clean on
# every patch, but for what it cannot know outside a git tree of the
# kernel (the commits a Fixes: names, MAINTAINERS), the Signed-off-by the
# sender adds (see $sender), the CamelCase of libelf's types and
# <inttypes.h>'s macros, which perf's code uses, and 6.12's advice to
# use strscpy(), which tools/ defines as strcpy().
check_style() {
	local p out bad=0

	while read -r p; do
		out=$(cd "$tmp/series" && perl scripts/checkpatch.pl --strict \
			--no-tree --root=. -q --no-summary --show-types \
			--ignore MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID \
			--ignore FILE_PATH_CHANGES,CAMELCASE,STRLCPY "$p" 2>&1) || true
		if [ -n "$out" ]; then
			echo "${p#"$top"/}:" >&2
			echo "$out" >&2
			bad=1
		fi
	done < <(patches)
	[ $bad -eq 0 ] || die "checkpatch.pl --strict is not clean (above)"
	echo "perf-series.sh: checkpatch.pl --strict clean on every patch" >&2
}

# dso__load() holds dso->lock and the symbol providers never run under it:
# no patch drops it, or silences clang's lock checks to.
check_locks() {
	local bad

	bad=$(patches | xargs grep -nE \
		'^\+.*(NO_THREAD_SAFETY_ANALYSIS|mutex_unlock\(dso__lock\()' ||
		true)
	[ -z "$bad" ] || die "a patch drops dso->lock or silences the lock checks: $bad"
	echo "perf-series.sh: no patch drops dso->lock or silences the lock checks" >&2
}

# perf opens libsymprov at run time with its own declarations: no header of
# the library, no link (the man page's examples aside).
check_no_libsymprov_build() {
	local bad

	bad=$(patches | xargs awk '/^\+\+\+ b\// { f = $2 }
		/^\+/ && f !~ /Documentation\// &&
		/#include <(lib)?symprov\.h>|-lsymprov/ { print f ": " $0 }')
	[ -z "$bad" ] || die "perf needs libsymprov to build: $bad"
	echo "perf-series.sh: perf builds without libsymprov" >&2
}

# Build perf after each patch, in one object directory: each step builds.
do_build_each() {
	local out=$top/build/perf-each-$perf_version p n=0 args=()

	# stock perf first: the tree each patch is applied on (and, kept by
	# build-perf.sh, the stock perf of the other checks); the last step
	# is the combined patch's perf, which make perf then takes
	echo "perf-series.sh: building perf without the series" >&2
	bash "$top/scripts/build-perf.sh" -k -o "$out" -a none ||
		die "perf does not build without the series"
	while read -r p; do
		n=$((n + 1))
		args+=(-a "$p")
		echo "perf-series.sh: building perf with patches 1-$n," \
			"up to ${p##*/}" >&2
		bash "$top/scripts/build-perf.sh" -k -o "$out" "${args[@]}" ||
			die "perf does not build with patches 1-$n (${p##*/})"
	done < <(patches)
	echo "perf series: perf builds without the series and after each of" \
		"its $n patches"
}

# The first patch that changes util/symbol.c: where perf starts asking.
hook_patch() {
	local p n=0

	while read -r p; do
		n=$((n + 1))
		if grep -q '^+++ b/tools/perf/util/symbol\.c$' "$p"; then
			echo $n
			return
		fi
	done < <(patches)
	die "no patch changes tools/perf/util/symbol.c"
}

do_build() {
	local n=${1:-$(hook_patch)} args=() p

	[[ $n =~ ^[1-9][0-9]*$ ]] || die "not a patch number: $n"
	mapfile -t p < <(patches | head -n "$n")
	[ ${#p[@]} -eq "$n" ] || die "the series has fewer than $n patches"
	for f in "${p[@]}"; do
		args+=(-a "$f")
	done
	echo "perf-series.sh: building perf with patches 1-$n," \
		"up to ${p[-1]##*/}" >&2
	bash "$top/scripts/build-perf.sh" -o "$top/build/perf-step-$perf_version-$n" \
		"${args[@]}"
}

do_port() {
	local old=$1 new=$2 dir=$3 entry f rc conflicts=0

	tree=$(cd "$dir" && pwd)
	g rev-parse -q --verify base >/dev/null || die "$dir has no base tag"
	g diff --quiet HEAD || die "$dir has uncommitted changes"
	mkdir "$tmp/old" "$tmp/new"
	g archive base | tar -x -C "$tmp/old"
	g archive base | tar -x -C "$tmp/new"
	patch -p1 -s -F0 -N --no-backup-if-mismatch -r - -d "$tmp/old" <"$old" ||
		die "$old does not apply to base"
	patch -p1 -s -F0 -N --no-backup-if-mismatch -r - -d "$tmp/new" <"$new" ||
		die "$new does not apply to base"
	(cd "$tmp/old" && find . -type f; cd "$tmp/new" && find . -type f) |
		sed 's|^\./||' | sort -u >"$tmp/files"
	: >"$tmp/ported"
	while read -r f; do
		cmp -s "$tmp/old/$f" "$tmp/new/$f" && continue
		echo "$f" >>"$tmp/ported"
		if [ ! -e "$tmp/new/$f" ]; then
			g rm -q --ignore-unmatch -- "$f"
		elif [ ! -e "$tree/$f" ]; then
			mkdir -p "$(dirname "$tree/$f")"
			cp "$tmp/new/$f" "$tree/$f"
		else
			[ -e "$tmp/old/$f" ] || : >"$tmp/old/$f"
			# 3-way: the series' file, what the change started from,
			# what it made of it
			rc=0
			git merge-file -L series -L before -L after "$tree/$f" \
				"$tmp/old/$f" "$tmp/new/$f" || rc=$?
			[ $rc -lt 128 ] || die "merge of $f failed"
			if [ $rc -gt 0 ]; then
				echo "perf-series.sh: $f: $rc conflicts" >&2
				conflicts=$((conflicts + rc))
			fi
		fi
	done <"$tmp/files"
	if [ ! -s "$tmp/ported" ]; then
		echo "perf-series.sh: no change to port" >&2
		return
	fi
	echo "perf-series.sh: merged into the work tree of $dir, by file with" \
		"the last commit that touched it:" >&2
	while read -r f; do
		printf '  %-44s %s\n' "$f" \
			"$(g log -1 --format='%h %s' base.. -- "$f" | cut -c1-60)"
	done <"$tmp/ported" >&2
	[ $conflicts -eq 0 ] || die "$conflicts conflicts to resolve in $dir"
}

do_test() {
	local perf=$1 out nr

	[ -x "$perf" ] || die "$perf is not a perf binary"
	# by number: perf 6.12 runs a test of several cases by name only
	# where the name matches each case's own
	nr=$("$perf" test list 2>&1 |
		sed -n 's/^ *\([0-9]*\): Symbol providers$/\1/p')
	[ -n "$nr" ] || die "$perf has no 'Symbol providers' test"
	out=$("$perf" test "$nr" 2>&1) || true
	echo "$out"
	# its cases, each "N.M: what : Ok"; none failed or skipped
	if ! grep -qE '^ *[0-9]+\.[0-9]+: .*: Ok$' <<<"$out" ||
		grep -qE '^ *[0-9]+(\.[0-9]+)?: .*: (FAILED|Skip)' <<<"$out"; then
		"$perf" test -v "$nr" 2>&1 | tail -n 60 >&2 || true
		die "perf test 'Symbol providers' did not pass"
	fi
}

case "${1:-}" in
checkout)
	[ $# -eq 2 ] || usage
	do_checkout "$2"
	;;
export)
	[ $# -eq 2 ] || usage
	do_export "$2"
	;;
refresh)
	[ $# -eq 1 ] || usage
	do_checkout "$tmp/tree"
	do_export "$tmp/tree"
	;;
check)
	[ $# -eq 1 ] || usage
	do_check
	;;
build)
	[ $# -le 2 ] || usage
	do_build "${2:-}"
	;;
build-each)
	[ $# -eq 1 ] || usage
	do_build_each
	;;
port)
	[ $# -eq 4 ] || usage
	do_port "$2" "$3" "$4"
	;;
test)
	[ $# -eq 2 ] || usage
	do_test "$2"
	;;
*)
	usage
	;;
esac
