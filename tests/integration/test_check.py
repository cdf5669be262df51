#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""symprov check against good providers and the broken test providers
(tests/providers/test_provider.c): what it says and how it exits."""
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from server_testcase import run_main  # noqa: E402

BUILD = 'build'
TIMEOUT = 120


def check(*args):
    env = dict(os.environ)
    # a crash must stay a crash under ASan, not become exit(1)
    env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') +
                           ':handle_segv=0').lstrip(':')
    env.pop('PERF_SYMBOL_PROVIDERS', None)
    return subprocess.run([os.path.join(BUILD, 'bin', 'symprov'), 'check'] +
                          list(args), text=True, capture_output=True,
                          env=env, timeout=TIMEOUT)


def tp(name):
    return os.path.join(BUILD, 'tests', 'providers', 'libtp_%s.so' % name)


class CheckTest(unittest.TestCase):
    def assert_conforms(self, res, warnings=0):
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertNotIn('FAIL', res.stdout)
        self.assertRegex(res.stdout.splitlines()[-1],
                         r': conforms: 10 checks, %d warnings?$' % warnings)

    def assert_fails(self, res, *lines):
        """Exit 2, the closing verdict, and each of LINES as a FAIL."""
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn('does NOT conform', res.stdout.splitlines()[-1])
        fails = [ln for ln in res.stdout.splitlines()
                 if ln.startswith('  FAIL')]
        for want in lines:
            self.assertTrue(any(want in ln for ln in fails),
                            '%r not in %s' % (want, res.stdout))
        return fails

    def test_shipped_providers_conform(self):
        for name in ('buildiddir', 'debuginfod', 'example'):
            res = check(os.path.join(BUILD, 'lib', 'lib%sprov.so' % name))
            self.assert_conforms(res)
            self.assertRegex(res.stdout, r'provider +%s \S+, ABI (1\.\d+) '
                             r'\(this host: ABI \1\)' % name)
            self.assertIn('description ', res.stdout)

    def test_bare_name_as_find_looks_for_it(self):
        res = check('libbuildiddirprov.so')
        self.assert_conforms(res)
        self.assertIn('file         %s/bin/../lib/libbuildiddirprov.so'
                      % BUILD, res.stdout)

    def test_sloppy_but_working_provider_warns(self):
        res = check(tp('a'))
        self.assert_conforms(res, warnings=3)
        self.assertIn("kind 99, unknown to this ABI: not found: a kind it "
                      "does not serve should be 'disabled'", res.stdout)
        self.assertIn('symprov_copy_struct', res.stdout)

    def test_does_not_load(self):
        for name, why in (('noentry', 'no symprov_provider_entry symbol'),
                          ('abi2', 'ABI version 2.'),
                          ('initfail', 'tp: init failed'),
                          ('sizehuge', 'provider struct size 100000 is not valid'),
                          ('newerdirty', 'provider struct has fields this host does not know')):
            res = check(tp(name))
            fails = self.assert_fails(res, 'load: ' + why)
            self.assertEqual(len(fails), 1, res.stdout)
        res = check('/nonexistent/libx.so')
        self.assert_fails(res, 'load: /nonexistent/libx.so: cannot open')

    def test_found_for_impossible_build_id(self):
        # the loader refuses the file, as in perf, and says why
        self.assert_fails(check(tp('foundall')),
                          'kernel, a build ID that cannot exist: tp supplied '
                          '/bin/sh, rejected (build ID differs from the one '
                          'asked for), build ID 73796d70726f762d636865636b2d'
                          '303030303030: a file for a build ID that cannot '
                          'exist',
                          'must refuse a request with a field')

    def test_unknown_status(self):
        self.assert_fails(check(tp('badstatus')),
                          "returned unknown status 42")

    def test_reads_past_a_shorter_request(self):
        fails = self.assert_fails(check(tp('readpast')),
                                  'a shorter request, as an ABI 1.0 host '
                                  'sends: crashed')
        self.assertEqual(len(fails), 1, fails)
        self.assertIn('SYMPROV_HAS()', fails[0])

    def test_writes_to_stdout(self):
        self.assert_fails(check(tp('print')), 'wrote 14 bytes to stdout')

    def test_calls_exit(self):
        self.assert_fails(check(tp('exit')),
                          'exited (status 3) inside the provider')

    def test_hangs(self):
        start = time.monotonic()
        res = check('--timeout', '1', tp('hang'))
        fails = self.assert_fails(res, 'no answer in 1 s')
        self.assertEqual(len(fails), 9, res.stdout)
        # each hung child was killed: nothing is left to wait for
        self.assertLess(time.monotonic() - start, 60)

    def test_chatty_provider_conforms(self):
        # more log than the report keeps: read on, not a broken pipe
        self.assert_conforms(check(tp('chatty')), warnings=3)

    def test_bad_input(self):
        for args, why in ((['a.so:b.so'], "without ':'"),
                          ([], 'one provider'),
                          (['--timeout', 'x', tp('a')], '--timeout'),
                          (['--bogus', tp('a')], 'unknown')):
            res = check(*args)
            self.assertEqual(res.returncode, 1, res.stderr)
            self.assertEqual(res.stdout, '')
            self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
            self.assertIn(why, res.stderr)


if __name__ == '__main__':
    sys.exit(run_main('check', sys.modules[__name__], debuginfod=False))
