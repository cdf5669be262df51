#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""libbuildiddirprov.so through symprov, on build-id trees made here.

Each layout, misses, bad files behind the right names, symlinks, and the
chain 'libbuildiddirprov.so:libdebuginfodprov.so' against a real
debuginfod whose request counters show that a local hit asks nothing.

The tree of a Debian kernel -dbg package is imitated with small ELF files:
boot/vmlinux-REL, lib/modules/REL/vmlinux -> ../../../boot/vmlinux-REL,
vmlinux-REL -> boot/vmlinux-REL, modules under lib/modules/REL/, and
.build-id links for the vDSOs only.  test_buildiddir_deb.py checks the
real package.  Modules are asked for through the loader by concurrent_find:
symprov find has no --kind for them here.
"""
import lzma
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from elf_fixtures import make_elf, make_module  # noqa: E402
from server_testcase import (ServerTestCase, copy_for_nobody,  # noqa: E402
                             run_main)

BUILD = 'build'
TIMEOUT = 120
PROVIDER = 'libbuildiddirprov.so'
REL = '6.12.0-test-amd64'

BID_DEBUG = 'bdd0000000000000000000000000000000000001'
BID_PLAIN = 'bdd0000000000000000000000000000000000002'
BID_SERVER = 'bdd0000000000000000000000000000000000003'
BID_KERNEL = 'bdd0000000000000000000000000000000000004'
BID_VDSO = 'bdd0000000000000000000000000000000000005'
BID_KERNEL2 = 'bdd0000000000000000000000000000000000006'
BID_REMOTE = 'bdd0000000000000000000000000000000000007'
BID_MOD = 'bdd0000000000000000000000000000000000008'
BID_MOD2 = 'bdd0000000000000000000000000000000000009'
BID_MOD_XZ = 'bdd000000000000000000000000000000000000a'
BID_PROG = 'bdd000000000000000000000000000000000000b'
BID_MISSING = 'bdd00000000000000000000000000000000000ff'
NOBODY = ('setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
          '--')


def build_id_path(tree, bid, suffix=''):
    return os.path.join(tree, '.build-id', bid[:2], bid[2:] + suffix)


def link(target, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def elf(path, bid, seed=0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return make_elf(path, bid, seed=seed)


def module(path, bid, seed=0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return make_module(path, bid, seed=seed)


class BuildIdDirTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        # the network's file, and one the tree also has
        make_elf(os.path.join(srv, 'remote.elf'), BID_REMOTE)
        make_elf(os.path.join(srv, 'kernel.elf'), BID_KERNEL, seed=4)

    def setUp(self):
        super().setUp()
        self.tree = os.path.join(self.home, 'debug')
        os.mkdir(self.tree)

    def find(self, bid, *args, dirs=None, providers=PROVIDER, env=None,
             prefix=(), build=None):
        env = env or self.env(SYMPROV_BUILDIDDIR_DIRS=dirs or self.tree)
        cmd = list(prefix) + [os.path.join(build or BUILD, 'bin', 'symprov'),
                              'find', '--providers', providers]
        cmd += list(args) + [bid]
        return subprocess.run(cmd, env=env, text=True, capture_output=True,
                              timeout=TIMEOUT)

    def find_module(self, bid, threads=1, dirs=None):
        """Ask the loader for the module BID from THREADS threads at once,
        with the provider's -v lines on stderr."""
        env = self.env(SYMPROV_BUILDIDDIR_DIRS=dirs or self.tree)
        cmd = [os.path.join(BUILD, 'tests', 'concurrent_find'),
               os.path.join(BUILD, 'lib', PROVIDER), str(threads), bid,
               'module', 'verbose']
        return subprocess.run(cmd, env=env, text=True, capture_output=True,
                              timeout=TIMEOUT)

    def assert_module_found(self, res, path, threads=1):
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(res.stdout, 'found %s\n' % os.path.realpath(path) *
                         threads)

    def assert_module_missing(self, res):
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertEqual(res.stdout, 'not found -\n')

    def assert_found(self, res, path):
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout, os.path.realpath(path) + '\n')

    def assert_missing(self, res):
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertEqual(res.stdout, '')

    def assert_bad_file(self, res, *words):
        """Only a bad file stood there: unavailable (4), one warning
        naming it and why, then symprov's verdict."""
        self.assertEqual(res.returncode, 4, res.stdout + res.stderr)
        self.assertEqual(res.stdout, '')
        lines = res.stderr.splitlines()
        self.assertEqual(len(lines), 2, res.stderr)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertIn('unavailable', lines[1])

    def debian_tree(self):
        """A tree laid out as linux-image-REL-dbg's /usr/lib/debug."""
        vmlinux = elf(os.path.join(self.tree, 'boot', 'vmlinux-' + REL),
                      BID_KERNEL, seed=4)
        link('../../../boot/vmlinux-' + REL,
             os.path.join(self.tree, 'lib', 'modules', REL, 'vmlinux'))
        link('boot/vmlinux-' + REL,
             os.path.join(self.tree, 'vmlinux-' + REL))
        vdso = elf(os.path.join(self.tree, 'lib', 'modules', REL, 'vdso',
                                'vdso64.so'), BID_VDSO, seed=5)
        link('../../lib/modules/%s/vdso/vdso64.so' % REL,
             build_id_path(self.tree, BID_VDSO, '.debug'))
        return vmlinux, vdso

    # -- each layout ---------------------------------------------------------

    def test_build_id_debug_link(self):
        f = elf(os.path.join(self.tree, 'usr', 'bin', 'prog.debug'),
                BID_DEBUG)
        link('../../usr/bin/prog.debug',
             build_id_path(self.tree, BID_DEBUG, '.debug'))
        for kind in ('debuginfo', 'kernel'):
            self.assert_found(self.find(BID_DEBUG, '--kind', kind), f)
        # separate debug info is not the executable
        self.assert_missing(self.find(BID_DEBUG, '--kind', 'executable'))

    def test_build_id_plain_file(self):
        f = elf(build_id_path(self.tree, BID_PLAIN), BID_PLAIN)
        for kind in ('executable', 'kernel'):
            self.assert_found(self.find(BID_PLAIN, '--kind', kind), f)
        self.assert_missing(self.find(BID_PLAIN, '--kind', 'debuginfo'))

    def test_debuginfod_server_layout(self):
        d = os.path.join(self.tree, 'buildid', BID_SERVER)
        dbg = elf(os.path.join(d, 'debuginfo'), BID_SERVER)
        self.assert_found(self.find(BID_SERVER, '--kind', 'debuginfo'), dbg)
        self.assert_found(self.find(BID_SERVER), dbg)
        self.assert_missing(self.find(BID_SERVER, '--kind', 'executable'))
        os.unlink(dbg)
        exe = elf(os.path.join(d, 'executable'), BID_SERVER)
        self.assert_found(self.find(BID_SERVER, '--kind', 'executable'), exe)
        self.assert_found(self.find(BID_SERVER), exe)

    def test_debian_kernel_package_layout(self):
        vmlinux, vdso = self.debian_tree()
        # no .build-id link: found by its note, by its own name
        self.assert_found(self.find(BID_KERNEL), vmlinux)
        self.assert_found(self.find(BID_VDSO, '--kind', 'debuginfo'), vdso)
        # a kernel only under lib/modules, and one in a second tree
        other = os.path.join(self.home, 'other')
        k2 = elf(os.path.join(other, 'lib', 'modules', 'x', 'vmlinux'),
                 BID_KERNEL2, seed=6)
        dirs = self.tree + ':' + other
        self.assert_found(self.find(BID_KERNEL2, dirs=dirs), k2)
        self.assert_found(self.find(BID_KERNEL, dirs=dirs), vmlinux)
        # the index is for kernels alone
        self.assert_missing(self.find(BID_KERNEL, '--kind', 'debuginfo'))

    def modules_tree(self):
        """Modules of a -dbg package: in kernel/, updates/ and extra/, a
        compressed one, and a loop."""
        mods = os.path.join(self.tree, 'lib', 'modules', REL)
        xfs = module(os.path.join(mods, 'kernel', 'fs', 'xfs', 'xfs.ko'),
                     BID_MOD)
        dkms = module(os.path.join(mods, 'updates', 'dkms', 'x.ko'),
                      BID_MOD2, seed=1)
        xz = module(os.path.join(mods, 'extra', 'z.ko'), BID_MOD_XZ, seed=2)
        with open(xz, 'rb') as f, lzma.open(xz + '.xz', 'wb') as out:
            out.write(f.read())
        os.unlink(xz)
        os.symlink('../..', os.path.join(mods, 'kernel', 'fs', 'up'))
        return xfs, dkms

    def test_debian_kernel_package_modules(self):
        vmlinux, _vdso = self.debian_tree()
        xfs, dkms = self.modules_tree()
        # 8 threads at once, one index: one line of it
        res = self.find_module(BID_MOD, threads=8)
        self.assert_module_found(res, xfs, threads=8)
        self.assertEqual(res.stderr.count('indexed 2 kernel modules'), 1,
                         res.stderr)
        self.assert_module_found(self.find_module(BID_MOD2), dkms)
        # compressed: left out
        self.assert_module_missing(self.find_module(BID_MOD_XZ))
        # a kernel is not a module, nor a module a kernel
        self.assert_module_missing(self.find_module(BID_KERNEL))
        self.assert_missing(self.find(BID_MOD))
        self.assert_found(self.find(BID_KERNEL), vmlinux)
        # nor a user object
        for kind in ('debuginfo', 'executable'):
            self.assert_missing(self.find(BID_MOD, '--kind', kind))

    def test_module_debug_link_first(self):
        # Fedora's kernel-debuginfo: a .build-id link to the module's debug
        # file, and one to the installed module, compressed
        debug = module(os.path.join(self.tree, 'lib', 'modules', REL,
                                    'kernel', 'fs', 'xfs', 'xfs.ko.debug'),
                       BID_MOD)
        link('../../lib/modules/%s/kernel/fs/xfs/xfs.ko.debug' % REL,
             build_id_path(self.tree, BID_MOD, '.debug'))
        installed = os.path.join(self.home, 'lib', 'modules', REL, 'xfs.ko.xz')
        os.makedirs(os.path.dirname(installed))
        with lzma.open(installed, 'wb') as out:
            out.write(b'not looked at')
        link(installed, build_id_path(self.tree, BID_MOD))
        res = self.find_module(BID_MOD)
        self.assert_module_found(res, debug)
        self.assertNotIn('indexed', res.stderr)
        # the installed module alone: not a module's file, and no warning
        os.unlink(build_id_path(self.tree, BID_MOD, '.debug'))
        res = self.find_module(BID_MOD)
        self.assert_module_missing(res)
        self.assertNotIn(installed, res.stderr)
        # a debuginfod server's layout
        srv = os.path.join(self.home, 'srv')
        dbg = module(os.path.join(srv, 'buildid', BID_MOD, 'debuginfo'),
                     BID_MOD)
        module(os.path.join(srv, 'buildid', BID_MOD, 'executable'), BID_MOD)
        self.assert_module_found(self.find_module(BID_MOD, dirs=srv), dbg)

    def test_program_and_its_debug_file(self):
        """Both files of a program in one tree: each kind its own."""
        plain = elf(build_id_path(self.tree, BID_PROG), BID_PROG)
        debug = elf(build_id_path(self.tree, BID_PROG, '.debug'), BID_PROG,
                    seed=1)
        srv = os.path.join(self.home, 'srv')
        exe = elf(os.path.join(srv, 'buildid', BID_PROG, 'executable'),
                  BID_PROG)
        dbg = elf(os.path.join(srv, 'buildid', BID_PROG, 'debuginfo'),
                  BID_PROG, seed=1)
        for tree, want_exe, want_dbg in ((self.tree, plain, debug),
                                         (srv, exe, dbg)):
            self.assert_found(self.find(BID_PROG, '--kind', 'executable',
                                        dirs=tree), want_exe)
            self.assert_found(self.find(BID_PROG, '--kind', 'debuginfo',
                                        dirs=tree), want_dbg)
            self.assert_found(self.find(BID_PROG, dirs=tree), want_dbg)

    def test_trees_in_order(self):
        first = os.path.join(self.home, 'first')
        a = elf(build_id_path(first, BID_PLAIN), BID_PLAIN)
        b = elf(build_id_path(self.tree, BID_PLAIN), BID_PLAIN, seed=1)
        self.assert_found(self.find(BID_PLAIN, dirs=first + ':' +
                                    self.tree), a)
        self.assert_found(self.find(BID_PLAIN, dirs=self.tree + ':' +
                                    first), b)

    # -- misses and bad files -------------------------------------------------

    def test_missing(self):
        self.debian_tree()
        res = self.find(BID_MISSING)
        self.assert_missing(res)
        self.assertIn('not found', res.stderr)
        self.assert_missing(self.find(BID_MISSING, dirs='/nonexistent'))

    def test_wrong_build_id_behind_the_right_name(self):
        wrong = elf(build_id_path(self.tree, BID_DEBUG, '.debug'),
                    BID_PLAIN)
        res = self.find(BID_DEBUG, '--kind', 'debuginfo')
        self.assert_bad_file(res, wrong, 'build ID differs')
        # a good file later on is still found
        later = os.path.join(self.home, 'later')
        good = elf(os.path.join(later, 'buildid', BID_DEBUG, 'debuginfo'),
                   BID_DEBUG)
        self.assert_found(self.find(BID_DEBUG, '--kind', 'debuginfo',
                                    dirs=self.tree + ':' + later), good)

    def test_not_elf_behind_the_right_name(self):
        p = build_id_path(self.tree, BID_PLAIN)
        os.makedirs(os.path.dirname(p))
        with open(p, 'w') as f:
            f.write('not an ELF file\n')
        self.assert_bad_file(self.find(BID_PLAIN), p, 'not an ELF file')
        os.unlink(p)
        os.mkdir(p)
        self.assert_bad_file(self.find(BID_PLAIN), p, 'not a regular file')

    def test_dangling_symlink(self):
        link('../../usr/bin/gone.debug',
             build_id_path(self.tree, BID_DEBUG, '.debug'))
        link('../../../boot/vmlinux-gone',
             os.path.join(self.tree, 'lib', 'modules', 'gone', 'vmlinux'))
        self.assert_missing(self.find(BID_DEBUG, '--kind', 'debuginfo'))
        self.assert_missing(self.find(BID_DEBUG))

    def test_symlink_out_of_the_tree(self):
        outside = os.path.join(self.home, 'outside')
        good = elf(os.path.join(outside, 'prog.debug'), BID_DEBUG)
        link(good, build_id_path(self.tree, BID_DEBUG, '.debug'))
        # followed, as Fedora's links into /usr/lib/modules need...
        self.assert_found(self.find(BID_DEBUG, '--kind', 'debuginfo'), good)
        # ...but never to a file with another build ID
        other = elf(os.path.join(outside, 'other'), BID_PLAIN)
        link(other, build_id_path(self.tree, BID_KERNEL, '.debug'))
        res = self.find(BID_KERNEL, '--kind', 'debuginfo')
        self.assert_bad_file(res, '-> ' + other, 'build ID differs')
        # a kernel symlink out of the tree is known by its file's note
        os.unlink(build_id_path(self.tree, BID_KERNEL, '.debug'))
        link(other, os.path.join(self.tree, 'boot', 'vmlinux-evil'))
        self.assert_missing(self.find(BID_KERNEL))
        self.assert_found(self.find(BID_PLAIN), other)

    def test_unreadable_file(self):
        f = elf(build_id_path(self.tree, BID_PLAIN), BID_PLAIN)
        os.chmod(f, 0)
        for root, dirs, _files in os.walk(self.tree):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        if os.geteuid() == 0:
            # root reads a file of mode 0: ask as nobody
            self.assertIsNotNone(shutil.which('setpriv'), 'needs setpriv')
            kw = dict(prefix=NOBODY, build=copy_for_nobody(
                BUILD, os.path.join(self.tmp, 'nobody-build'),
                ('bin/symprov', 'lib/' + PROVIDER)))
        else:
            kw = {}
        res = self.find(BID_PLAIN, '--kind', 'executable', **kw)
        self.assert_bad_file(res, f, 'Permission denied')
        # a readable copy in a later tree is found
        later = os.path.join(self.home, 'later')
        good = elf(os.path.join(later, 'buildid', BID_PLAIN, 'executable'),
                   BID_PLAIN)
        os.chmod(later, 0o755)
        self.assert_found(self.find(BID_PLAIN, '--kind', 'executable',
                                    dirs=self.tree + ':' + later, **kw),
                          good)

    # -- the chain with the network -----------------------------------------

    def test_chain_local_first_network_second(self):
        vmlinux, _vdso = self.debian_tree()
        chain = PROVIDER + ':libdebuginfodprov.so'
        ok = self.server.responses(code=200)

        def ok_before():
            return ok
        before = self.server.responses()
        # the server has this kernel too: the local copy wins, no request
        self.assert_found(self.find(BID_KERNEL, providers=chain), vmlinux)
        self.assertEqual(self.server.responses(), before)
        # a local miss goes to the network
        res = self.find(BID_REMOTE, providers=chain)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.startswith(self.cache), res.stdout)
        self.assertEqual(self.server.responses(code=200) - ok_before(), 1)
        # so does a bad local file, named and passed over
        elf(build_id_path(self.tree, BID_REMOTE, '.debug'), BID_KERNEL2)
        shutil.rmtree(self.cache)
        res = self.find(BID_REMOTE, providers=chain)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.startswith(self.cache), res.stdout)
        self.assertIn('build ID differs', res.stderr)
        self.assertEqual(self.server.responses(code=200) - ok_before(), 2)



if __name__ == '__main__':
    sys.exit(run_main('buildiddir', sys.modules[__name__]))
