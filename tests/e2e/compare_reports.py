#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare `perf report --stdio --sort dso,sym` outputs (the e2e oracle).

    compare_reports.py EXPECTED ACTUAL [--kallsyms FILE] [--kernel-only]
    compare_reports.py --expect-raw-kernel REPORT

EXPECTED is typically the original profile reported with kallsyms, ACTUAL
the moved profile reported with the stand-in vmlinux (or with a vmlinux a
symbol provider fetched).  Every kernel ([k]) entry EXPECTED resolved must
resolve to the same symbol up to aliases (names sharing an address in
--kallsyms), with the same overhead (and samples/period when those columns
are present, e.g. with -F overhead,sample,period,dso,sym).  A kernel entry
EXPECTED left a raw address (`[k] 0xffff...`: code outside the vmlinux,
BPF programs, trampolines, modules without symbols, common on real hosts)
must be the same raw address in ACTUAL, with the same overhead; any other
raw kernel address in ACTUAL fails, and so does an EXPECTED with no
resolved kernel entry (the comparison would say nothing).  Non-kernel
entries must match exactly (the samples are the same, only the kernel
build ID differs), unless --kernel-only.

--expect-raw-kernel checks the "before" state: the report has kernel samples
and none of them resolved to a symbol.

Exit status 0 when the check holds, 1 when not, 2 on usage/parse errors.
Also importable: parse_report(), compare(), check_raw_kernel().
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import alias_map  # noqa: E402

LINE_RE = re.compile(
    r"^\s*(?P<pct>-?\d+(?:\.\d+)?)%\s+"
    r"(?P<nums>(?:\d+\s+)*)"
    r"(?P<dso>\S.*?)\s+"
    r"\[(?P<lvl>[^\]])\]\s+"
    r"(?P<sym>.*?)\s*$")
RAW_RE = re.compile(r"^0x[0-9a-f]+$")
KERNEL_LEVELS = ("k", "g")


class Entry:
    __slots__ = ("pct", "nums", "dso", "lvl", "sym", "line")

    def __init__(self, pct, nums, dso, lvl, sym, line):
        self.pct, self.nums, self.dso = pct, nums, dso
        self.lvl, self.sym, self.line = lvl, sym, line

    @property
    def kernel(self):
        return self.lvl in KERNEL_LEVELS

    @property
    def raw(self):
        return RAW_RE.match(self.sym) is not None

    def __repr__(self):
        return "Entry(%r)" % self.line


def parse_report(text):
    """Entries of a --stdio report; comment and blank lines are skipped.
    Raises ValueError on a line that is neither."""
    entries = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = LINE_RE.match(line)
        if not m:
            raise ValueError("unparsable report line: %r" % line)
        nums = tuple(int(x) for x in m.group("nums").split())
        entries.append(Entry(float(m.group("pct")), nums, m.group("dso"),
                             m.group("lvl"), m.group("sym"), line.rstrip()))
    return entries


def _canon(sym, aliases):
    base, sep, off = sym.partition("+0x")  # STT_OBJECT: name+0xoff
    group = aliases.get(base) if aliases else None
    if group:
        base = min(group)
    return base + sep + off


def _aggregate(entries, aliases, kernel_only):
    agg = {}
    for e in entries:
        if kernel_only and not e.kernel:
            continue
        sym = _canon(e.sym, aliases) if e.kernel else e.sym
        key = (e.dso, e.lvl, sym)
        pct, nums, n, names = agg.get(key, (0.0, None, 0, set()))
        if e.nums:
            nums = tuple(a + b for a, b in zip(nums or (0,) * len(e.nums),
                                               e.nums))
        names.add(e.sym)
        agg[key] = (pct + e.pct, nums, n + 1, names)
    return agg


