#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The checks of the end-to-end suites, checked: each one fails where it
must, on a stand-in for perf.

- A program on the terminal (tui.Terminal) that draws its screen, ends on
  'q' with exit 0 and the terminal as it was, and then prints what perf's
  TUI prints after a crash it caught (ui__signal_backtrace(): the signal,
  a backtrace, exit 0): run_e2e's quit_tui() passes, and leaving the
  terminal fails, naming the crash.  The same program without the crash:
  no failure.
- scripts/check-output.sh, the Makefile's negative checks: it fails when
  its command is missing, fails, or prints no line of its work, and holds
  only when the command ran.
- compare_perf_test.py: a test the series fails more often than the stock
  perf over the reruns is worse, one failing as often with either is not;
  a rerun with no line under the name is a failure; a skip of the stock
  perf where the series fails is worse; only a test the stock perf did
  not fail in the same run is run again.

Needs tmux.  Ends with "N passed, N failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_perf_test  # noqa: E402
import run_e2e  # noqa: E402
from e2elib import E2EError  # noqa: E402
from tui import Terminal  # noqa: E402

# perf's TUI: a screen, 'q', the terminal put back; then, with CRASH, what
# ui__signal_backtrace() prints before its exit(0)
FAKE_PERF = r'''#!/bin/sh
saved=$(stty -g)
stty -icanon -echo
printf 'Samples: 1K of event cpu-clock\n'
dd bs=1 count=1 2>/dev/null >/dev/null
stty "$saved"
if [ -n "$CRASH" ]; then
	echo 'perf: Segmentation fault' >&2
	echo '-------- backtrace --------'
	echo 'perf(+0x2b5f3a)[0x55d2c0a5ff3a]'
fi
exit 0
'''


class TerminalCrashTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix='symprov-checks-')
        self.perf = os.path.join(self.work, 'perf')
        with open(self.perf, 'w') as f:
            f.write(FAKE_PERF)
        os.chmod(self.perf, 0o755)

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def tui(self, crash):
        env = dict(os.environ, CRASH='1' if crash else '')
        with Terminal(self.work, 'crash-%d' % crash) as term:
            term.start([self.perf], env)
            term.wait_for(lambda s: 'Samples:' in s, 10, 'the screen')
            run_e2e.Runner.quit_tui(term)  # exit 0, terminal restored

    def test_crash_after_exit_0_fails(self):
        with self.assertRaises(E2EError) as cm:
            self.tui(crash=True)
        self.assertIn('perf: Segmentation fault', str(cm.exception))

    def test_no_crash_passes(self):
        self.tui(crash=False)

    def test_a_line_shown_between_two_looks(self):
        """A help line written and overwritten between two screens: in
        what was written, past the part the line had already."""
        term = Terminal(self.work, 'written')
        with open(os.path.join(term.dir, 'output'), 'w') as f:
            f.write('\x1b[24;1Hsymprov: debuginfod: 1.0/9.0 MiB\x1b[K'
                    '\x1b[24;10H\x1b[7mskipped the files of the '
                    "profile's objects\x1b[m\x0e\x0f\x1b[24;1HSamples")
        self.assertFalse(term.ever('skipped the files'))
        self.assertTrue(term.written("skipped the files of the profile's "
                                     'objects'))
        self.assertFalse(term.written('skipped the vmlinux'))
        run_e2e.Runner.expect_tui_lines(
            term, "symprov: skipped the files of the profile's objects")
        with self.assertRaises(E2EError):
            run_e2e.Runner.expect_tui_lines(term, 'symprov: skipped the '
                                            'vmlinux')


class CheckOutputTest(unittest.TestCase):
    SCRIPT = os.path.join(HERE, '..', '..', 'scripts', 'check-output.sh')

    def check(self, *args):
        return subprocess.run(['bash', self.SCRIPT] + list(args),
                              capture_output=True, text=True,
                              timeout=30).returncode

    def test_negative_check_of_a_missing_command_fails(self):
        self.assertEqual(self.check('-n', '-c', 'x', 'libsymprov', '--',
                                    '/nonexistent/perf', 'version'), 1)

    def test_negative_check_of_a_failing_command_fails(self):
        self.assertEqual(self.check('-n', '-c', 'x', 'libsymprov', '--',
                                    'sh', '-c', 'echo x; exit 3'), 1)

    def test_negative_check_without_its_control_fails(self):
        self.assertEqual(self.check('-n', '-c', 'calling init', 'libsymprov',
                                    '--', 'echo', 'nothing'), 1)

    def test_negative_check_holds_when_the_command_ran(self):
        self.assertEqual(self.check('-n', '-c', 'calling init', 'libsymprov',
                                    '--', 'echo', 'calling init: libc'), 0)
        self.assertEqual(self.check('-n', '-c', 'calling init', 'libc',
                                    '--', 'echo', 'calling init: libc'), 1)

    def test_positive_check(self):
        self.assertEqual(self.check('-c', 'a', 'b', '--', 'echo', 'a b'), 0)
        self.assertEqual(self.check('-c', 'a', 'c', '--', 'echo', 'a b'), 1)


class ComparePerfTestTest(unittest.TestCase):
    @staticmethod
    def worse(*runs):
        it = iter(runs)
        return compare_perf_test.worse('a test', lambda name: next(it))[0]

    def test_fails_more_often_with_the_series(self):
        self.assertTrue(self.worse(('Ok', 'FAILED!'), ('Ok', 'Ok'),
                                   ('Ok', 'Ok')))

    def test_fails_as_often_with_either(self):
        self.assertFalse(self.worse(('FAILED!', 'Ok'), ('Ok', 'FAILED!'),
                                    ('Ok', 'Ok')))

    def test_no_result_is_a_failure(self):
        self.assertTrue(self.worse(('Ok', None), ('Ok', 'Ok'), ('Ok', 'Ok')))
        self.assertFalse(self.worse((None, None), ('Ok', 'Ok'),
                                    ('Ok', 'Ok')))

    def test_stock_skips_the_series_fails(self):
        self.assertTrue(self.worse(('Skip (no PMU)', 'FAILED!'),
                                   ('Skip (no PMU)', 'Skip (no PMU)'),
                                   ('Skip (no PMU)', 'Skip (no PMU)')))

    def test_skips_where_stock_passes(self):
        self.assertTrue(compare_perf_test.bad('Skip (no x)', 'Ok'))
        self.assertFalse(compare_perf_test.bad('Skip (no x)', 'Skip'))

    def test_rerun_only_where_stock_did_not_fail(self):
        rerun = compare_perf_test.rerun_needed
        self.assertTrue(rerun('FAILED!', 'Ok'))
        self.assertTrue(rerun(None, 'Skip (no PMU)'))
        self.assertTrue(rerun('Skip (no x)', 'Ok'))
        self.assertFalse(rerun('FAILED!', 'FAILED!'))
        self.assertFalse(rerun(None, 'FAILED!'))
        self.assertFalse(rerun('Ok', 'Ok'))


def main():
    if not shutil.which('tmux'):
        print('e2e checks: CANNOT RUN: tmux not found (this is a failure)',
              file=sys.stderr)
        return 2
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = len(res.failures) + len(res.errors) + len(res.skipped)
    print('e2e checks: %d passed, %d failed' % (res.testsRun - bad, bad))
    return 0 if bad == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
