#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`symprov find --symbols-only`: a kernel's symbol table by section
queries to a real debuginfod, the fallbacks to the whole file, hostile
sections.

A debuginfod on 127.0.0.1 serves two small vmlinux look-alikes
(elf_fixtures.make_kernel_elf); what went over the wire is read from its
/metrics.  The fault server plays what debuginfod cannot: a server without
section support, and hostile sections.  After a fault, nothing but a whole
file the server sent and libdebuginfod's miss markers may be left in the
client cache.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from elf_fixtures import (make_kernel_elf, read_build_id,  # noqa: E402
                          read_sections, section_bytes)
from fault_server import FaultServer  # noqa: E402
import server_testcase  # noqa: E402
from symbols_testcase import (BUILD, SYMBOLS_FILE, TIMEOUT,  # noqa: E402
                              SymbolsTestCase, symbols, symprov)

BID_K = '5e1f0000000000000000000000000000000000c1'
BID_K2 = '5e1f0000000000000000000000000000000000c2'
BID_NONE = '5e1f00000000000000000000000000000000c0de'
TABLES = ('.shstrtab', '.notes', '.symtab', '.strtab')
# include/symprov.h as ABI 1.0 left it, kept for the test of old providers
ABI_10_HEADER = os.path.join(REPO, 'tests', 'abi', 'symprov-1.0.h')