def compare(expected, actual, aliases=None, kernel_only=False):
    """Problems (list of strings) between two parsed reports."""
    problems = []
    kexp = [e for e in expected if e.kernel]
    if not kexp:
        problems.append("expected report has no kernel samples")
    elif all(e.raw for e in kexp):
        problems.append("expected report has no resolved kernel samples: "
                        "the comparison would say nothing")
    # What the expected report left unresolved (code outside the vmlinux:
    # BPF, trampolines, modules without symbols) may stay so, the same.
    raw_exp = {(e.dso, e.lvl, e.sym) for e in kexp if e.raw}
    raw_act = [e for e in actual if e.kernel and e.raw and
               (e.dso, e.lvl, e.sym) not in raw_exp]
    if raw_act:
        problems.append("actual report has %d unresolved kernel entries "
                        "(%.2f%%) the expected one does not have, e.g. %s"
                        % (len(raw_act), sum(e.pct for e in raw_act),
                           raw_act[0].line))
    a = _aggregate(expected, aliases, kernel_only)
    b = _aggregate(actual, aliases, kernel_only)
    for key in sorted(set(a) | set(b)):
        if key not in b:
            problems.append("missing in actual: %s [%s] %s (%.2f%%)"
                            % (key[0], key[1], key[2], a[key][0]))
            continue
        if key not in a:
            problems.append("extra in actual: %s [%s] %s (%.2f%%)"
                            % (key[0], key[1], key[2], b[key][0]))
            continue
        pa, na, ca, namesa = a[key]
        pb, nb, cb, namesb = b[key]
        # each printed percentage is rounded to 0.01
        tol = 0.005 * (ca + cb) + 1e-9
        if na is not None and nb is not None and na != nb:
            problems.append("%s [%s] %s: samples/period %s != %s"
                            % (key[0], key[1], key[2], na, nb))
        elif abs(pa - pb) > tol:
            problems.append("%s [%s] %s: overhead %.2f%% != %.2f%%"
                            % (key[0], key[1], key[2], pa, pb))
    return problems


def check_raw_kernel(entries):
    """Problems for the 'before' state: kernel samples, none resolved."""
    k = [e for e in entries if e.kernel]
    if not k:
        return ["report has no kernel samples"]
    resolved = [e for e in k if not e.raw]
    if resolved:
        return ["%d kernel entries resolved although no symbols should be "
                "found, e.g. %s" % (len(resolved), resolved[0].line)]
    return []


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def _summary(entries):
    k = [e for e in entries if e.kernel]
    return ("%d entries, %d kernel (%.2f%%), %d kernel unresolved"
            % (len(entries), len(k), sum(e.pct for e in k),
               sum(1 for e in k if e.raw)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+",
                    help="EXPECTED ACTUAL, or REPORT with --expect-raw-kernel")
    ap.add_argument("--kallsyms",
                    help="kallsyms file giving the alias sets (names at one "
                    "address); without it aliases must match exactly")
    ap.add_argument("--kernel-only", action="store_true",
                    help="compare only kernel entries")
    ap.add_argument("--expect-raw-kernel", action="store_true",
                    help="check one report: kernel samples all unresolved")
    ap.add_argument("--max-problems", type=int, default=50,
                    help="problems listed (default 50)")
    args = ap.parse_args(argv)

    try:
        parsed = [parse_report(_read(p)) for p in args.reports]
    except (OSError, ValueError) as e:
        print("compare_reports: error: %s" % e, file=sys.stderr)
        return 2

    if args.expect_raw_kernel:
        if len(parsed) != 1:
            ap.error("--expect-raw-kernel takes one report")
        print("%s: %s" % (args.reports[0], _summary(parsed[0])))
        problems = check_raw_kernel(parsed[0])
    else:
        if len(parsed) != 2:
            ap.error("give EXPECTED and ACTUAL")
        for p, e in zip(args.reports, parsed):
            print("%s: %s" % (p, _summary(e)))
        aliases = alias_map(args.kallsyms) if args.kallsyms else None
        problems = compare(parsed[0], parsed[1], aliases, args.kernel_only)
        if not problems:
            same = ([e.line for e in parsed[0]] == [e.line for e in parsed[1]])
            print("identical entries: %s" % ("yes" if same
                                             else "no (equal up to aliases)"))
    for p in problems[:args.max_problems]:
        print("FAIL: " + p)
    if len(problems) > args.max_problems:
        print("FAIL: ... %d more" % (len(problems) - args.max_problems))
    print("OK" if not problems else "%d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
