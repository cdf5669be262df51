#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The fuzz runner keeps and shows what fails.

    test_run_fuzz.py FUZZ_FAIL

FUZZ_FAIL is build/fuzz/fuzz_fail, a target that aborts on an input
starting with "!".  A failing bounded run must leave the input in
build/fuzz/artifacts/ and print it in base64 (a CI log is enough to
reproduce it); a failing input of the regression corpus must fail the
replay and be printed the same way; a corpus that passes, passes, and the
repeatable run (a fixed seed) finds the same input twice.
"""
import base64
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, '..', 'run_fuzz.py')
TARGET = None


def run_fuzz(corpus_root, *args):
    return subprocess.run([sys.executable, RUNNER, '--corpus-root',
                           corpus_root] + list(args) + ['5', TARGET],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)


def logged_inputs(out):
    """{path: bytes} of the inputs the runner printed."""
    found = {}
    for m in re.finditer(r'^failing input (\S+) \((\d+) bytes\), base64:\n'
                         r'((?:  \S+\n)+)', out, re.M):
        data = base64.b64decode(''.join(m.group(3).split()))
        assert len(data) == int(m.group(2))
        found[m.group(1)] = data
    return found


class RunFuzzTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.corpus = os.path.join(self.root, os.path.basename(TARGET))
        os.makedirs(self.corpus)
        with open(os.path.join(self.corpus, 'fine'), 'wb') as f:
            f.write(b'fine')

    def tearDown(self):
        self.tmp.cleanup()

    def test_failing_run_keeps_and_prints_its_input(self):
        res = run_fuzz(self.root)
        self.assertEqual(res.returncode, 1, res.stdout[-3000:])
        self.assertIn('fuzz: 0 passed, 1 failed', res.stdout)
        inputs = logged_inputs(res.stdout)
        self.assertTrue(inputs, res.stdout[-3000:])
        for path, data in inputs.items():
            self.assertIn(os.path.join('build', 'fuzz', 'artifacts'), path)
            with open(path, 'rb') as f:
                self.assertEqual(f.read(), data)
            self.assertTrue(data.startswith(b'!'))

    def test_failing_regression_input_is_named_and_printed(self):
        bad = os.path.join(self.corpus, 'found-once')
        with open(bad, 'wb') as f:
            f.write(b'!found')
        res = run_fuzz(self.root)
        self.assertEqual(res.returncode, 1, res.stdout[-3000:])
        self.assertIn('replay of %s failed' % bad, res.stdout)
        self.assertEqual(logged_inputs(res.stdout), {bad: b'!found'})
        # the bounded run does not start after a failed replay
        self.assertNotIn('executions', res.stdout)

    def test_passing_replay(self):
        # no "!" in the seed, and a few runs only: nothing to find
        res = run_fuzz(self.root, '--runs', '1')
        self.assertEqual(res.returncode, 0, res.stdout[-3000:])
        self.assertIn('1 regression inputs replayed', res.stdout)

    def test_repeatable_run_finds_the_same_input(self):
        # a fixed seed: the same binary and corpus find the same input
        found = []
        for _ in range(2):
            res = run_fuzz(self.root)
            self.assertEqual(res.returncode, 1, res.stdout[-3000:])
            found.append(sorted(logged_inputs(res.stdout).values()))
        self.assertTrue(found[0])
        self.assertEqual(found[0], found[1])


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: test_run_fuzz.py FUZZ_FAIL')
    TARGET = sys.argv.pop(1)
    unittest.main(verbosity=2)
