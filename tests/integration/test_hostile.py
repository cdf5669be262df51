#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Hostile files: a server answers with an ELF file that carries the build
ID asked for but has a damaged header or table, each of which crashed perf
6.12 (or would make it read past the file) before symprov checked it
(lib/symprov_verify.c).  For each damage:

- `symprov find` exits 4 (UNAVAILABLE), prints no path, and one warning
  per file it was sent, naming the build ID, the server and the reason;
  the client cache holds neither the file nor a miss afterwards;
- the patched perf, `perf report --stdio` through libdebuginfodprov.so,
  ends normally with the same warnings and the kernel samples unresolved,
  and leaves the cache as clean.

The files are the stand-in vmlinux of the kernel of a profile recorded
here (tests/lib/vmlinux_fixture.py), damaged, each under a build ID of its
own with the profile moved to it.  One real debuginfod serves them; the
fault server (tests/lib/fault_server.py) serves only those debuginfod
cannot index (no section table or build ID note it can read).  Also: a
damaged file an earlier process left in the client cache, and perf's
TUI on a terminal.

    test_hostile.py [--build B] [--perf PERF] [TEST...]

Needs root (perf record -a) and the patched perf (make perf); when
it cannot run it says why and fails.  docs/RELIABILITY.md has the table.
"""
import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import stat
import struct
import subprocess
import sys
import termios
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, os.path.join(HERE, '..', 'e2e'))

import vmlinux_fixture  # noqa: E402
from compare_reports import (check_raw_kernel, compare,  # noqa: E402
                             parse_report)
from elf_mutate import ElfImage, build_id_note, set_build_id  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from server_testcase import ServerTestCase, run_main  # noqa: E402
from tui import CRASH_RE  # noqa: E402
from vmlinux_fixture import clean_env, derived_build_id  # noqa: E402

BUILD = 'build'
PERF = os.path.join(HERE, '..', '..', 'build', 'perf', 'perf')
ARGS = None  # the command line, from run_main()
PROVIDER = 'libdebuginfodprov.so'
TYPES = ('debuginfo', 'executable')
# hang guards, not speed tests
FIND_BOUND = 60
PERF_BOUND = 120


class Damage:
    """One field of a good file changed; the check's reason for it; who
    serves it: debuginfod, or the fault server when debuginfod cannot
    index it."""

    def __init__(self, name, what, apply, why, fault=False):
        self.name, self.what, self.apply = name, what, apply
        self.why, self.fault = why, fault
        self.build_id = derived_build_id(name)


def shdr(section, field, value):
    def apply(img):
        i = img.section(section)
        img.set_shdr(i, field, value(img, i) if callable(value) else value)
    return apply


def strtab_last_byte(img):
    i = img.section('.strtab')
    img.set_byte(img.shdr(i, 'sh_offset') + img.shdr(i, 'sh_size') - 1,
                 ord('A'))


def st_name(img):
    # a function symbol of the stand-in, as the issue's random changes
    symtab = img.section('.symtab')
    img.set_sym(symtab, img.nsyms(symtab) // 2, 'st_name', 0xfffffff8)


def note(field, value):
    def apply(img):
        img.set_shdr(build_id_note(img), field, value)
    return apply


STRTAB_NUL = 'string table of a symbol table does not end with a NUL'
OUTSIDE = 'file is truncated: a section ends past its end'
DAMAGES = [
    Damage('strtab_size_8', '.strtab sh_size = 8', shdr('.strtab', 'sh_size',
                                                        8), STRTAB_NUL),
    Damage('symtab_entsize_0', '.symtab sh_entsize = 0',
           shdr('.symtab', 'sh_entsize', 0),
           'symbol table entry size is not that of a symbol'),
    Damage('st_name_huge', 'a symbol\'s st_name = 0xfffffff8', st_name,
           'symbol name outside its string table'),
    Damage('offset_past_end', '.symtab sh_offset past the end of the file',
           shdr('.symtab', 'sh_offset', lambda img, i: len(img.data) + 4096),
           OUTSIDE),
    Damage('size_near_2_64', '.strtab sh_size = 2^64 - 1',
           shdr('.strtab', 'sh_size', (1 << 64) - 1), OUTSIDE),
    Damage('link_out_of_range', '.symtab sh_link = e_shnum + 5',
           shdr('.symtab', 'sh_link', lambda img, i: img.shnum + 5),
           'symbol table\'s string table index out of range'),
    Damage('link_to_text', '.symtab sh_link = .text (not a string table)',
           shdr('.symtab', 'sh_link', lambda img, i: img.section('.text')),
           'symbol table linked to a section that is not a string table'),
    Damage('strtab_unterminated', 'last byte of .strtab = "A"',
           strtab_last_byte, STRTAB_NUL),
    Damage('shnum_65535', 'e_shnum = 65535, the table as it was',
           lambda img: img.set_ehdr('e_shnum', 65535),
           'file is truncated: section header table past its end',
           fault=True),
    Damage('note_truncated', 'build ID note section sh_size = 20 (no '
           'description)', note('sh_size', 20), 'no build ID note',
           fault=True),
    Damage('note_nobits', 'build ID note section SHT_NOBITS',
           note('sh_type', 8), 'no build ID note', fault=True),
    Damage('type_core', 'e_type = ET_CORE',
           lambda img: img.set_ehdr('e_type', 4),
           'not a relocatable, executable or shared object file'),
]
CACHED = Damage('cached', 'in the cache: .strtab sh_size = 8',
                shdr('.strtab', 'sh_size', 8), STRTAB_NUL)


class Result:
    def __init__(self, proc, out, err):
        self.returncode, self.stdout, self.stderr = proc.returncode, out, err

    def __repr__(self):
        return 'exit %s, stdout %r, stderr %r' % (
            self.returncode, self.stdout[-500:], self.stderr[-2000:])


def run(cmd, env, bound):
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            errors='replace', start_new_session=True)
    try:
        out, err = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError('%s ran past %d s (killed)' % (cmd[0], bound))
    return Result(proc, out, err)


class HostileTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        why = vmlinux_fixture.cannot_run(ARGS.perf)
        if not os.path.isfile(os.path.join(BUILD, 'lib', PROVIDER)):
            why.append('no %s/lib/%s (make)' % (BUILD, PROVIDER))
        if why:
            print('hostile: CANNOT RUN: ' + '; '.join(why), flush=True)
            raise unittest.SkipTest('; '.join(why))
        cls.fx = vmlinux_fixture.make(ARGS.perf, cls.tmp)
        with open(cls.fx.vmlinux, 'rb') as f:
            cls.good = f.read()
        cls.bodies, cls.profiles = {}, {}
        for d in DAMAGES + [CACHED]:
            body = cls.damaged(d)
            cls.profiles[d.name] = cls.fx.move(
                d.build_id, os.path.join(cls.tmp, d.name + '.data'))
            if d.fault:
                cls.bodies[d.name] = body
            elif d is not CACHED:
                vmlinux_fixture.write_sparse(
                    os.path.join(srv, d.name + '.vmlinux'), body)
        # the cache test's build ID is served undamaged
        img = ElfImage(cls.good)
        set_build_id(img, CACHED.build_id)
        cls.cached_good = os.path.join(srv, 'good.vmlinux')
        vmlinux_fixture.write_sparse(cls.cached_good, bytes(img.data))

    @classmethod
    def damaged(cls, d):
        img = ElfImage(cls.good)
        set_build_id(img, d.build_id)
        d.apply(img)
        return bytes(img.data)

    # -- running symprov and perf ---------------------------------------

    def find(self, bid, url):
        return run([os.path.join(BUILD, 'bin', 'symprov'), 'find',
                    '--providers', PROVIDER, bid], self.env(url),
                   FIND_BOUND)

    def perf_env(self, url):
        return clean_env(self.home, {
            'DEBUGINFOD_URLS': url, 'DEBUGINFOD_CACHE_PATH': self.cache,
            'PERF_SYMBOL_PROVIDERS': PROVIDER,
            'LD_LIBRARY_PATH': os.path.abspath(os.path.join(BUILD, 'lib'))})

    def report(self, name, url):
        return run([ARGS.perf, 'report', '--stdio', '--sort', 'dso,sym', '-i',
                    self.profiles[name]], self.perf_env(url), PERF_BOUND)

    # -- what they said, what they left ---------------------------------

    @staticmethod
    def about_others(line, d):
        """LINE names a build ID other than D's: the debug info of a
        stripped program of the profile, which perf asks for too (and a
        server of damaged files sends damaged)."""
        ids = re.findall(r'build ID ([0-9a-f]{40})', line)
        return bool(ids) and d.build_id not in ids

    def rejections(self, err, d, server):
        """The warnings of ERR, checked: each names D's build ID, a type,
        SERVER and D's reason; one per type at most (those of the
        programs' debug info aside: debuginfo rejected).  Their types."""
        types = []
        for line in err.splitlines():
            if 'rejected' not in line:
                continue
            if self.about_others(line, d):
                self.assertIn(': debuginfo from %s rejected: ' % server, line)
                continue
            head = 'build ID %s: ' % d.build_id
            self.assertIn(head, line)
            rest = line.split(head, 1)[1]
            typ = rest.split(' ', 1)[0]
            self.assertIn(typ, TYPES, line)
            self.assertIn('%s from %s rejected: %s; removed from the cache'
                          % (typ, server, d.why), line)
            types.append(typ)
        self.assertEqual(len(types), len(set(types)), err)
        self.assertIn('debuginfo', types, err)
        return types

    def assert_cache_clean(self, d, rejected):
        """No file left for D's build ID, no download, and no miss for
        the types that were rejected (an empty file is one).  A section
        the server could not cut out of the damaged file may stay a miss:
        perf then asks for the whole file at once."""
        top = os.path.join(self.cache, d.build_id)
        left = sorted(os.listdir(top)) if os.path.isdir(top) else []
        for f in left:
            self.assertEqual(os.path.getsize(os.path.join(top, f)), 0,
                             'a file left in the cache: %s' % f)
            self.assertNotIn(f, rejected, 'remembered as a miss: %s' % f)
            self.assertTrue(f in TYPES or f.startswith('section-'),
                            'left in the cache: %s' % f)

    def served(self, d):
        """The URL serving D, and a function giving the files it sent."""
        if d.fault:
            fault = FaultServer('file', body=self.bodies[d.name])
            return fault, lambda: len([p for p in fault.hits
                                       if p.endswith(TYPES) and
                                       d.build_id in p])
        def files():
            # whole files: perf asks for the symbols first, by section
            return sum(self.server.responses(type=t, code=200)
                       for t in TYPES)

        ok = files()
        return None, lambda: files() - ok

    def check_damage(self, d):
        fault, sent = self.served(d)
        with fault or contextlib.nullcontext():
            url = fault.url if fault else self.server.url
            res = self.find(d.build_id, url)
            self.assertEqual(res.returncode, 4, res)
            self.assertEqual(res.stdout, '', res)
            types = self.rejections(res.stderr, d, url)
            self.assertEqual(sent(), len(types))
            self.assert_cache_clean(d, types)

            res = self.report(d.name, url)
            self.assertEqual(res.returncode, 0, res)  # not a signal
            self.assertEqual(check_raw_kernel(parse_report(res.stdout)), [])
            symprov = [x for x in res.stderr.splitlines()
                       if x.startswith('symprov:') and
                       not self.about_others(x, d)]
            self.assertEqual(self.rejections(res.stderr, d, url), types)
            # and the one line saying that perf goes on without the file
            self.assertEqual(len(symprov), len(types) + 1, res.stderr)
            self.assertTrue(symprov[-1].startswith(
                'symprov: no provider supplied the vmlinux (debuginfod: '
                'unavailable'), res.stderr)
            self.assertEqual(sent(), 2 * len(types), res.stderr)
            self.assert_cache_clean(d, types)

    # -- a file an earlier process cached -------------------------------

    def plant(self, d, types):
        top = os.path.join(self.cache, d.build_id)
        os.makedirs(top, exist_ok=True)
        for typ in types:
            path = os.path.join(top, typ)
            vmlinux_fixture.write_sparse(path, self.damaged(d))
            os.chmod(path, stat.S_IRUSR)  # as libdebuginfod leaves them

    def test_cached_damage_is_removed(self):
        """Both types damaged in the cache, a server without them: each
        is rejected and removed, nothing asked, UNAVAILABLE; for perf
        too."""
        for run_perf in (False, True):
            self.plant(CACHED, TYPES)
            with FaultServer('status', status=404) as fault:
                if run_perf:
                    res = self.report(CACHED.name, fault.url)
                    self.assertEqual(res.returncode, 0, res)
                    self.assertEqual(
                        check_raw_kernel(parse_report(res.stdout)), [])
                else:
                    res = self.find(CACHED.build_id, fault.url)
                    self.assertEqual(res.returncode, 4, res)
                self.assertEqual([p for p in fault.hits
                                  if CACHED.build_id in p], [])
            self.assertEqual(
                self.rejections(res.stderr, CACHED, 'the client cache'),
                list(TYPES))
            self.assert_cache_clean(CACHED, TYPES)

    def test_cached_damage_then_a_good_server(self):
        """A damaged debuginfo in the cache, a good server: the cached
        one is rejected and removed, the executable comes from the server
        and perf resolves the kernel's symbols with it."""
        self.plant(CACHED, ['debuginfo'])
        res = self.find(CACHED.build_id, self.server.url)
        self.assertEqual(res.returncode, 0, res)
        self.assertEqual(res.stdout.strip(), os.path.join(
            self.cache, CACHED.build_id, 'executable'))
        self.assertEqual(
            self.rejections(res.stderr, CACHED, 'the client cache'),
            ['debuginfo'])
        self.assertFalse(os.path.exists(os.path.join(
            self.cache, CACHED.build_id, 'debuginfo')))

        shutil.rmtree(self.cache)
        self.plant(CACHED, ['debuginfo'])
        res = self.report(CACHED.name, self.server.url)
        self.assertEqual(res.returncode, 0, res)
        self.assertEqual(
            self.rejections(res.stderr, CACHED, 'the client cache'),
            ['debuginfo'])
        # as with the good file given by hand: resolved, but for the
        # samples outside the vmlinux the profile has (raw in both)
        ref = run([ARGS.perf, 'report', '--stdio', '--sort', 'dso,sym',
                   '-i', self.profiles[CACHED.name],
                   '--vmlinux=' + self.cached_good],
                  clean_env(self.home), PERF_BOUND)
        self.assertEqual(ref.returncode, 0, ref)
        ref = parse_report(ref.stdout)
        self.assertTrue(any(e.kernel and e.raw for e in ref), ref)
        self.assertEqual(compare(ref, parse_report(res.stdout),
                                 kernel_only=True), [])

    # -- what a person sees --------------------------------------------

    def test_tui_on_a_terminal(self):
        """perf report's TUI on a 250-column terminal: the warning, with
        its reason, is written to the terminal (perf's help line, while
        it processes the events), the report comes up with the kernel
        samples unresolved, and 'q' ends perf normally."""
        d = DAMAGES[0]
        env = self.perf_env(self.server.url)
        env.pop('PERF_PAGER', None)
        env['TERM'] = 'xterm'
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ,
                    struct.pack('HHHH', 50, 250, 0, 0))
        proc = subprocess.Popen([ARGS.perf, 'report', '-i', self.profiles[d.name]],
                                stdin=slave, stdout=slave, stderr=slave,
                                env=env, start_new_session=True)
        os.close(slave)
        try:
            seen = self.read_until(master, proc, b'Samples:', 60)
            os.write(master, b'q')
            deadline = time.monotonic() + 20
            while proc.poll() is None and time.monotonic() < deadline:
                seen += self.read_until(master, proc, None, 0.2)
            # what it wrote last, before it ended
            seen += self.read_until(master, proc, None, 1)
            self.assertEqual(proc.poll(), 0, 'perf did not end normally '
                             'after q: %r' % seen[-2000:])
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            os.close(master)
        text = re.sub(r'\x1b(\[[0-9;?]*[A-Za-z]|[()][0-9A-B])', '\n',
                      seen.decode(errors='replace'))
        # perf's TUI exits 0 after a crash it caught: read what it wrote
        self.assertIsNone(CRASH_RE.search(text), text[-2000:])
        self.assertIn('build ID %s: debuginfo from %s rejected: %s'
                      % (d.build_id, self.server.url, d.why), text)
        self.assertRegex(text, r'\[k\] 0xffff')
        self.assert_cache_clean(d, TYPES)

    @staticmethod
    def read_until(master, proc, text, bound):
        """What the terminal got until TEXT came, perf ended or BOUND
        seconds passed."""
        deadline = time.monotonic() + bound
        seen = b''
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            elif proc.poll() is not None:
                break
            if text and text in seen:
                break
        return seen


def add_damage_tests():
    for d in DAMAGES:
        def test(self, d=d):
            self.check_damage(d)
        test.__doc__ = d.what
        setattr(HostileTest, 'test_' + d.name, test)


add_damage_tests()


def main():
    return run_main('hostile', sys.modules[__name__], options=(
        ('--perf', {'default': PERF, 'type': os.path.abspath}),))


if __name__ == '__main__':
    sys.exit(main())
