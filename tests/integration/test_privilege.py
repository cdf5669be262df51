#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Under AT_SECURE the provider list from the environment is ignored.

A copy of symprov is given a file capability (setcap), or made setuid
root, and run as an unprivileged user: the kernel then sets AT_SECURE, as
for a perf installed with cap_perfmon.  The same copy without the
privilege, run by the same user, must load the provider and find the
file, so that the refusal is the privilege's doing and nothing else's.
Needs root (setcap, chown, setpriv).
"""
import argparse
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from server_testcase import ServerTestCase, summarize  # noqa: E402
from elf_fixtures import make_elf  # noqa: E402

BUILD = 'build'
BID = '5ecc00000000000000000000000000000000a7a7'
NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
          '--']
WARNING = 'PERF_SYMBOL_PROVIDERS ignored: running with elevated privileges'


class PrivilegeTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        make_elf(os.path.join(srv, 'f.elf'), BID)
        # bin/ and lib/ side by side, as in the build tree
        for d in ('bin', 'lib'):
            os.mkdir(os.path.join(cls.tmp, d))
        for lib in ('libdebuginfodprov.so', 'libsymprov.so.1'):
            shutil.copy(os.path.join(BUILD, 'lib', lib),
                        os.path.join(cls.tmp, 'lib'))

    def copy_symprov(self, name):
        """A copy of symprov that finds the copy of libsymprov.so.1 by an
        absolute RUNPATH: under AT_SECURE the dynamic loader ignores the
        build's $ORIGIN one, as it does LD_LIBRARY_PATH."""
        path = os.path.join(self.tmp, 'bin', name)
        shutil.copy(os.path.join(BUILD, 'bin', 'symprov'), path)
        subprocess.run(['patchelf', '--set-rpath',
                        os.path.join(self.tmp, 'lib'), path], check=True,
                       timeout=60)
        os.chmod(path, 0o755)
        return path

    def run_as_nobody(self, exe, *args):
        os.chmod(self.home, 0o777)  # nobody's
        # only PATH of ours: nothing that changes how symprov loads
        env = self.server.client_env(self.home, base={
            'PATH': os.environ.get('PATH', '/usr/bin:/bin')})
        env['PERF_SYMBOL_PROVIDERS'] = 'libdebuginfodprov.so'
        return subprocess.run(NOBODY + [exe, 'find'] + list(args) + [BID],
                              env=env, text=True, capture_output=True,
                              timeout=120)

    def test_unprivileged_copy_loads_providers(self):
        exe = self.copy_symprov('symprov-plain')
        res = self.run_as_nobody(exe)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn(WARNING, res.stderr)

    def check_refused(self, exe):
        before = self.server.responses()
        res = self.run_as_nobody(exe)
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assertEqual(res.stderr.count(WARNING), 1, res.stderr)
        res = self.run_as_nobody(exe, '--providers', 'libdebuginfodprov.so')
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertIn('--providers ignored', res.stderr)
        self.assertEqual(self.server.responses(), before)

    def test_file_capability(self):
        exe = self.copy_symprov('symprov-cap')
        subprocess.run(['setcap', 'cap_perfmon+ep', exe], check=True,
                       timeout=30)
        self.check_refused(exe)

    def test_setuid(self):
        exe = self.copy_symprov('symprov-suid')
        os.chown(exe, 0, 0)
        os.chmod(exe, 0o4755)
        self.check_refused(exe)


def main():
    global BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    missing = [t for t in ('setcap', 'setpriv', 'debuginfod', 'patchelf')
               if shutil.which(t) is None]
    if os.geteuid() != 0 or missing:
        print('privilege: CANNOT RUN: needs root and %s'
              % (', '.join(missing) or 'setcap/setpriv'), file=sys.stderr)
        print('privilege: 0 passed, 0 failed, 3 skipped')
        return 1
    suite = unittest.TestLoader().loadTestsFromTestCase(PrivilegeTest)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    return summarize('privilege', result)


if __name__ == '__main__':
    sys.exit(main())
