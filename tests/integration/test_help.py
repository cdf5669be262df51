#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""--help of symprov and of each of its commands: the usage on stdout and
exit 0.  The commands are those `symprov --help` lists, which it prints
from the command's own table: a command added there is tested here."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from server_testcase import run_main  # noqa: E402

BUILD = 'build'
TIMEOUT = 60
SYNOPSIS_RE = re.compile(r'^(?:usage:|      ) symprov \[-v\] (\S+)')


def symprov(*args):
    return subprocess.run([os.path.join(BUILD, 'bin', 'symprov')] +
                          list(args), text=True, capture_output=True,
                          timeout=TIMEOUT)


class HelpTest(unittest.TestCase):
    def commands(self):
        res = symprov('--help')
        self.assertEqual((res.returncode, res.stderr), (0, ''))
        names = [m.group(1) for m in map(SYNOPSIS_RE.match,
                                         res.stdout.splitlines()) if m]
        # the ones there are now, at least: the table is read, not empty
        self.assertLessEqual({'find', 'prefetch', 'list', 'check'},
                             set(names), res.stdout)
        return names

    def test_each_command_helps(self):
        for name in self.commands():
            for args in ((name, '--help'), (name, '-h'),
                         ('-v', name, '--help')):
                res = symprov(*args)
                self.assertEqual((res.returncode, res.stderr), (0, ''),
                                 args)
                lines = res.stdout.splitlines()
                self.assertTrue(lines, args)
                self.assertEqual(SYNOPSIS_RE.match(lines[0]).group(1), name)
                # its own usage alone
                self.assertEqual([ln for ln in lines
                                  if SYNOPSIS_RE.match(ln)], lines[:1])
                self.assertIn('\n%s ' % name, res.stdout)

    def test_help_after_other_options(self):
        """--help wins over what the command would do: nothing is read,
        asked or checked."""
        for args in (('find', '--kind', 'module', '--help'),
                     ('prefetch', '-i', '/nonexistent', '--help'),
                     ('list', '--providers', 'libnone.so', '--help'),
                     ('check', '--timeout', '1', '--help')):
            res = symprov(*args)
            self.assertEqual((res.returncode, res.stderr), (0, ''), args)
            self.assertTrue(res.stdout.startswith(
                'usage: symprov [-v] %s ' % args[0]), res.stdout)

    def test_usage_without_a_command(self):
        res = symprov()
        self.assertEqual(res.returncode, 1)
        self.assertEqual(res.stdout, '')
        self.assertEqual(res.stderr, symprov('--help').stdout)


if __name__ == '__main__':
    sys.exit(run_main('help', sys.modules[__name__], debuginfod=False))
