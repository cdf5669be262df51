#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libbuildiddirprov.so on a real Debian kernel debug package.

    SYMPROV_KERNEL_DBG_DEB=/path/to/linux-image-REL-dbg_VERSION_amd64.deb \\
        make check-buildiddir-deb

unpacks the package with `dpkg-deb -x` into a temporary directory (it is
not installed) and asks symprov, through the provider, for its vmlinux,
which has no .build-id link and must be found by its note, and for a vDSO,
which has one.  The build IDs are read from the files with readelf.  The
package is large (318 MB for 6.12.117+deb12-cloud-amd64), so this is not
part of `make check`.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from elf_fixtures import read_build_id  # noqa: E402

VAR = 'SYMPROV_KERNEL_DBG_DEB'


def find(build, tree, bid, kind):
    env = {k: v for k, v in os.environ.items()
           if k not in ('PERF_SYMBOL_PROVIDERS', 'DEBUGINFOD_URLS')}
    env['SYMPROV_BUILDIDDIR_DIRS'] = tree
    start = time.monotonic()
    res = subprocess.run([os.path.join(build, 'bin', 'symprov'), '-v',
                          'find', '--providers', 'libbuildiddirprov.so',
                          '--kind', kind, bid], env=env, text=True,
                         capture_output=True, timeout=300)
    return res, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default='build')
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    deb = os.environ.get(VAR)
    if not deb or not os.path.isfile(deb):
        print('buildiddir-deb: CANNOT RUN: set %s to a linux-image-*-dbg '
              '.deb (not found: %r)' % (VAR, deb))
        print('buildiddir-deb: 0 passed, 1 failed')
        return 1
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix='symprov-deb-')
    try:
        subprocess.run(['dpkg-deb', '-x', deb, tmp], check=True,
                       timeout=1800)
        tree = os.path.join(tmp, 'usr', 'lib', 'debug')
        vmlinux = glob.glob(os.path.join(tree, 'boot', 'vmlinux-*'))
        vdso = glob.glob(os.path.join(tree, 'lib', 'modules', '*', 'vdso',
                                      'vdso64.so'))
        cases = []
        for path, kind in ((vmlinux, 'kernel'), (vdso, 'debuginfo')):
            if len(path) != 1:
                print('FAIL: expected one file, got %r' % path)
                failed += 1
                continue
            cases.append((path[0], read_build_id(path[0]), kind))
        for path, bid, kind in cases:
            res, secs = find(build, tree, bid, kind)
            ok = res.returncode == 0 and res.stdout.strip() == path
            print('%s: %s %s (build ID %s) in %.0f ms: %s' % (
                'ok' if ok else 'FAIL', kind, os.path.relpath(path, tmp),
                bid, secs * 1000, res.stdout.strip() or res.stderr.strip()))
            sys.stdout.write(res.stderr)
            passed += ok
            failed += not ok
        # the same tree, asked for a build ID it does not have
        res, secs = find(build, tree, 'ff' * 20, 'kernel')
        ok = res.returncode == 2
        print('%s: a build ID the package lacks: exit %d in %.0f ms' % (
            'ok' if ok else 'FAIL', res.returncode, secs * 1000))
        passed += ok
        failed += not ok
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('buildiddir-deb: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
