#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`symprov prefetch --perf-cache`: the files a profile needs, from a real
debuginfod or a local build-id tree, into perf's own build-id cache, where
a perf without symbol providers reads them: Debian's /usr/bin/perf (6.1)
by default, each --perf PERF given otherwise (a stock 6.12 or 7.3).

Each perf records its own profile here, of its workload alone (a
system-wide one would take in processes from outside this root, which
nothing here names): a program and a shared object built here, then taken
away (the server has them stripped, and their debug files); two modules
spliced in (tests/e2e/objects_fixture.py); the kernel moved to a build ID
of its own, served as a stand-in vmlinux whose symbols have other names
than this machine's kallsyms (perf 7.3 names a kernel that is not the
running one from /proc/kallsyms: its names would hide a cache perf did not
read).  perf 6.x writes the build IDs in the header's table, perf 7.3 in
its MMAP2 events.  Before the command perf reports raw addresses, or names
the kernel's from kallsyms; after it, with HOME a scratch directory, the
kernel and user lines are those of a --vmlinux/--symfs control and the
module samples where the .ko files' own symbol tables put them, the files
coming from the server or from a tree of libbuildiddirprov.so.  Also: the
layout perf's own buildid-cache commands work on, a second run that asks
nothing, a file of perf's kept, a directory of another user refused, and a
reader running beside the command that never opens part of a file.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, os.path.join(HERE, '..', 'e2e'))

import make_profile  # noqa: E402
import make_standin  # noqa: E402
import objects_fixture  # noqa: E402
from compare_reports import parse_report  # noqa: E402
from e2elib import clean_env  # noqa: E402
from elf_fixtures import read_build_id  # noqa: E402
from minimal_perfdata import minimal  # noqa: E402
from perfdata import PerfData  # noqa: E402
from server_testcase import ServerTestCase, run_main  # noqa: E402

BUILD = 'build'
TIMEOUT = 300
PERF = '/usr/bin/perf'
NEW_KERNEL = '5e1f0000000000000000000000000000000cac4e'
REPORT = ['report', '--stdio', '--sort', 'dso,sym', '-F',
          'overhead,sample,dso,sym']
NOBODY = 65534
REL = objects_fixture.RELEASE
# The stand-in kernel's names: this machine's, with this before them.
OTHER = 'other_'
# Names the stand-in keeps: perf finds the kernel's relocation by them.
KEPT_NAMES = ('_text', '_stext', '_etext')


def symprov():
    return os.path.join(BUILD, 'bin', 'symprov')


def other_kallsyms(src, dst):
    """DST: the kallsyms SRC with every core kernel symbol renamed."""
    with open(src) as f, open(dst, 'w') as out:
        for line in f:
            parts = line.split(' ', 2)
            if (len(parts) == 3 and '\t' not in parts[2] and
                    parts[2].strip() not in KEPT_NAMES):
                line = '%s %s %s%s' % (parts[0], parts[1], OTHER, parts[2])
            out.write(line)


def samples(text, keep):
    """{(dso, symbol): samples} of a report, of the entries KEEP keeps."""
    out = {}
    for e in parse_report(text):
        if keep(e):
            out[(e.dso, e.sym)] = out.get((e.dso, e.sym), 0) + e.nums[0]
    return out


def cache_files(top):
    """{path below TOP: (inode, mtime, size)} of every file and link."""
    out = {}
    for root, dirs, files in os.walk(top):
        for name in files + [d for d in dirs
                             if os.path.islink(os.path.join(root, d))]:
            p = os.path.join(root, name)
            st = os.lstat(p)
            out[os.path.relpath(p, top)] = (st.st_ino, st.st_mtime_ns,
                                            st.st_size)
    return out


