#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The e2e oracle (compare_reports.compare) on reports written here.

Samples outside the vmlinux (BPF programs, trampolines, seccomp filters,
modules without symbols) are raw addresses in the original report on a real
host: they may stay raw, the same, and nothing else may.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_reports import compare, parse_report  # noqa: E402

HEAD = "# Overhead  Shared Object      Symbol\n#\n"
RESOLVED = """\
    40.00%  [kernel.kallsyms]  [k] do_syscall_64
    20.00%  [kernel.kallsyms]  [k] read_zero
    10.00%  dd                 [.] main
"""
# what a host's BPF programs look like in perf's report: no map, no dso
OUTSIDE = """\
     0.50%  [unknown]          [k] 0xffffffffc000417c
     0.25%  [unknown]          [k] 0xffffffffc0004200
"""


def report(*parts):
    return parse_report(HEAD + "".join(parts))


class CompareTest(unittest.TestCase):
    def test_the_same_raw_addresses_on_both_sides(self):
        """The case a real host gives: fails with an oracle that wants
        every kernel sample resolved."""
        exp = report(RESOLVED, OUTSIDE)
        self.assertEqual(compare(exp, report(OUTSIDE, RESOLVED)), [])

    def test_resolved_everywhere(self):
        self.assertEqual(compare(report(RESOLVED), report(RESOLVED)), [])

    def test_expected_raw_missing_in_actual(self):
        exp = report(RESOLVED, OUTSIDE)
        act = report(RESOLVED, OUTSIDE.splitlines(True)[0])
        problems = compare(exp, act)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("missing in actual: [unknown] [k] 0xffffffffc0004200",
                      problems[0])

    def test_expected_raw_with_another_overhead(self):
        exp = report(RESOLVED, OUTSIDE)
        act = report(RESOLVED, OUTSIDE.replace("0.50%", "0.75%"))
        problems = compare(exp, act)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("0xffffffffc000417c: overhead", problems[0])

    def test_expected_raw_resolved_in_actual(self):
        """An address the original could not name gets a name: a wrong
        file, or a wrong map."""
        exp = report(RESOLVED, OUTSIDE)
        act = report(RESOLVED, OUTSIDE.replace(
            "[unknown]          [k] 0xffffffffc000417c",
            "[kernel.kallsyms]  [k] bpf_prog_run"))
        problems = compare(exp, act)
        self.assertTrue(any("missing in actual: [unknown] [k] "
                            "0xffffffffc000417c" in p for p in problems),
                        problems)
        self.assertTrue(any("extra in actual: [kernel.kallsyms] [k] "
                            "bpf_prog_run" in p for p in problems), problems)

    def test_resolved_in_expected_raw_in_actual(self):
        exp = report(RESOLVED, OUTSIDE)
        act = report(RESOLVED.replace("[k] read_zero",
                                      "[k] 0xffffffff81d7d617"), OUTSIDE)
        problems = compare(exp, act)
        self.assertTrue(problems[0].startswith(
            "actual report has 1 unresolved kernel entries (20.00%) the "
            "expected one does not have"), problems)

    def test_expected_with_nothing_resolved(self):
        """An oracle of raw addresses only says nothing: that fails."""
        exp = report(OUTSIDE)
        problems = compare(exp, report(OUTSIDE))
        self.assertEqual(problems, ["expected report has no resolved kernel "
                                    "samples: the comparison would say "
                                    "nothing"])

    def test_expected_without_kernel_samples(self):
        exp = report("    10.00%  dd                 [.] main\n")
        self.assertEqual(compare(exp, exp),
                         ["expected report has no kernel samples"])

    def test_aliases(self):
        exp = report(RESOLVED, OUTSIDE)
        act = report(RESOLVED.replace("read_zero", "read_iter_zero"),
                     OUTSIDE)
        self.assertNotEqual(compare(exp, act), [])
        aliases = {n: frozenset({"read_zero", "read_iter_zero"})
                   for n in ("read_zero", "read_iter_zero")}
        self.assertEqual(compare(exp, act, aliases), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