class SymbolsTest(SymbolsTestCase):
    TABLES = TABLES

    @classmethod
    def make_fixtures(cls, srv):
        cls.kernel = make_kernel_elf(os.path.join(srv, 'vmlinux-k'), BID_K)
        cls.kernel2 = make_kernel_elf(os.path.join(srv, 'vmlinux-k2'),
                                      BID_K2, seed=7)

    def table_bytes(self, path=None):
        return super().table_bytes(path or self.kernel)

    # a real debuginfod ------------------------------------------------
    def test_cold_then_cached(self):
        n0, bytes0 = self.section_traffic()
        before = self.server.responses()
        files = self.server.responses(type='debuginfo')
        res = self.find('--symbols-only', BID_K)
        path = self.assert_found(res, BID_K, 'symbols')
        self.assertEqual(os.path.basename(path), SYMBOLS_FILE)
        self.assertTrue(path.startswith(self.cache), path)
        n1, bytes1 = self.section_traffic()
        # the four sections, nothing else
        self.assertEqual(n1 - n0, 4)
        self.assertEqual(self.server.responses() - before, 4)
        self.assertEqual(bytes1 - bytes0, self.table_bytes())
        self.assertLess(bytes1 - bytes0, 1.2 * self.table_bytes())
        self.assertEqual(self.server.responses(type='debuginfo'), files)
        # only the symbols-only file is left of them
        self.assertEqual(sorted(self.cache_entries(BID_K)), [SYMBOLS_FILE])
        # asked again: from the cache, nothing on the wire
        before = self.server.responses()
        res = self.find('--symbols-only', BID_K)
        self.assertEqual(self.assert_found(res, BID_K, 'symbols'), path)
        self.assertEqual(self.server.responses(), before)

    def test_same_symbols_and_sections_as_the_full_file(self):
        res = self.find('--symbols-only', BID_K)
        path = self.assert_found(res, BID_K, 'symbols')
        self.assertEqual(symbols(path), symbols(self.kernel))
        full, mine = read_sections(self.kernel), read_sections(path)
        in_use = {int(f[6]) for f in
                  (line.split() for line in
                   symbols(self.kernel).splitlines()[1:])
                  if f[6].isdigit() and f[3] != 'SECTION'}
        checked = 0
        for name, (idx, typ, flags, addr, size) in full.items():
            if idx not in in_use:
                continue
            self.assertIn(name, mine)
            m_idx, m_typ, m_flags, m_addr, m_size = mine[name]
            self.assertEqual((m_idx, m_addr, 'A' in m_flags),
                             (idx, addr, 'A' in flags), name)
            # every section of this file ends at its last symbol
            self.assertEqual(m_size, size, name)
            self.assertEqual(m_typ, 'NOTE' if typ == 'NOTE' else 'NOBITS')
            checked += 1
        # .text .rodata .data .init.text .init.data .bss
        self.assertEqual(checked, 6)
        self.assertEqual(mine['.notes'], full['.notes'])
        self.assertEqual(section_bytes(path, '.notes'),
                         section_bytes(self.kernel, '.notes'))

    def test_aged_by_libdebuginfod(self):
        path = self.assert_found(self.find('--symbols-only', BID_K), BID_K,
                                 'symbols')
        # clean at the next query, everything not used for 0 s
        for name in ('cache_clean_interval_s', 'max_unused_age_s'):
            with open(os.path.join(self.cache, name), 'w') as f:
                f.write('0\n')
        self.assert_found(self.find(BID_K2), BID_K2, 'whole')
        self.assertFalse(os.path.exists(path))

    def test_full_fetch_supersedes(self):
        path = self.assert_found(self.find('--symbols-only', BID_K), BID_K,
                                 'symbols')
        before = self.server.responses(type='debuginfo', code=200)
        full = self.assert_found(self.find(BID_K), BID_K, 'whole')
        self.assertEqual(os.path.basename(full), 'debuginfo')
        self.assertEqual(self.server.responses(type='debuginfo', code=200),
                         before + 1)
        self.assertFalse(os.path.exists(path))
        # the whole file now serves a request for the symbols, offline
        before = self.server.responses()
        res = self.find('--symbols-only', BID_K)
        self.assertEqual(self.assert_found(res, BID_K, 'whole'), full)
        self.assertEqual(self.server.responses(), before)

    def test_whole_file_asks_no_section(self):
        n0, _ = self.section_traffic()
        self.assert_found(self.find(BID_K2), BID_K2, 'whole')
        self.assertEqual(self.section_traffic()[0], n0)

    def test_unserved_build_id(self):
        before = self.server.responses(code=404)
        res = self.find('--symbols-only', BID_NONE)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(res.stdout, '')
        # .shstrtab, then the whole file: debuginfo, executable
        self.assertEqual(self.server.responses(code=404), before + 3)

    def concurrent(self, threads, env):
        res = subprocess.run([os.path.join(BUILD, 'tests', 'concurrent_find'),
                              os.path.join(BUILD, 'lib',
                                           'libdebuginfodprov.so'),
                              str(threads), BID_K, 'symbols'],
                             env=env, capture_output=True, text=True,
                             timeout=TIMEOUT)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        return res.stdout.split()[1]

    def test_threads_share_one_fetch(self):
        n0, bytes0 = self.section_traffic()
        path = self.concurrent(8, self.env())
        self.assertEqual(os.path.basename(path), SYMBOLS_FILE)
        self.assertEqual(self.section_traffic()[0], n0 + 4)

    def test_processes_share_one_fetch(self):
        n0, _ = self.section_traffic()
        cmd = [symprov(), 'find', '--providers', 'libdebuginfodprov.so',
               '--symbols-only', BID_K]
        procs = [subprocess.Popen(cmd, env=self.env(), text=True,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(8)]
        outs = [p.communicate(timeout=TIMEOUT) for p in procs]
        for p, (_, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual({out for out, _ in outs},
                         {os.path.join(self.cache, BID_K, SYMBOLS_FILE) +
                          '\n'})
        # the four sections once: the others waited, then the cache answered
        self.assertEqual(self.section_traffic()[0], n0 + 4)
        self.assertEqual(sorted(self.cache_entries(BID_K)), [SYMBOLS_FILE])

    def test_threads_fall_back_once(self):
        with FaultServer('status', status=404, body=self.body(),
                         by_type={'debuginfo': 'file'},
                         size_header=True) as fault:
            path = self.concurrent(8, self.env(urls=fault.url))
            asked = list(fault.hits)
        self.assertEqual(os.path.basename(path), 'debuginfo')
        self.assertEqual(len(asked), 2, asked)

    def test_opt_outs_make_no_request(self):
        before = self.server.responses()
        for opt in ('--no-debuginfod', '--no-cache'):
            res = self.find('--symbols-only', opt, BID_K)
            self.assertEqual(res.returncode, 3, res.stderr)
        self.assertEqual(self.server.responses(), before)
        self.assertEqual(self.cache_entries(BID_K), {})

    # no section support ---------------------------------------------
    def body(self, path=None):
        with open(path or self.kernel, 'rb') as f:
            return f.read()

    def check_whole_from(self, fault, bid=BID_K):
        res = self.find('--symbols-only', bid,
                        env=self.env(urls=fault.url))
        path = self.assert_found(res, bid, 'whole')
        self.assertEqual(os.path.basename(path), 'debuginfo')
        self.assert_clean(bid)
        return path

    def test_sections_404_file_served(self):
        with FaultServer('status', status=404, body=self.body(),
                         by_type={'debuginfo': 'file'},
                         size_header=True) as fault:
            self.check_whole_from(fault)
            asked = list(fault.hits)
        self.assertEqual(asked, ['/buildid/%s/section/.shstrtab' % BID_K,
                                 '/buildid/%s/debuginfo' % BID_K])
        # the whole file answers: the section's miss is forgotten with it
        self.assertNotIn('section-.shstrtab', self.cache_entries(BID_K))

    def test_server_without_sections_503(self):
        """debuginfod before 0.183 answers 503 to a section query, and
        libdebuginfod 0.188 then downloads the whole debuginfo itself: the
        provider stops that and fetches (and checks) the whole file."""
        with FaultServer('status', status=503, body=self.body(),
                         by_type={'debuginfo': 'file'},
                         size_header=True) as fault:
            self.check_whole_from(fault)
            asked = list(fault.hits)
        sections = [h for h in asked if '/section/' in h]
        self.assertTrue(sections, asked)
        self.assertEqual({h.rsplit('/', 1)[1] for h in sections},
                         {'.shstrtab'})
        self.assertLessEqual(asked.count('/buildid/%s/debuginfo' % BID_K), 2)

    def test_file_url(self):
        root = os.path.join(self.home, 'tree')
        d = os.path.join(root, 'buildid', BID_K)
        os.makedirs(d)
        shutil.copy(self.kernel, os.path.join(d, 'debuginfo'))
        res = self.find('--symbols-only', BID_K,
                        env=self.env(urls='file://' + root))
        path = self.assert_found(res, BID_K, 'whole')
        self.assertEqual(os.path.basename(path), 'debuginfo')
        self.assert_clean(BID_K)

    def test_abi_10_provider(self):
        """The example provider built against the ABI 1.0 header is asked
        for the whole file, and gives it."""
        inc = os.path.join(self.home, 'include')
        os.makedirs(inc)
        with open(ABI_10_HEADER, 'rb') as f:
            header = f.read()
        with open(os.path.join(inc, 'symprov.h'), 'wb') as f:
            f.write(header)
        self.assertIn(b'#define SYMPROV_ABI_MINOR 0', header)
        lib = os.path.join(self.home, 'libexample10.so')
        subprocess.run(['gcc', '-shared', '-fPIC', '-I', inc, '-o', lib,
                        os.path.join(REPO, 'provider', 'example',
                                     'example_provider.c')],
                       check=True, timeout=60)
        listed = subprocess.run([symprov(), 'list', '--providers', lib],
                                capture_output=True, text=True,
                                timeout=TIMEOUT)
        self.assertIn('ABI 1.0', listed.stdout)
        d = os.path.join(self.home, 'vmlinuxes', BID_K)
        os.makedirs(d)
        shutil.copy(self.kernel, os.path.join(d, 'vmlinux'))
        env = self.env(SYMPROV_EXAMPLE_DIR=os.path.join(self.home,
                                                        'vmlinuxes'))
        res = self.find('--symbols-only', BID_K, env=env, providers=lib)
        self.assertEqual(self.assert_found(res, BID_K, 'whole'),
                         os.path.join(d, 'vmlinux'))

    # hostile sections -------------------------------------------------
    def hostile(self, why, **changed):
        return self.hostile_find(why, self.kernel, BID_K, **changed)

    def test_names_outside_the_string_table(self):
        symtab = bytearray(section_bytes(self.kernel, '.symtab'))
        strtab = section_bytes(self.kernel, '.strtab')
        for i in range(1, len(symtab) // 24):
            struct.pack_into('<I', symtab, 24 * i, len(strtab) + 1000 * i)
        res = self.hostile('symbol table is damaged', **{
            '.symtab': bytes(symtab)})
        self.assert_found(res, BID_K, 'whole')

    def test_table_cut_short(self):
        symtab = section_bytes(self.kernel, '.symtab')
        res = self.hostile('symbol table is damaged', **{
            '.symtab': symtab[:len(symtab) - 7]})
        self.assert_found(res, BID_K, 'whole')

    def test_body_shorter_than_announced(self):
        # libdebuginfod 0.188 calls it a 404: a server fault, not a miss
        res = self.hostile('unavailable', **{'.symtab': 'truncated'})
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertEqual(res.stdout, '')

    def test_note_of_another_build_id(self):
        res = self.hostile('does not carry the build ID asked for', **{
            '.notes': section_bytes(self.kernel2, '.notes')})
        self.assert_found(res, BID_K, 'whole')

    def test_whole_file_size_announced_for_sections(self):
        """debuginfod 0.188, cold, on a .deb: a section it has just
        extracted comes with the whole file's size in X-DEBUGINFOD-SIZE
        (Content-Length is the section's).  A complete body is the
        section: the symbols, no rejection, no whole file."""
        whole = os.path.getsize(self.kernel)
        bodies = {n: section_bytes(self.kernel, n) for n in TABLES}
        with FaultServer('file', body=self.body(), bodies=bodies,
                         size_header=True, hang_s=30,
                         announce={n: whole for n in TABLES}) as fault:
            res = self.find('--symbols-only', BID_K,
                            env=self.env(urls=fault.url,
                                         DEBUGINFOD_TIMEOUT=5))
            asked = [h.rsplit('/', 1)[-1] for h in fault.hits]
        self.assertNotIn('rejected', res.stderr)
        path = self.assert_found(res, BID_K, 'symbols')
        self.assertEqual(os.path.basename(path), SYMBOLS_FILE)
        self.assertEqual(sorted(asked), sorted(TABLES))

    def test_two_gigabytes_announced(self):
        res = self.hostile('no .symtab from the servers (too large)', **{
            '.symtab': 'huge'})
        self.assert_found(res, BID_K, 'whole')


if __name__ == '__main__':
    sys.exit(server_testcase.run_main('symbols', sys.modules[__name__]))