class PerfCacheChecks:
    """The checks, with the perf PERF; a class of its own for each perf
    (perf_test_classes()), each recording its profile."""

    PERF = PERF

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 or not os.access(cls.PERF, os.X_OK):
            raise AssertionError('needs root (kernel samples) and %s '
                                 '(Debian package linux-perf)' % cls.PERF)
        super().setUpClass()

    @classmethod
    def make_fixtures(cls, srv):
        work = os.path.join(cls.tmp, 'work')
        objs = os.path.join(work, 'objs', 'usr', 'lib', 'symprov-pc')
        cls.prog, cls.lib = objects_fixture.build_user_object(objs)
        orig = os.path.join(work, 'orig.data')
        home = os.path.join(work, 'home-record')
        os.makedirs(home)
        make_profile.record(cls.PERF, orig, 1, [
            'sh', '-c', '"$1" 1 & timeout 1 dd if=/dev/zero of=/dev/null '
            'bs=512 status=none & wait', 'sh', cls.prog], clean_env(home),
            system_wide=False)
        other_kallsyms('/proc/kallsyms', os.path.join(work, 'kallsyms'))
        # what the server has, by build ID and the cache's file name
        cls.files = {}
        cls.symfs = os.path.join(work, 'symfs')
        for path in (cls.prog, cls.lib):
            base = os.path.join(srv, os.path.basename(path))
            objects_fixture.split_debug(path, base, base + '.debug')
            bid = read_build_id(path)
            cls.files[(bid, 'elf')] = base
            cls.files[(bid, 'debug')] = base + '.debug'
            os.makedirs(os.path.dirname(cls.symfs + path), exist_ok=True)
            shutil.copy(path, cls.symfs + path)
        shutil.rmtree(os.path.join(work, 'objs'))
        mdir = os.path.join(work, 'modules', 'kernel', 'fs', 'symprov')
        os.makedirs(mdir)
        kos = [objects_fixture.build_module(
            os.path.join(mdir, 'symprov_pc%d.ko' % i), 'symprov_pc%d' % i)
            for i in range(2)]
        cls.mods = [objects_fixture.Module(ko) for ko in kos]
        for m in cls.mods:
            shutil.copy(m.path, srv)
            cls.files[(m.build_id, 'elf')] = os.path.join(
                srv, os.path.basename(m.path))
        cls.profile = os.path.join(work, 'moved.data')
        spliced = os.path.join(work, 'mods.data')
        cls.want_modules = objects_fixture.splice_modules(orig, spliced,
                                                          cls.mods)
        make_profile.move_profile(spliced, cls.profile, NEW_KERNEL)
        cls.vmlinux = os.path.join(srv, 'vmlinux')
        make_standin.build(os.path.join(work, 'kallsyms'), NEW_KERNEL,
                           cls.vmlinux, work)
        cls.files[(NEW_KERNEL, 'elf')] = cls.vmlinux
        cls.served = {k: os.path.getsize(p) for k, p in cls.files.items()}

    def setUp(self):
        super().setUp()
        self.debug = os.path.join(self.home, '.debug')

    def perf_env(self, home=None):
        return clean_env(home or self.home)

    def perf(self, *args, home=None):
        res = subprocess.run([self.PERF] + list(args),
                             env=self.perf_env(home),
                             text=True, capture_output=True,
                             timeout=TIMEOUT)
        self.assertEqual(res.returncode, 0, res.stderr[-2000:])
        return res.stdout

    def report(self, *extra, home=None):
        return self.perf(*(REPORT + ['-i', self.profile] + list(extra)),
                         home=home)

    def prefetch(self, *args, jobs=1, env=None, profile=None,
                 providers=('--providers', 'libdebuginfodprov.so')):
        env = env or self.env()
        # perf's config of this HOME decides the directory, not the caller's
        for var in ('PERF_CONFIG', 'PERF_BUILDID_DIR'):
            env.pop(var, None)
        if not any(a.startswith('--perf-cache') for a in args):
            args += ('--perf-cache',)
        return subprocess.run(
            [symprov(), 'prefetch', '-i', profile or self.profile,
             '--jobs', str(jobs)] + list(providers) + list(args), env=env,
            text=True, capture_output=True, timeout=TIMEOUT)

    def is_module(self, e):
        return e.dso in {m.short for m in self.mods}

    def is_mine(self, e):
        """A line of the kernel or of the objects taken away."""
        return ((e.kernel and not self.is_module(e)) or
                e.dso in ('objs', 'libobjs.so'))

    def control(self):
        """The kernel and user lines with the files given to perf."""
        home = os.path.join(self.home, 'control')
        os.makedirs(home)
        return samples(self.report('--vmlinux', self.vmlinux, '--symfs',
                                   self.symfs, home=home), self.is_mine)

    def assert_not_named(self, control):
        """No line has the name the files give it: lines are raw, or the
        kernel's are named from this machine's kallsyms (perf 7.3), whose
        names are not the stand-in's."""
        mine = [e for e in parse_report(self.report())
                if self.is_mine(e) or self.is_module(e)]
        self.assertTrue(mine, 'no kernel or program samples recorded')
        wanted = set(control) | set(self.want_modules)
        named = [e.line for e in mine
                 if not e.raw and (e.dso, e.sym) in wanted]
        self.assertEqual(named, [], 'named without the files')

    def assert_named_as_control(self, control):
        after = self.report()
        named = {e.dso for e in parse_report(after) if not e.raw}
        self.assertLessEqual({'[kernel.kallsyms]', 'objs', 'libobjs.so'} |
                             {m.short for m in self.mods}, named)
        self.assertEqual(samples(after, self.is_mine), control)
        self.assertEqual(samples(after, self.is_module),
                         dict(self.want_modules))

    def buildiddir_tree(self):
        """The server's files in a tree as Debian's debug packages lay
        theirs out: the objects by .build-id links, the kernel and the
        modules by their place, for libbuildiddirprov.so's index."""
        tree = os.path.join(self.home, 'tree')
        for (bid, base), path in self.files.items():
            if bid == NEW_KERNEL:
                dest = os.path.join(tree, 'boot', 'vmlinux-' + REL)
            elif path.endswith('.ko'):
                dest = os.path.join(tree, 'lib', 'modules', REL, 'kernel',
                                    'fs', 'symprov', os.path.basename(path))
            else:
                dest = os.path.join(tree, '.build-id', bid[:2], bid[2:] +
                                    ('.debug' if base == 'debug' else ''))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            os.link(path, dest)
        return tree

    # --------------------------------------------------------------------
    def test_stock_perf_names_every_line(self):
        control = self.control()
        self.assert_not_named(control)
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn(', in %s;' % self.debug, res.stderr)
        self.assert_named_as_control(control)

    def test_from_a_buildiddir_tree(self):
        """The same from a site's symbol store, through
        libbuildiddirprov.so, which the server is not asked for."""
        control = self.control()
        self.assert_not_named(control)
        asked = self.server.response_counts()
        res = self.prefetch(providers=(), env=self.env(
            PERF_SYMBOL_PROVIDERS='libbuildiddirprov.so',
            SYMPROV_BUILDIDDIR_DIRS=self.buildiddir_tree()))
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn(', in %s;' % self.debug, res.stderr)
        self.assertEqual(self.server.response_counts(), asked)
        self.assert_named_as_control(control)

    def test_the_layout_of_perf_buildid_cache(self):
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stderr)
        names = {m.build_id: m.name for m in self.mods}
        names[NEW_KERNEL] = '/[kernel.kallsyms]'
        names[read_build_id(self.symfs + self.prog)] = self.prog
        names[read_build_id(self.symfs + self.lib)] = self.lib
        for bid, name in names.items():
            link = os.path.join(self.debug, '.build-id', bid[:2], bid[2:])
            self.assertEqual(os.readlink(link), '../..%s/%s' % (name, bid))
            self.assertTrue(os.path.isfile(os.path.join(link, 'elf')))
        modules = {m.build_id for m in self.mods}
        for (bid, base), size in self.served.items():
            path = os.path.join(self.debug, '.build-id', bid[:2], bid[2:],
                                base)
            # the modules' symbols only; the kernel's symbols only where
            # its tables make them (not the stand-in's); the rest whole
            if bid in modules:
                self.assertLess(os.path.getsize(path), size, path)
            elif bid != NEW_KERNEL:
                self.assertEqual(os.path.getsize(path), size, path)
        # perf's own commands work on it: --remove of a file with the
        # build ID, --purge of a recorded name, --purge-all
        self.perf('buildid-cache', '--remove', self.vmlinux)
        self.assertFalse(os.path.lexists(os.path.join(
            self.debug, '.build-id', NEW_KERNEL[:2], NEW_KERNEL[2:])))
        self.assertFalse(os.path.lexists(os.path.join(
            self.debug, '[kernel.kallsyms]', NEW_KERNEL)))
        self.perf('buildid-cache', '--purge', self.prog)
        self.assertEqual(os.listdir(self.debug + self.prog), [])
        self.assertTrue(os.listdir(self.debug + self.lib))
        self.perf('buildid-cache', '--purge-all')
        self.assertEqual([f for _, _, files in os.walk(self.debug)
                          for f in files], [])
        self.assert_not_named(self.control())

    def test_a_second_run_asks_nothing_and_changes_nothing(self):
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stderr)
        files = cache_files(self.debug)
        asked = self.server.response_counts()
        # a client cache of its own: what it asked would reach the server
        res = self.prefetch(env=self.env(
            DEBUGINFOD_CACHE_PATH=os.path.join(self.home, 'cache2')))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(self.server.response_counts(), asked)
        self.assertEqual(cache_files(self.debug), files)
        lines = [line.split('\t') for line in res.stdout.splitlines()]
        self.assertTrue(lines)
        for kind, _, _, what in lines:
            self.assertEqual(kind, 'skipped', lines)

    def test_a_file_of_perfs_is_kept(self):
        bid = self.mods[0].build_id
        entry = os.path.join(self.debug, self.mods[0].name.lstrip('/'), bid)
        os.makedirs(entry)
        with open(os.path.join(entry, 'elf'), 'wb') as f:
            f.write(b'perf put this here')
        os.makedirs(os.path.join(self.debug, '.build-id', bid[:2]))
        os.symlink('../..%s/%s' % (self.mods[0].name, bid),
                   os.path.join(self.debug, '.build-id', bid[:2], bid[2:]))
        res = self.prefetch()
        self.assertNotEqual(res.returncode, 0, res.stderr)
        self.assertIn('a file there is kept', res.stdout)
        with open(os.path.join(entry, 'elf'), 'rb') as f:
            self.assertEqual(f.read(), b'perf put this here')
        self.assertEqual(sorted(os.listdir(entry)), ['elf'])

    def test_a_directory_of_another_user_is_refused(self):
        other = os.path.join(self.home, 'other')
        os.makedirs(other)
        os.chown(other, NOBODY, NOBODY)
        res = self.prefetch('--perf-cache=' + other)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assertEqual(res.stderr.splitlines(), [
            'symprov: prefetch: --perf-cache %s: owned by another user, '
            'whose perf owns it' % other])
        self.assertEqual(os.listdir(other), [])

    def test_a_name_out_of_the_cache_is_refused(self):
        """A profile's names become paths below DIR: one climbing out of
        it writes nothing."""
        pd = PerfData(minimal())
        pd.add_build_id(bytes.fromhex(self.mods[0].build_id),
                        '/lib/../../../escape/m.ko', kernel=None, cpumode=1,
                        pid=-1)
        profile = os.path.join(self.home, 'hostile.data')
        with open(profile, 'wb') as f:
            f.write(pd.bytes())
        res = self.prefetch('--perf-cache=' + os.path.join(self.home, 'a',
                                                           'b', 'c'),
                            profile=profile)
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertIn("a name perf's build-id cache cannot hold",
                      res.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.home, 'escape')))
        self.assertEqual(cache_files(os.path.join(self.home, 'a')), {})

    def test_buildid_dir_of_perfs_config(self):
        there = os.path.join(self.home, 'elsewhere')
        with open(os.path.join(self.home, '.perfconfig'), 'w') as f:
            f.write('[buildid]\n\tdir = %s  # perf reads it too\n' % there)
        res = self.prefetch()
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(', in %s;' % there, res.stderr)
        self.assertFalse(os.path.exists(self.debug))
        self.assert_named_as_control(self.control())

    def test_a_reader_beside_it_never_opens_part_of_a_file(self):
        """perf report runs while the cache fills: every file it can open
        has the size of the file served.  The whole kernel (--full) is the
        long copy, and it goes into the entry a perf record made for the
        kernel's kallsyms, whose link is there before it."""
        entry = os.path.join(self.debug, '[kernel.kallsyms]', NEW_KERNEL)
        os.makedirs(entry)
        shutil.copy('/proc/kallsyms', os.path.join(entry, 'kallsyms'))
        os.makedirs(os.path.join(self.debug, '.build-id', NEW_KERNEL[:2]))
        os.symlink('../../[kernel.kallsyms]/' + NEW_KERNEL, os.path.join(
            self.debug, '.build-id', NEW_KERNEL[:2], NEW_KERNEL[2:]))
        seen, bad, done = set(), [], threading.Event()

        def read_cache():
            while not done.is_set():
                for (bid, base), size in self.served.items():
                    path = os.path.join(self.debug, '.build-id', bid[:2],
                                        bid[2:], base)
                    try:
                        with open(path, 'rb') as f:
                            got = os.fstat(f.fileno()).st_size
                    except OSError:
                        continue
                    seen.add(path)
                    if got != size:
                        bad.append((path, got, size))
        reader = threading.Thread(target=read_cache)
        reader.start()
        try:
            res = self.prefetch('--full', jobs=4)
        finally:
            done.set()
            reader.join()
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(bad, [])
        self.assertEqual(len(seen), len(self.served))
        self.assertEqual(sorted(os.listdir(entry)), ['elf', 'kallsyms'])


def perf_test_classes(perfs):
    """A class of the checks for each perf of PERFS, in this module for
    test names on the command line: PerfCacheTest_6_1 for a perf 6.1.x."""
    for perf in perfs:
        try:
            words = subprocess.run([perf, 'version'], capture_output=True,
                                   text=True, timeout=TIMEOUT).stdout.split()
        except OSError:
            words = []
        version = words[-1] if words else 'unknown'
        name = 'PerfCacheTest_' + re.sub(r'\W', '_', '_'.join(
            version.split('.')[:2]))
        while name in globals():
            name += '_'
        globals()[name] = type(name, (PerfCacheChecks, ServerTestCase),
                               {'PERF': os.path.abspath(perf)})


if __name__ == '__main__':
    PERF_OPTION = ('--perf', {
        'action': 'append', 'metavar': 'PERF',
        'help': 'a perf to check, again for another (default %s)' % PERF})
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument(PERF_OPTION[0], **PERF_OPTION[1])
    perf_test_classes(first.parse_known_args()[0].perf or [PERF])
    sys.exit(run_main('perfcache', sys.modules[__name__],
                      options=[PERF_OPTION]))
