#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libsymprov.so.1 against its stored ABI (tests/abi/libsymprov.so.1.abi,
made by `make abi-baseline`) with libabigail's abidiff: a change that
breaks a host built against an earlier libsymprov.so.1 (a symbol gone, a
struct of libsymprov.h changed in place) fails; an addition passes, said.
The fields of the opaque struct symprov_session are not the ABI
(tests/abi/libsymprov.abignore).

So that the check is known to catch what it must, two libraries built
from lib/ here are compared too and must be refused: one whose
struct symprov_answer has a field more at its start, and one without
symprov_session_known() in its version script.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BASELINE = os.path.join(HERE, 'libsymprov.so.1.abi')
# what is not the ABI: the opaque struct symprov_session
SUPPRESSIONS = os.path.join(HERE, 'libsymprov.abignore')
# abidiff's exit status: bits of what it found
ABIDIFF_ERROR, ABIDIFF_USAGE, ABIDIFF_CHANGE, ABIDIFF_INCOMPATIBLE = 1, 2, 4, 8


def abidiff(lib):
    return subprocess.run(['abidiff', '--suppressions', SUPPRESSIONS,
                           BASELINE, lib], text=True, capture_output=True,
                          timeout=300)


def breaks(res):
    """What of abidiff's report breaks an existing host: a function or
    variable removed or changed (a type it takes changed in place);
    additions do not."""
    if res.returncode == 0:
        return False
    if res.returncode & (ABIDIFF_ERROR | ABIDIFF_USAGE |
                         ABIDIFF_INCOMPATIBLE):
        return True
    for kind in ('Functions', 'Variables'):
        m = re.search(r'^%s changes summary: (\d+) Removed, (\d+) Changed'
                      % kind, res.stdout, re.M)
        if not m or int(m.group(1)) or int(m.group(2)):
            return True
    return False


def build_variant(tmp, name, header_edit=None, map_edit=None):
    """A libsymprov.so.1 of lib/ with libsymprov.h or the version script
    changed."""
    inc = os.path.join(tmp, name, 'include')
    shutil.copytree(os.path.join(REPO, 'include'), inc)
    with open(os.path.join(inc, 'libsymprov.h')) as f:
        text = f.read()
    if header_edit:
        text = header_edit(text)
    with open(os.path.join(inc, 'libsymprov.h'), 'w') as f:
        f.write(text)
    with open(os.path.join(REPO, 'lib', 'libsymprov.map')) as f:
        vscript = f.read()
    if map_edit:
        vscript = map_edit(vscript)
    mapfile = os.path.join(tmp, name, 'libsymprov.map')
    with open(mapfile, 'w') as f:
        f.write(vscript)
    lib = os.path.join(tmp, name, 'libsymprov.so.1')
    srcs = sorted(os.path.join(REPO, 'lib', f)
                  for f in os.listdir(os.path.join(REPO, 'lib'))
                  if f.endswith('.c'))
    subprocess.run(['cc', '-std=gnu11', '-g', '-O2', '-fPIC', '-shared',
                    '-fvisibility=hidden', '-I' + inc,
                    '-I' + os.path.join(REPO, 'lib'),
                    '-Wl,-soname,libsymprov.so.1',
                    '-Wl,--version-script=' + mapfile, '-o', lib] + srcs +
                   ['-lelf', '-ldl', '-lpthread'], check=True, timeout=300)
    return lib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(REPO, 'build'))
    args = ap.parse_args()
    lib = os.path.join(args.build, 'lib', 'libsymprov.so.1')
    if shutil.which('abidiff') is None:
        print('abi: CANNOT RUN: abidiff is missing (Debian package '
              'abigail-tools)')
        print('abi: 0 passed, 1 failed')
        return 1
    passed = failed = 0

    def check(ok, what, detail=''):
        nonlocal passed, failed
        print('%s %s' % ('PASS' if ok else 'FAIL', what))
        if not ok and detail:
            print(detail)
        passed += ok
        failed += not ok

    res = abidiff(lib)
    check(not breaks(res),
          '%s against %s: no change that breaks a host' % (
              os.path.relpath(lib, REPO), os.path.relpath(BASELINE, REPO)),
          res.stdout + res.stderr)
    if res.returncode & ABIDIFF_CHANGE:
        print('abi: libsymprov grew (a new LIBSYMPROV_1.x node?): '
              '`make abi-baseline` once it is released\n' + res.stdout)

    tmp = tempfile.mkdtemp(prefix='symprov-abi-')
    try:
        field = build_variant(tmp, 'field', header_edit=lambda t: re.sub(
            r'(struct symprov_answer \{\n)', r'\1\tuint64_t added;\n', t, 1))
        res = abidiff(field)
        check(breaks(res) and 'symprov_answer' in res.stdout,
              'a field more at the start of struct symprov_answer: refused',
              res.stdout + res.stderr)
        gone = build_variant(tmp, 'gone', map_edit=lambda t: t.replace(
            '\t\tsymprov_session_known;\n', ''))
        res = abidiff(gone)
        check(breaks(res) and 'symprov_session_known' in res.stdout,
              'symprov_session_known() gone from the version script: '
              'refused', res.stdout + res.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('abi: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
