#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Run each libFuzzer target for a bounded time; report executions."""
import os
import re
import subprocess
import sys
import tempfile


def main():
    seconds, targets = int(sys.argv[1]), sys.argv[2:]
    passed = failed = 0
    for exe in targets:
        name = os.path.basename(exe)
        corpus = os.path.join('build', 'fuzz', name + '.corpus')
        os.makedirs(corpus, exist_ok=True)
        with tempfile.TemporaryDirectory() as art:
            proc = subprocess.run(
                [exe, '-max_total_time=%d' % seconds, '-max_len=8192',
                 '-artifact_prefix=%s/' % art, corpus],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=seconds + 120)
        runs = re.findall(r'Done (\d+) runs', proc.stdout)
        if proc.returncode == 0 and runs:
            print('%s: %s executions in %d s, no crash' % (name, runs[-1],
                                                          seconds))
            passed += 1
        else:
            sys.stdout.write(proc.stdout[-6000:])
            print('%s: FAILED (exit %d)' % (name, proc.returncode))
            failed += 1
    print('fuzz: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
