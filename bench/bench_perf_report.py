#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What perf report pays for finding the vmlinux through the provider.

On a profile moved to a kernel that is not installed (tests/e2e), side by
side: `perf report` given the stand-in vmlinux with --vmlinux (baseline)
and the same report with PERF_SYMBOL_PROVIDERS=libdebuginfodprov.so, the
file in the warm client cache (the first, warm-up run downloads it).
Needs root (perf record -a) and build/perf/perf.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
E2E = os.path.join(REPO, 'tests', 'e2e')
sys.path.insert(0, os.path.join(REPO, 'tests', 'lib'))
sys.path.insert(0, E2E)

from debuginfod_server import DebuginfodServer  # noqa: E402
from e2elib import clean_env  # noqa: E402
from benchlib import print_footer, print_header, side_by_side  # noqa

ROUNDS = int(os.environ.get('BENCH_ROUNDS', '10'))


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
    perf = os.path.join(REPO, 'build', 'perf', 'perf')
    if os.geteuid() != 0 or not os.access(perf, os.X_OK):
        print('bench_perf_report: CANNOT RUN: needs root and build/perf/perf '
              '(make perf)')
        return 1
    tmp = tempfile.mkdtemp(prefix='symprov-bench-perf-')
    try:
        srv = os.path.join(tmp, 'srv')
        os.mkdir(srv)
        moved = os.path.join(tmp, 'moved.data')
        out = subprocess.run(
            [sys.executable, os.path.join(E2E, 'make_profile.py'),
             '--original', os.path.join(tmp, 'orig.data'), '--moved', moved,
             '--duration', '2', '--perf', perf],
            check=True, capture_output=True, text=True, timeout=300).stdout
        new_id = json.loads(out)['new_build_id']
        standin = os.path.join(srv, 'standin.vmlinux')
        subprocess.run([sys.executable, os.path.join(E2E, 'make_standin.py'),
                        '--build-id', new_id, '-o', standin], check=True,
                       capture_output=True, timeout=600)
        report = [perf, 'report', '--stdio', '--sort', 'dso,sym', '-i',
                  moved]
        with DebuginfodServer(srv) as server:
            home = os.path.join(tmp, 'home')
            os.mkdir(home)
            plain = clean_env(home)
            provider = clean_env(home, {
                'DEBUGINFOD_URLS': server.url,
                'DEBUGINFOD_CACHE_PATH': os.path.join(tmp, 'cache'),
                'PERF_SYMBOL_PROVIDERS': 'libdebuginfodprov.so',
                'LD_LIBRARY_PATH': os.path.join(build, 'lib')})
            print_header()
            side_by_side('report', [
                ('perf report --vmlinux (baseline)',
                 report + ['--vmlinux=' + standin], plain),
                ('perf report, provider', report, provider),
            ], plain, ROUNDS)
            print_footer(ROUNDS)
            print('stand-in vmlinux: %d MB' % (os.path.getsize(standin) >> 20))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
