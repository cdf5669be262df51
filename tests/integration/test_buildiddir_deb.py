#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libbuildiddirprov.so on a real Debian kernel debug package.

    SYMPROV_KERNEL_DBG_DEB=/path/to/linux-image-REL-dbg_VERSION_amd64.deb \\
        make check-buildiddir-deb

unpacks the package with `dpkg-deb -x` into a temporary directory (it is
not installed) and asks symprov, through the provider, for its vmlinux,
which has no .build-id link and must be found by its note, and for a vDSO,
which has one.  It asks the loader (concurrent_find: symprov find has no
kind for modules here) for modules of several kinds, also found by their
notes only, and measures the index of the package's modules, first with
their pages out of the page cache (directories and inodes stay cached),
then warm.  The build IDs are read from the files with readelf.  The
package is large (318 MB for 6.12.117+deb12-cloud-amd64), so this is not
part of `make check`.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from elf_fixtures import read_build_id  # noqa: E402

VAR = 'SYMPROV_KERNEL_DBG_DEB'
# modules asked for, those of them the package has: file systems, device
# mapper, crypto, netfilter, a virtual NIC
MODULES = ('xfs', 'btrfs', 'dm-crypt', 'aesni-intel', 'crc32c-intel',
           'nf_tables', 'virtio_net')
# what the index may read of a module from disk, on average: its headers
# and notes are a few pages; reading files whole is a thousand times more
READ_PER_MODULE = 64 * 1024
INDEXED = re.compile(r'indexed (\d+) kernel modules in ([\d.]+) ms, '
                     r'(\d+) directories walked')


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


def find_module(build, tree, bid):
    """The loader asked for module BID: (exit status, stdout, stderr, the
    index's line as (modules, ms, directories) or None, bytes read from
    disk)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PERF_SYMBOL_PROVIDERS', 'DEBUGINFOD_URLS')}
    env['SYMPROV_BUILDIDDIR_DIRS'] = tree
    with tempfile.TemporaryFile('w+') as out, \
            tempfile.TemporaryFile('w+') as err:
        proc = subprocess.Popen(
            [os.path.join(build, 'tests', 'concurrent_find'),
             os.path.join(build, 'lib', 'libbuildiddirprov.so'), '1', bid,
             'module', 'verbose'], env=env, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    m = INDEXED.search(stderr)
    index = (int(m.group(1)), float(m.group(2)), int(m.group(3))) if m \
        else None
    return proc.returncode, stdout, stderr, index, usage.ru_inblock * 512


def evict(tree):
    """The pages of TREE's files out of the page cache."""
    os.sync()
    for root, _dirs, files in os.walk(tree):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def check_index(build, tree, nr, cold):
    """The index of NR modules, for a build ID it lacks; True if sound."""
    if cold:
        evict(tree)
    rc, _out, err, index, read = find_module(build, tree, 'ff' * 20)
    ok = rc == 2 and index is not None and index[0] == nr
    if cold:
        ok = ok and read <= nr * READ_PER_MODULE
    print('%s: index of %d modules, %s page cache: %s, %.1f MB read '
          'from disk' % (
              'ok' if ok else 'FAIL', nr, 'cold' if cold else 'warm',
              '%d indexed, %d directories, %.1f ms' % (
                  index[0], index[2], index[1]) if index else
              'exit %d: %s' % (rc, err.strip()), read / 1e6))
    return ok


def check_modules(build, tree):
    """The modules of MODULES the package has, found by their notes, and
    the index measured: (passed, failed)."""
    kos = glob.glob(os.path.join(tree, 'lib', 'modules', '*', '**', '*.ko'),
                    recursive=True)
    by_name = {os.path.basename(p)[:-len('.ko')]: p for p in kos}
    passed = failed = 0
    for cold in (True, False):
        ok = check_index(build, tree, len(kos), cold)
        passed += ok
        failed += not ok
    wanted = [by_name[m] for m in MODULES if m in by_name]
    if not wanted:
        print('FAIL: none of the modules %s in the package' % (MODULES,))
        failed += 1
    for path in wanted:
        bid = read_build_id(path)
        rc, out, err, index, _read = find_module(build, tree, bid)
        ok = rc == 0 and out == 'found %s\n' % path
        print('%s: module %s (build ID %s), index %s: %s' % (
            'ok' if ok else 'FAIL', os.path.relpath(path, tree), bid,
            '%.1f ms' % index[1] if index else 'not built',
            out.strip() or err.strip()))
        passed += ok
        failed += not ok
    return passed, failed


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
        ok, bad = check_modules(build, tree)
        passed += ok
        failed += bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('buildiddir-deb: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
