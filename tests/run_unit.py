#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Run the cmocka unit tests of a build and sum up their results."""
import os
import re
import subprocess
import sys


def main():
    build, tests = sys.argv[1], sys.argv[2:]
    env = dict(os.environ,
               SYMPROV_TEST_PROVIDERS=os.path.abspath(
                   os.path.join(build, 'tests', 'providers')))
    passed = failed = 0
    for name in tests:
        exe = os.path.join(build, 'tests', name)
        proc = subprocess.run([exe], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=300)
        sys.stdout.write(proc.stdout)
        ok = re.search(r'\[  PASSED  \] (\d+) test', proc.stdout)
        bad = re.search(r'\[  FAILED  \] (\d+) test', proc.stdout)
        n_ok = int(ok.group(1)) if ok else 0
        n_bad = int(bad.group(1)) if bad else 0
        if proc.returncode != 0 and n_bad == 0:
            print('%s: exited with %d' % (name, proc.returncode))
            n_bad = 1
        elif not ok and n_bad == 0:
            # cmocka ends every group with its PASSED line: it did not run
            print('%s: exit %d without cmocka\'s "[  PASSED  ]" line' % (
                name, proc.returncode))
            n_bad = 1
        passed += n_ok
        failed += n_bad
    print('unit: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
