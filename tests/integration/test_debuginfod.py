#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""symprov and libdebuginfodprov.so against a real debuginfod.

The server is started on 127.0.0.1 on a free port and serves ELF files
this test links with chosen build IDs.  What the provider did on the wire
is read from the server's own request counters (/metrics).
"""
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from debuginfod_server import free_port  # noqa: E402
from elf_fixtures import (make_elf, make_module, make_program,  # noqa: E402
                          read_build_id, split_debug)
from elf_mutate import ElfImage  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from server_testcase import (ServerTestCase, run_main,  # noqa: E402
                             run_stderr_on_pty)

BUILD = 'build'
TIMEOUT = 120

# Build IDs of the fixtures: with DWARF, without DWARF, absent.
BID_DEBUG = '5e1f0000000000000000000000000000000000d1'
BID_EXEC = '5e1f0000000000000000000000000000000000e1'
BID_MISSING = '5e1f00000000000000000000000000000000dead'
BID_OTHER = '5e1f0000000000000000000000000000000000f1'


def symprov():
    return os.path.join(BUILD, 'bin', 'symprov')


class ProviderTest(ServerTestCase):
    @classmethod
    def make_fixtures(cls, srv):
        make_elf(os.path.join(srv, 'debug.elf'), BID_DEBUG, debuginfo=True)
        make_elf(os.path.join(srv, 'exec.elf'), BID_EXEC, debuginfo=False,
                 seed=1)

    def find(self, *args, env=None, providers='libdebuginfodprov.so'):
        cmd = [symprov(), 'find']
        if providers is not None:
            cmd += ['--providers', providers]
        cmd += list(args)
        return subprocess.run(cmd, env=env or self.env(), text=True,
                              capture_output=True, timeout=TIMEOUT)

    def assert_one_line_error(self, res, rc, *words):
        self.assertEqual(res.returncode, rc, res.stderr)
        self.assertEqual(res.stdout, '')
        lines = res.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, res.stderr)
        for w in words:
            self.assertIn(w, lines[0])

    def test_found_debuginfo(self):
        before = self.server.responses(type='debuginfo', code=200)
        res = self.find(BID_DEBUG)
        self.assertEqual(res.returncode, 0, res.stderr)
        path = res.stdout.strip()
        self.assertTrue(path.startswith(self.cache), path)
        self.assertEqual(read_build_id(path), BID_DEBUG)
        self.assertEqual(self.server.responses(type='debuginfo', code=200), before + 1)
        # served from the client cache the second time
        requests = self.server.responses()
        res = self.find(BID_DEBUG)
        self.assertEqual(res.stdout.strip(), path)
        self.assertEqual(self.server.responses(), requests)

    def test_kernel_falls_back_to_executable(self):
        miss = self.server.responses(type='debuginfo', code=404)
        res = self.find(BID_EXEC)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(read_build_id(res.stdout.strip()), BID_EXEC)
        # debuginfo asked first, then executable
        self.assertEqual(self.server.responses(type='debuginfo', code=404), miss + 1)

    def test_kinds(self):
        res = self.find('--kind', 'executable', BID_DEBUG)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.strip().endswith('/executable'))
        res = self.find('--kind', 'debuginfo', BID_EXEC)
        self.assertEqual(res.returncode, 2, res.stderr)
        # a module must be one (ET_REL; KindTest asks for real ones)
        res = self.find('--kind', 'module', BID_DEBUG)
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertIn('not a relocatable object file', res.stderr)

    def test_miss_asked_once_for_two_processes(self):
        before = self.server.responses(type='debuginfo', code=404)
        before_exec = self.server.responses(type='executable', code=404)
        for _ in range(2):
            res = self.find(BID_MISSING)
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertEqual(res.stdout, '')
            self.assertIn('not found', res.stderr)
        self.assertEqual(self.server.responses(type='debuginfo', code=404), before + 1)
        self.assertEqual(self.server.responses(type='executable', code=404),
                         before_exec + 1)

    def check_no_request(self, rc, *args, env=None,
                         providers='libdebuginfodprov.so'):
        before = self.server.responses()
        res = self.find(*args, BID_DEBUG, env=env, providers=providers)
        self.assertEqual(res.returncode, rc, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assertEqual(self.server.responses(), before)
        self.assertFalse(os.path.exists(os.path.join(self.cache, BID_DEBUG)))

    def test_opt_outs_make_no_request(self):
        self.check_no_request(3, '--no-debuginfod')
        self.check_no_request(3, '--no-cache')
        self.check_no_request(3, env=self.env(urls=''))
        env = self.env()
        del env['DEBUGINFOD_URLS']
        self.check_no_request(3, env=env)

    def test_no_provider_configured_makes_no_request(self):
        self.check_no_request(3, providers=None)
        self.check_no_request(3, providers='')
        env = self.env(PERF_SYMBOL_PROVIDERS='')
        self.check_no_request(3, env=env, providers=None)

    def test_environment_list(self):
        env = self.env(PERF_SYMBOL_PROVIDERS='libdebuginfodprov.so')
        res = self.find(BID_DEBUG, env=env, providers=None)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_wrong_build_id_rejected(self):
        other = os.path.join(self.home, 'other.elf')
        make_elf(other, BID_OTHER)
        with open(other, 'rb') as f:
            body = f.read()
        with FaultServer('file', body=body) as fault:
            res = self.find(BID_MISSING, env=self.env(urls=fault.url))
            self.assertTrue(fault.hits, 'the fault server was not asked')
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assertIn('build ID differs', res.stderr)
        # nothing servable is left in the cache
        d = os.path.join(self.cache, BID_MISSING)
        left = [f for f in os.listdir(d)
                if os.path.getsize(os.path.join(d, f))] \
            if os.path.isdir(d) else []
        self.assertEqual(left, [])

    def test_not_elf_rejected(self):
        with FaultServer('not-elf') as fault:
            res = self.find(BID_MISSING, env=self.env(urls=fault.url))
            self.assertTrue(fault.hits)
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertIn('not an ELF file', res.stderr)

    def test_good_server_after_bad_ones(self):
        down = 'http://127.0.0.1:%d' % free_port()  # nobody listens
        with FaultServer('status', status=503) as fault:
            res = self.find(BID_DEBUG, env=self.env(
                urls=' '.join((down, fault.url, self.server.url))))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(read_build_id(res.stdout.strip()), BID_DEBUG)

    def test_cancel_is_not_remembered_as_a_miss(self):
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
               BID_DEBUG]
        with FaultServer('hang', hang_s=60) as fault:
            proc = subprocess.Popen(cmd, env=self.env(urls=fault.url),
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            try:
                deadline = time.monotonic() + 10
                while not fault.hits and proc.poll() is None and \
                        time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertTrue(fault.hits, 'symprov never asked')
                proc.send_signal(signal.SIGINT)
                # libdebuginfod polls the progress callback every second
                out, err = proc.communicate(timeout=10)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
        self.assertEqual(proc.returncode, 5, err)
        self.assertEqual(out, '')
        self.assertIn('cancelled', err)
        # libdebuginfod 0.188 cached the cancel as a miss: it must be gone
        self.assertFalse(os.path.exists(
            os.path.join(self.cache, BID_DEBUG, 'debuginfo')))
        res = self.find(BID_DEBUG)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_progress_only_on_a_terminal(self):
        res = self.find(BID_DEBUG)  # stderr is a pipe
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn('fetching', res.stderr)
        self.assertEqual(res.stderr, '')

        proc, seen = run_stderr_on_pty(
            [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
             BID_EXEC], env=self.env(), timeout=TIMEOUT)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b'debuginfod: fetching the vmlinux ' +
                      BID_EXEC[:12].encode(), seen)
        # the path alone on stdout, the progress line ended on stderr
        self.assertEqual(proc.stdout.strip().count('\n'), 0)
        self.assertTrue(seen.endswith(b'\n'), seen)

    def test_threads_share_one_download(self):
        bid = BID_DEBUG
        before = self.server.responses(type='debuginfo', code=200)
        driver = os.path.join(BUILD, 'tests', 'concurrent_find')
        res = subprocess.run(
            [driver, os.path.join(BUILD, 'lib', 'libdebuginfodprov.so'),
             '8', bid], env=self.env(), text=True, capture_output=True,
            timeout=TIMEOUT)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        lines = res.stdout.splitlines()
        self.assertEqual(len(lines), 8)
        self.assertEqual(len(set(lines)), 1, lines)
        self.assertEqual(self.server.responses(type='debuginfo', code=200), before + 1)

    def test_bad_input(self):
        for bid, why in (('abc', 'odd number'), ('zz', 'not a hex digit'),
                         ('', 'too short'), ('ab' * 33, 'too long')):
            before = self.server.responses()
            res = self.find(bid)
            self.assert_one_line_error(res, 1, 'build ID', why)
            self.assertEqual(self.server.responses(), before)
        res = self.find('--bogus', BID_DEBUG)
        self.assert_one_line_error(res, 1, '--bogus')
        res = self.find('--kind', 'firmware', BID_DEBUG)
        self.assert_one_line_error(res, 1, 'firmware')
        res = subprocess.run([symprov(), 'frobnicate'], text=True,
                             capture_output=True, timeout=TIMEOUT)
        self.assert_one_line_error(res, 1, 'frobnicate')

    def test_broken_entry_before_good_one(self):
        res = self.find(BID_DEBUG,
                        providers='/nonexistent/libx.so:libdebuginfodprov.so')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(len(res.stderr.strip().splitlines()), 1,
                         res.stderr)
        self.assertIn('/nonexistent/libx.so', res.stderr)

    def test_list(self):
        res = subprocess.run(
            [symprov(), 'list', '--providers',
             'libdebuginfodprov.so:libnothere.so:libexampleprov.so'],
            text=True, capture_output=True, timeout=TIMEOUT)
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        self.assertEqual(len(lines), 3, res.stdout)
        self.assertRegex(lines[0], r'^debuginfod\t\S+\tABI 1\.1\t\S+'
                         r'libdebuginfodprov\.so\t')
        self.assertRegex(lines[1], r'^libnothere\.so\tnot loaded: .*No such')
        self.assertRegex(lines[2], r'^example\t1\.0\tABI 1\.1\t')

    def test_example_provider(self):
        d = os.path.join(self.home, 'vmlinuxes', BID_OTHER)
        os.makedirs(d)
        make_elf(os.path.join(d, 'vmlinux'), BID_OTHER)
        env = self.env(SYMPROV_EXAMPLE_DIR=os.path.join(self.home,
                                                        'vmlinuxes'))
        res = self.find(BID_OTHER, env=env, providers='libexampleprov.so')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout.strip(), os.path.join(d, 'vmlinux'))
        res = self.find(BID_MISSING, env=env, providers='libexampleprov.so')
        self.assertEqual(res.returncode, 2, res.stderr)
        # a provider that returns a file of another build ID is not
        # believed: symprov checks before it prints
        wrong = os.path.join(self.home, 'vmlinuxes', BID_MISSING)
        os.makedirs(wrong)
        shutil.copy(os.path.join(d, 'vmlinux'), wrong)
        res = self.find(BID_MISSING, env=env, providers='libexampleprov.so')
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assertIn('build ID differs', res.stderr)


# Build IDs of the fixtures of each kind: a module; its debug-only copy
# and one with a damaged symbol table, each alone on the server; one
# outside the symbols-only rule; a program and a shared object, stripped,
# with their debug files; absent.
BID_MOD = '6b0d000000000000000000000000000000000001'
BID_MOD_DEBUG = '6b0d000000000000000000000000000000000002'
BID_MOD_BADSYM = '6b0d000000000000000000000000000000000003'
BID_MOD_OUTSIDE = '6b0d000000000000000000000000000000000004'
BID_PROG = '6b0d0000000000000000000000000000000000e1'
BID_LIB = '6b0d0000000000000000000000000000000000e2'
BID_MOD_MISSING = '6b0d00000000000000000000000000000000dead'

# Every function outside .text: its symbols-only file could not tell
# .text from a section left out of .shstrtab before it.
MODULE_NO_TEXT_SOURCE = r'''
__attribute__((section(".init.text"))) int init_module(void)
{
	return %(seed)d;
}
__attribute__((section(".text.unlikely"))) int km_cold(int x)
{
	return x - 1;
}
'''


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def symbol_table(img):
    """The raw .symtab of an ElfImage: the same bytes, the same names,
    values and section indices."""
    i = img.section('.symtab')
    off, size = img.shdr(i, 'sh_offset'), img.shdr(i, 'sh_size')
    return img.data[off:off + size]


class KindTest(ServerTestCase):
    """Kernel modules, user-space executables and their debug files: each
    kind is asked for the right type, checked as what it must be, and a
    file that is not is refused and removed."""

    @classmethod
    def make_fixtures(cls, srv):
        cls.files = {}
        cls.files[BID_MOD] = make_module(os.path.join(srv, 'mod.ko'),
                                         BID_MOD)
        cls.files[BID_MOD_OUTSIDE] = make_module(
            os.path.join(srv, 'outside.ko'), BID_MOD_OUTSIDE, seed=4,
            source=MODULE_NO_TEXT_SOURCE)
        full = make_module(os.path.join(cls.tmp, 'debug-only.ko'),
                           BID_MOD_DEBUG, seed=2)
        cls.files[BID_MOD_DEBUG] = os.path.join(srv, 'debug-only.ko.debug')
        subprocess.run(['objcopy', '--only-keep-debug', full,
                        cls.files[BID_MOD_DEBUG]], check=True,
                       timeout=TIMEOUT)
        bad = make_module(os.path.join(cls.tmp, 'badsym.ko'),
                          BID_MOD_BADSYM, seed=3)
        img = ElfImage(read(bad))
        symtab = img.section('.symtab')
        strtab = img.shdr(symtab, 'sh_link')
        img.set_sym(symtab, img.nsyms(symtab) - 1, 'st_name',
                    img.shdr(strtab, 'sh_size') + 16)
        cls.files[BID_MOD_BADSYM] = os.path.join(srv, 'badsym.ko')
        with open(cls.files[BID_MOD_BADSYM], 'wb') as f:
            f.write(img.data)
        cls.debug = {}
        for bid, name, shared in ((BID_PROG, 'prog', False),
                                  (BID_LIB, 'libfix.so', True)):
            path = make_program(os.path.join(srv, name), bid, shared=shared)
            cls.files[bid], cls.debug[bid] = split_debug(path,
                                                         path + '.debug')

    def ask(self, bid, *words, env=None):
        """concurrent_find, one thread, for BID with WORDS (the kind...)."""
        driver = os.path.join(BUILD, 'tests', 'concurrent_find')
        return subprocess.run(
            [driver, os.path.join(BUILD, 'lib', 'libdebuginfodprov.so'), '1',
             bid] + list(words), env=env or self.env(), text=True,
            capture_output=True, timeout=TIMEOUT)

    def find(self, *args, env=None, verbose=False):
        cmd = [symprov()] + (['-v'] if verbose else []) + [
            'find', '--providers', 'libdebuginfodprov.so'] + list(args)
        return subprocess.run(cmd, env=env or self.env(), text=True,
                              capture_output=True, timeout=TIMEOUT)

    def assert_servable_left(self, bid, left=()):
        d = os.path.join(self.cache, bid)
        names = sorted(f for f in os.listdir(d)
                       if os.path.getsize(os.path.join(d, f))) \
            if os.path.isdir(d) else []
        self.assertEqual(names, sorted(left), 'in the client cache')

    def assert_refused(self, res, bid, server, why):
        """One warning, naming the build ID, the server and why; nothing
        of the file left in the client cache."""
        warnings = [line for line in res.stderr.splitlines()
                    if 'debuginfod: ' in line]
        self.assertEqual(len(warnings), 1, res.stderr)
        for word in (bid, server, why, 'removed from the cache'):
            self.assertIn(word, warnings[0])
        self.assert_servable_left(bid)

    def test_module_is_served_as_debuginfo(self):
        files = self.server.responses(type='debuginfo', code=200)
        executables = self.server.responses(type='executable')
        res = self.ask(BID_MOD, 'module')
        self.assertEqual(res.returncode, 0, res.stderr)
        path = res.stdout.split()[1]
        self.assertTrue(path.endswith('/debuginfo'), path)
        self.assertEqual(read(path), read(self.files[BID_MOD]))
        self.assertEqual(self.server.responses(type='debuginfo', code=200),
                         files + 1)
        self.assertEqual(self.server.responses(type='executable'),
                         executables)

    def test_module_miss_asks_for_debuginfo_only(self):
        misses = self.server.responses(type='debuginfo', code=404)
        executables = self.server.responses(type='executable')
        res = self.ask(BID_MOD_MISSING, 'module')
        self.assertEqual(res.stdout, 'not found -\n', res.stderr)
        self.assertEqual(self.server.responses(type='debuginfo', code=404),
                         misses + 1)
        self.assertEqual(self.server.responses(type='executable'),
                         executables)

    def test_module_outside_the_rule_comes_whole(self):
        """A module with no function in .text makes no certain
        symbols-only file: the whole .ko, and -v says why
        (test_module_symbols.py: the rule)."""
        bid = BID_MOD_OUTSIDE
        res = self.ask(bid, 'module', 'symbols', 'verbose')
        self.assertEqual(res.returncode, 0, res.stderr)
        size = os.path.getsize(self.files[bid])
        self.assertIn('debuginfod: module %s: its sections do not make a '
                      'certain symbols-only file (' % bid, res.stderr)
        self.assertIn('debuginfod: module %s: the whole file, %d bytes'
                      % (bid, size), res.stderr)
        self.assertEqual(read(res.stdout.split()[1]),
                         read(self.files[bid]))

    def test_module_after_its_note_as_symbols(self):
        """A module whose .text comes after its build-ID note, as in
        perf 7.3's Debian kernels after __ksymtab and the like: perf maps
        .text by its own offset, so the symbols-only file places it right
        after the ELF header."""
        res = self.ask(BID_MOD, 'module', 'symbols', 'verbose')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('debuginfod: module %s: symbols only' % BID_MOD,
                      res.stderr)
        ko = ElfImage(read(self.files[BID_MOD]))
        img = ElfImage(read(res.stdout.split()[1]))
        text = ko.section('.text')
        self.assertGreater(text, 1)
        self.assertEqual(img.names[text], '.text')
        self.assertEqual(img.shdr(text, 'sh_offset'), 64)
        self.assertNotEqual(ko.shdr(text, 'sh_offset'), 64)
        self.assertEqual(symbol_table(img), symbol_table(ko))

    def test_module_debug_only_copy_refused(self):
        res = self.ask(BID_MOD_DEBUG, 'module')
        self.assertEqual(res.stdout, 'unavailable -\n', res.stderr)
        self.assert_refused(res, BID_MOD_DEBUG, self.server.url,
                            'executable section without data: a separate '
                            'debug file')
        # the same file is the module's debug info
        res = self.find('--kind', 'debuginfo', BID_MOD_DEBUG)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(read(res.stdout.strip()),
                         read(self.files[BID_MOD_DEBUG]))

    def test_module_damaged_symbol_table_refused(self):
        res = self.ask(BID_MOD_BADSYM, 'module')
        self.assertEqual(res.stdout, 'unavailable -\n', res.stderr)
        self.assert_refused(res, BID_MOD_BADSYM, self.server.url,
                            'symbol name outside its string table')

    def test_module_of_another_build_id_refused(self):
        with FaultServer('file', body=read(self.files[BID_MOD])) as fault:
            res = self.ask(BID_MOD_MISSING, 'module',
                           env=self.env(urls=fault.url))
            self.assertEqual(fault.hits,
                             ['/buildid/%s/debuginfo' % BID_MOD_MISSING])
        self.assertEqual(res.stdout, 'unavailable -\n', res.stderr)
        self.assert_refused(res, BID_MOD_MISSING, fault.url,
                            'build ID differs from the one asked for')

    def test_program_and_its_debug_file(self):
        for bid in (BID_PROG, BID_LIB):
            with self.subTest(bid=bid):
                res = self.find('--kind', 'executable', bid)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual(read(res.stdout.strip()),
                                 read(self.files[bid]))
                res = self.find('--kind', 'debuginfo', bid)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual(read(res.stdout.strip()),
                                 read(self.debug[bid]))

    def test_program_symbols_only_is_the_whole_file(self):
        sections = self.server.responses(type='section')
        for kind, files in (('executable', self.files),
                            ('debuginfo', self.debug)):
            with self.subTest(kind=kind):
                res = self.find('--kind', kind, '--symbols-only', BID_PROG,
                                verbose=True)
                self.assertEqual(res.returncode, 0, res.stderr)
                size = os.path.getsize(files[BID_PROG])
                # the symbols only are a kernel's: the whole file is
                # asked for, and comes
                noun = 'executable' if kind == 'executable' else \
                    'debug info'
                self.assertIn('asking for the whole file of the %s with '
                              'build ID %s' % (noun, BID_PROG), res.stderr)
                self.assertIn('debuginfod: %s %s: the whole file, %d '
                              'bytes' % (noun, BID_PROG, size), res.stderr)
                self.assertEqual(read(res.stdout.strip()),
                                 read(files[BID_PROG]))
        self.assertEqual(self.server.responses(type='section'), sections)

    def test_debug_file_as_executable_refused(self):
        # debuginfod never serves it so: the fault server does
        body = read(self.debug[BID_PROG])
        with FaultServer('file', body=body) as fault:
            res = self.find('--kind', 'executable', BID_PROG,
                            env=self.env(urls=fault.url))
            self.assertEqual(fault.hits,
                             ['/buildid/%s/executable' % BID_PROG])
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertEqual(res.stdout, '')
        self.assert_refused(res, BID_PROG, fault.url,
                            'executable segment without data: a separate '
                            'debug file')

    def test_stripped_program_as_debuginfo_refused(self):
        body = read(self.files[BID_PROG])
        with FaultServer('file', body=body) as fault:
            res = self.find('--kind', 'debuginfo', BID_PROG,
                            env=self.env(urls=fault.url))
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assert_refused(res, BID_PROG, fault.url, 'no symbol table')


def main():
    return run_main('integration', sys.modules[__name__])


if __name__ == '__main__':
    sys.exit(main())
