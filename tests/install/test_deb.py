#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""debian/: `dpkg-buildpackage -us -uc -b` on a copy of the source files,
the packages split as Debian splits a library (libsymprov1,
libsymprov-dev, symprov-providers, symprov), what each holds and depends
on, and that their symprov finds the providers by bare name in
/usr/lib/<multiarch>/symprov (root: the packages' files are laid over the
system's with a read-only overlay in a private mount namespace; nothing is
installed)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from server_testcase import run_main  # noqa: E402

TIMEOUT = 900
PACKAGES = ('libsymprov1', 'libsymprov-dev', 'symprov-providers', 'symprov')


def run(cmd, **kw):
    return subprocess.run(cmd, text=True, capture_output=True,
                          timeout=TIMEOUT, **kw)


def source_files():
    """The files of the source tree: git's list in a clone, else every
    file but the build (an exported tree, a source package)."""
    if os.path.isdir(os.path.join(REPO, '.git')):
        files = run(['git', '-C', REPO, 'ls-files', '-z'],
                    check=True).stdout.split('\0')
        return [f for f in files if f]
    out = []
    for d, dirs, names in os.walk(REPO):
        rel = os.path.relpath(d, REPO)
        if rel == '.':
            dirs[:] = [x for x in dirs if x not in ('build', '.git')]
        out += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(out)

class DebTest(unittest.TestCase):
    tmp = None
    deb = None
    multiarch = None

    @classmethod
    def setUpClass(cls):
        for tool in ('dpkg-buildpackage', 'dh'):
            if shutil.which(tool) is None:
                raise AssertionError('CANNOT RUN: %s is missing (Debian '
                                     'packages dpkg-dev, debhelper)' % tool)
        cls.tmp = tempfile.mkdtemp(prefix='symprov-deb-')
        src = os.path.join(cls.tmp, 'symprov')
        for f in source_files():
            if os.path.lexists(os.path.join(REPO, f)):
                os.makedirs(os.path.dirname(os.path.join(src, f)),
                            exist_ok=True)
                shutil.copy2(os.path.join(REPO, f), os.path.join(src, f),
                             follow_symlinks=False)
        env = {k: v for k, v in os.environ.items()
               if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
        res = run(['dpkg-buildpackage', '-us', '-uc', '-b'], cwd=src,
                  env=env)
        if res.returncode:
            raise AssertionError('dpkg-buildpackage failed:\n' +
                                 (res.stdout + res.stderr)[-4000:])
        cls.multiarch = run(['dpkg-architecture', '-qDEB_HOST_MULTIARCH'],
                            check=True).stdout.strip()
        arch = run(['dpkg-architecture', '-qDEB_HOST_ARCH'],
                   check=True).stdout.strip()
        cls.debs = {p: os.path.join(cls.tmp, '%s_%s_%s.deb' % (
            p, cls.version(src), arch)) for p in PACKAGES}
        cls.root = os.path.join(cls.tmp, 'root')
        for deb in cls.debs.values():
            run(['dpkg-deb', '-x', deb, cls.root], check=True)

    @staticmethod
    def version(src):
        return run(['dpkg-parsechangelog', '-S', 'Version'], cwd=src,
                   check=True).stdout.strip()

    @classmethod
    def tearDownClass(cls):
        if cls.tmp:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def files(self, package):
        return {f for f in run(['dpkg-deb', '-c', self.debs[package]],
                               check=True).stdout.split()
                if f.startswith('./') and not f.endswith('/')}

    def depends(self, package):
        return run(['dpkg-deb', '-f', self.debs[package], 'Depends'],
                   check=True).stdout

    def test_contents(self):
        lib = './usr/lib/%s/' % self.multiarch
        want = {
            'libsymprov1': {lib + 'libsymprov.so.1',
                            lib + 'libsymprov.so.1.2.0'},
            'libsymprov-dev': {'./usr/include/libsymprov.h',
                               './usr/include/symprov.h',
                               lib + 'libsymprov.so',
                               lib + 'pkgconfig/symprov.pc',
                               './usr/share/man/man3/libsymprov.3.gz',
                               './usr/share/man/man7/symprov-provider.7.gz'},
            'symprov-providers': {lib + 'symprov/libdebuginfodprov.so',
                                  lib + 'symprov/libbuildiddirprov.so'},
            'symprov': {'./usr/bin/symprov',
                        './usr/share/man/man1/symprov.1.gz'},
        }
        for package, files in want.items():
            got = {f for f in self.files(package)
                   if not f.startswith('./usr/share/doc/')}
            self.assertEqual(got, files, package)
            self.assertIn('./usr/share/doc/%s/copyright' % package,
                          self.files(package))
        # the library's SONAME, and its symbols file gives the dependency
        res = run(['readelf', '-d', os.path.join(
            self.root, lib, 'libsymprov.so.1.2.0')], check=True)
        self.assertIn('Library soname: [libsymprov.so.1]', res.stdout)
        self.assertIn('libsymprov1 (>= 0.2)', self.depends('symprov'))
        self.assertIn('libelf1', self.depends('libsymprov1'))
        self.assertIn('libdebuginfod1', self.depends('symprov-providers'))
        self.assertNotIn('libsymprov1', self.depends('symprov-providers'))
        self.assertIn('libsymprov1 (=', self.depends('libsymprov-dev'))
        with open(os.path.join(self.root, lib, 'pkgconfig',
                               'symprov.pc')) as f:
            pc = f.read()
        self.assertIn('includedir=/usr/include\n', pc)
        self.assertIn('libdir=/usr/lib/%s\n' % self.multiarch, pc)

    def test_bare_names_from_the_package_libdir(self):
        if os.geteuid() != 0 or shutil.which('unshare') is None:
            self.fail('CANNOT RUN: needs root and unshare, to lay the '
                      "package's files over /usr/lib/%s privately"
                      % self.multiarch)
        libdir = '/usr/lib/' + self.multiarch
        script = ('mount -t overlay overlay -o "lowerdir=$1$2:$2" "$2" && '
                  'shift 2 && exec "$@"')
        env = {k: v for k, v in os.environ.items()
               if k not in ('LD_LIBRARY_PATH', 'PERF_SYMBOL_PROVIDERS')}
        res = run(['unshare', '--mount', '--propagation', 'private', 'sh',
                   '-c', script, 'sh', self.root, libdir,
                   os.path.join(self.root, 'usr', 'bin', 'symprov'), 'list',
                   '--providers', 'libbuildiddirprov.so:libdebuginfodprov.so'],
                  env=env)
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        self.assertEqual(len(lines), 2, res.stdout)
        # the directory libsymprov was loaded from: /lib/<multiarch> or
        # /usr/lib/<multiarch>, as ld.so.cache has it, one directory
        for line, name in zip(lines, ('buildiddir', 'debuginfod')):
            self.assertEqual(os.path.realpath(line.split('\t')[3]),
                             os.path.realpath('%s/symprov/lib%sprov.so'
                                              % (libdir, name)))


if __name__ == '__main__':
    sys.exit(run_main('deb', sys.modules[__name__], debuginfod=False))
