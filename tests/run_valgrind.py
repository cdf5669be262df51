#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The loader and provider under valgrind memcheck.

Runs the unit tests and symprov against a real debuginfod under valgrind,
and fails on any memory error, and on any leak with a frame in the
project's code.  Leaks wholly inside system libraries (gnutls' global
tables, allocated by its constructors when libcurl is loaded) are counted
and shown, not failed: they are not ours to fix.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, 'lib'))

from debuginfod_server import DebuginfodServer  # noqa: E402
from elf_fixtures import make_elf, make_kernel_elf  # noqa: E402

BID = '7a1900000000000000000000000000000000c0de'
BID_MISSING = '7a19000000000000000000000000000000000000'
BID_KERNEL = '7a1900000000000000000000000000000000c1c1'
VALGRIND = ['valgrind', '--leak-check=full', '--show-leak-kinds=all',
            '--keep-debuginfo=yes', '--track-origins=yes',
            '--child-silent-after-fork=yes', '--xml=yes']


def ours(frame):
    """A frame of the project's code: its file is in the repository."""
    d = frame.findtext('dir') or ''
    obj = frame.findtext('obj') or ''
    return d.startswith(REPO) or obj.startswith(REPO)


def check(name, cmd, env, expect_rc=(0,)):
    with tempfile.NamedTemporaryFile(suffix='.xml') as xml:
        proc = subprocess.run(VALGRIND + ['--xml-file=' + xml.name] + cmd,
                              env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=600)
        root = ET.parse(xml.name).getroot()
    problems, foreign = [], 0
    for err in root.iter('error'):
        kind = err.findtext('kind')
        frames = list(err.iter('frame'))
        if kind.startswith('Leak_'):
            if kind == 'Leak_StillReachable':
                continue
            if not any(ours(f) for f in frames):
                foreign += 1
                continue
        where = ['%s %s:%s' % (f.findtext('fn'), f.findtext('file'),
                               f.findtext('line')) for f in frames[:6]]
        problems.append('%s: %s\n    %s' % (
            kind, err.findtext('what') or
            err.find('xwhat').findtext('text'), '\n    '.join(where)))
    ok = proc.returncode in expect_rc and not problems
    print('%s: %s (%d error(s) of ours, %d leak report(s) in system '
          'libraries)' % (name, 'ok' if ok else 'FAILED', len(problems),
                          foreign))
    for p in problems:
        print('  ' + p)
    if proc.returncode not in expect_rc:
        print('  exit %d, expected %s\n%s' % (proc.returncode, expect_rc,
                                               proc.stdout[-3000:]))
    return ok


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else 'build')
    if shutil.which('valgrind') is None:
        print('valgrind: not installed (Debian package valgrind)')
        print('valgrind: 0 passed, 1 failed')
        return 1
    results = []
    env = dict(os.environ, SYMPROV_TEST_PROVIDERS=os.path.join(
        build, 'tests', 'providers'))
    for t in ('test_loader', 'test_symprov_memo', 'test_symprov_verify', 'test_list',
              'test_buildid', 'test_struct', 'test_buildiddir',
              'test_session', 'test_keys'):
        results.append(check(t, [os.path.join(build, 'tests', t)], env))

    tmp = tempfile.mkdtemp(prefix='symprov-vg-')
    try:
        srv = os.path.join(tmp, 'srv')
        os.mkdir(srv)
        make_elf(os.path.join(srv, 'f.elf'), BID)
        make_kernel_elf(os.path.join(srv, 'k.elf'), BID_KERNEL)
        with DebuginfodServer(srv) as server:
            env = server.client_env(tmp)
            symprov = os.path.join(build, 'bin', 'symprov')
            prov = ['--providers', 'libdebuginfodprov.so']
            for name, args, rc in (
                    ('symprov find (download)', prov + [BID], 0),
                    ('symprov find (cached)', prov + [BID], 0),
                    ('symprov find (miss)', prov + [BID_MISSING], 2),
                    ('symprov find (opted out)',
                     prov + ['--no-debuginfod', BID], 3),
                    ('symprov find (bad entry)',
                     ['--providers', '/nonexistent.so:libdebuginfodprov.so',
                      BID], 0),
                    ('symprov find --symbols-only (sections)',
                     prov + ['--symbols-only', BID_KERNEL], 0),
                    ('symprov find --symbols-only (cached)',
                     prov + ['--symbols-only', BID_KERNEL], 0),
                    ('symprov find --symbols-only (whole file)',
                     prov + ['--symbols-only', BID], 0)):
                results.append(check(name, [symprov, 'find'] + args, env,
                                     (rc,)))
            results.append(check('concurrent_find (8 threads)', [
                os.path.join(build, 'tests', 'concurrent_find'),
                os.path.join(build, 'lib', 'libdebuginfodprov.so'), '8',
                BID], env))
            results.append(check('symprov list', [
                symprov, 'list', '--providers',
                'libdebuginfodprov.so:libexampleprov.so:x.so'], env))
        # the buildiddir provider: a .build-id link, then the kernel index
        tree = os.path.join(tmp, 'tree')
        os.makedirs(os.path.join(tree, '.build-id', BID[:2]))
        os.makedirs(os.path.join(tree, 'boot'))
        os.symlink(os.path.join(srv, 'f.elf'),
                   os.path.join(tree, '.build-id', BID[:2], BID[2:]))
        env = dict(os.environ, SYMPROV_BUILDIDDIR_DIRS=tree)
        prov = ['--providers', 'libbuildiddirprov.so']
        results.append(check('symprov find (buildiddir)',
                             [symprov, 'find'] + prov + [BID], env))
        os.rename(os.path.join(srv, 'f.elf'),
                  os.path.join(tree, 'boot', 'vmlinux-x'))
        results.append(check('symprov find (buildiddir, index)',
                             [symprov, 'find'] + prov + [BID], env))
        results.append(check('symprov check', [
            symprov, 'check', 'libbuildiddirprov.so'], env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(results)
    print('valgrind: %d passed, %d failed' % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == '__main__':
    sys.exit(main())
