#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A perf built from the series where libsymprov.so.1 is not installed
behaves as stock perf: on a profile of this machine recorded by stock
perf, `perf report --stdio` of both is the same, byte for byte, without
a provider list, where perf does not even look for libsymprov; with
PERF_SYMBOL_PROVIDERS set the report is the same, and one line more on
stderr names libsymprov.so.1 and why perf goes on without providers.

    run_stock_equal.py --stock PERF --perf PERF [--workdir DIR]

Needs root (perf record -a).  Prints PASS/FAIL lines and "N passed, N
failed"; exit 0 when all passed.
"""
import argparse
import collections
import ctypes
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, HERE)

from e2elib import clean_env  # noqa: E402

# A line of the dynamic loader's LD_DEBUG log: "   PID:\t..."
LOADER_LINE = re.compile(r'\s*\d+:')


def split_loader_log(stderr):
    """perf's own stderr, and the dynamic loader's log apart"""
    own, loader = [], []
    for line in stderr.splitlines(keepends=True):
        (loader if LOADER_LINE.match(line) else own).append(line)
    return ''.join(own), ''.join(loader)


def rpath_to_libsymprov(readelf_d):
    """The RPATH/RUNPATH directories of readelf -d that hold a
    libsymprov.so.1: a perf built so would find it"""
    dirs = re.findall(r'\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: '
                      r'\[([^]]*)\]', readelf_d)
    return [d for x in dirs for d in x.split(':')
            if os.path.exists(os.path.join(d, 'libsymprov.so.1'))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stock', required=True)
    ap.add_argument('--perf', required=True)
    ap.add_argument('--workdir')
    args = ap.parse_args()
    work = args.workdir or tempfile.mkdtemp(prefix='symprov-stock-')
    os.makedirs(work, exist_ok=True)
    home = os.path.join(work, 'home')
    os.makedirs(home, exist_ok=True)
    data = os.path.join(work, 'perf.data')
    env = clean_env(home)
    # the loader finds libsymprov only where the system's would
    for var in ('LD_LIBRARY_PATH', 'LD_PRELOAD', 'LD_DEBUG_OUTPUT'):
        env.pop(var, None)
    passed = failed = 0

    def check(ok, what, detail=''):
        nonlocal passed, failed
        print('%s %s' % ('PASS' if ok else 'FAIL', what))
        if not ok and detail:
            print(detail[-3000:])
        passed += bool(ok)
        failed += not ok

    try:
        ctypes.CDLL('libsymprov.so.1')
        print('CANNOT RUN: libsymprov.so.1 is installed on this machine: '
              'this test needs a machine without it')
        print('0 passed, 1 failed')
        return 1
    except OSError:
        pass
    rec = subprocess.run([args.stock, 'record', '-a', '-g', '-o', data,
                          '--', 'sleep', '1'], env=env, text=True,
                         capture_output=True, timeout=300)
    if rec.returncode:
        print('CANNOT RUN: perf record: ' + rec.stderr[-1000:])
        print('0 passed, 1 failed')
        return 1
    for name, extra in (('no provider list', {}),
                        ('PERF_SYMBOL_PROVIDERS set',
                         {'PERF_SYMBOL_PROVIDERS': 'libdebuginfodprov.so'})):
        out = {}
        for perf in (args.stock, args.perf):
            res = subprocess.run([perf, 'report', '--stdio', '--sort',
                                  'dso,sym', '-i', data],
                                 env=dict(env, LD_DEBUG='libs', **extra),
                                 text=True, capture_output=True,
                                 timeout=600)
            # the loader's log tells whether libsymprov was looked for
            err, ld = split_loader_log(res.stderr)
            out[perf] = (res.returncode, res.stdout, err, ld)
        a, b = out[args.stock], out[args.perf]
        detail = 'stock:\n%s\n%s\nseries, no libsymprov:\n%s\n%s' % (
            a[1][-1500:], a[2], b[1][-1500:], b[2])
        looked = 'libsymprov.so.1' in b[3]
        if not extra:
            check(a[0] == 0 and '[k]' in a[1] and a[:3] == b[:3],
                  '%s: the report equals stock perf\'s (%d lines)' % (
                      name, a[1].count('\n')), detail)
            check(not looked, '%s: libsymprov.so.1 not looked for' % name,
                  b[3][-2000:])
            continue
        # stock perf's lines, and one more
        series = collections.Counter(b[2].splitlines(keepends=True))
        stock = collections.Counter(a[2].splitlines(keepends=True))
        extra_err = ''.join((series - stock).elements())
        check(a[0] == 0 and a[:2] == b[:2] and not stock - series and
              extra_err.count('\n') == 1 and
              'libsymprov.so.1' in extra_err and
              'cannot open shared object file' in extra_err,
              '%s: the report equals stock perf\'s, one line says '
              'libsymprov.so.1 is missing: %s' % (name, extra_err.strip()),
              detail)
        check(looked, '%s: libsymprov.so.1 looked for' % name, b[3][-2000:])
    res = subprocess.run(['readelf', '-d', args.perf], text=True,
                         capture_output=True, timeout=60)
    check(res.returncode == 0 and 'libsymprov' not in res.stdout,
          'perf without libsymprov does not link it')
    found = rpath_to_libsymprov(res.stdout)
    check(res.returncode == 0 and not found,
          'its rpath leads to no libsymprov.so.1', 'found in %s' % found)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
