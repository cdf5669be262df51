#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`symprov find --kind module --symbols-only`: a kernel module's symbol
table by section queries to a real debuginfod, the rule's fallbacks to
the whole .ko, hostile sections.

A debuginfod on 127.0.0.1 serves modules linked as kbuild links them
(objects_fixture.build_module: .text first, -pg -mfentry), and modules the
rule refuses; what went over the wire is read from its /metrics.  The
fault server plays hostile sections.  perf's reading of such files is
checked end to end (run_objects_e2e.py, test_perfcache.py); here: what the
provider builds, what it refuses, and that nothing half-made stays in the
client cache.
"""
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, os.path.join(HERE, '..', 'e2e'))

from elf_fixtures import read_build_id, read_sections  # noqa: E402
from elf_fixtures import section_bytes  # noqa: E402
from elf_mutate import ElfImage  # noqa: E402
from fault_server import FaultServer  # noqa: E402
from link_proxy import ThrottleProxy  # noqa: E402
from minimal_perfdata import minimal  # noqa: E402
import objects_fixture  # noqa: E402
from perfdata import PerfData  # noqa: E402
import server_testcase  # noqa: E402
from symbols_testcase import (SYMBOLS_FILE, SymbolsTestCase,  # noqa: E402
                              symbols, symprov)

SHF_ALLOC = 2
SHF_EXECINSTR = 4
TRAMPOLINES = '.static_call.text'
TABLES = ('.shstrtab', '.note.gnu.build-id', '.symtab', '.strtab')

# A module with a named function in a code section after .text, which
# perf 7.3 maps by its file offset (not in the tables): comes whole.
NOINSTR_SOURCE = r'''
__attribute__((section(".noinstr.text"))) long nm_noinstr(long x)
{
	return x * 7;
}
long nm_fn(long x) { return nm_noinstr(x) + 1; }
'''


# The same past .init.text, where perf 7.3 stops mapping code with .text
# (max_text_section()): placed as any other section, in either file.
PAST_INIT_SOURCE = r'''
__attribute__((section(".init.text"))) int init_module(void) { return 0; }
__attribute__((section(".static_call.text"))) long pi_tramp(long x)
{
	return x * 7;
}
long pi_fn(long x) { return pi_tramp(x) + 1; }
'''


# .data, with nothing to relocate, is the tail of .init.data in
# .shstrtab: the tables tell neither which section it is nor its name.
UNTOLD_SOURCE = r'''
int ut_plain = 3;
__attribute__((section(".init.data"))) int ut_init_table[4] = { 1, 2, 3, 4 };
__attribute__((section(".init.text"))) int init_module(void)
{
	return ut_init_table[1];
}
long ut_fn(long x) { return x * ut_plain; }
'''


# Code before .text in the file, which perf would map first: x86's
# alternative instructions, placed there by a linker script.
CODE_FIRST_SOURCE = r'''
asm(".pushsection .altinstr_replacement, \"ax\"\n"
    "cf_alt: nop; ret\n"
    ".popsection\n");
long cf_fn(long x) { return x * 5; }
__attribute__((section(".init.text"))) int init_module(void) { return 0; }
'''
CODE_FIRST_LDS = '''
SECTIONS {
	.altinstr_replacement 0 : { *(.altinstr_replacement) }
	.text 0 : { *(.text) }
	.init.text 0 : { *(.init.text) }
	.note.gnu.build-id 0 : { *(.note.gnu.build-id) }
}
'''


# A megabyte of code before the trampolines: the symbols-only file is as
# long, the gap where the code was punched out of it.
BIG_CODE = 1 << 20
BIG_FUNC = r'''
long symprov_big_fn1(long x)
{
	asm volatile(".skip %d, 0x90");
	return x + 1;
}
''' % BIG_CODE


def allocated(path):
    return os.stat(path).st_blocks * 512


class ModuleSymbolsTest(SymbolsTestCase):
    TABLES = TABLES

    @classmethod
    def make_fixtures(cls, srv):
        cls.mod = objects_fixture.build_module(
            os.path.join(srv, 'symprov_a.ko'), 'symprov_a')
        cls.mod2 = objects_fixture.build_module(
            os.path.join(srv, 'symprov_b.ko'), 'symprov_b', nfuncs=5)
        cls.noinstr = objects_fixture.build_module_of(
            os.path.join(srv, 'noinstr.ko'), NOINSTR_SOURCE)
        cls.untold = objects_fixture.build_module_of(
            os.path.join(srv, 'untold.ko'), UNTOLD_SOURCE)
        cls.past_init = objects_fixture.build_module_of(
            os.path.join(srv, 'past_init.ko'), PAST_INIT_SOURCE)
        cls.tramp = objects_fixture.build_module(
            os.path.join(srv, 'symprov_t.ko'), 'symprov_t', nfuncs=4,
            trampolines=3)
        cls.tables_first = objects_fixture.build_module(
            os.path.join(srv, 'symprov_f.ko'), 'symprov_f', nfuncs=4,
            trampolines=2, data_first=True)
        cls.code_first = objects_fixture.build_module_of(
            os.path.join(srv, 'code_first.ko'), CODE_FIRST_SOURCE,
            CODE_FIRST_LDS)
        cls.big = objects_fixture.build_module_of(
            os.path.join(srv, 'symprov_big.ko'),
            objects_fixture.MODULE_SOURCE % {
                'name': 'symprov_big',
                'funcs': objects_fixture.MODULE_FUNC % {
                    'name': 'symprov_big', 'i': 0, 'mod': 7} + BIG_FUNC +
                objects_fixture.MODULE_TRAMPOLINE % {
                    'name': 'symprov_big', 'i': 0}})
        cls.bid = read_build_id(cls.mod)
        cls.bid2 = read_build_id(cls.mod2)

    def find(self, *args, env=None):
        return super().find('--kind', 'module', *args, env=env)

    # a real debuginfod ------------------------------------------------
    def test_cold_then_cached(self):
        n0, bytes0 = self.section_traffic()
        files = self.server.responses(type='debuginfo')
        res = self.find('--symbols-only', self.bid)
        path = self.assert_found(res, self.bid, 'symbols')
        self.assertEqual(os.path.basename(path), SYMBOLS_FILE)
        n1, bytes1 = self.section_traffic()
        # the four sections, nothing else: never the .ko
        self.assertEqual(n1 - n0, 4)
        self.assertEqual(bytes1 - bytes0, self.table_bytes(self.mod))
        self.assertEqual(self.server.responses(type='debuginfo'), files)
        self.assertEqual(sorted(self.cache_entries(self.bid)),
                         [SYMBOLS_FILE])
        # at most 1.2 times the tables and the section headers
        shdrs = 64 * len(read_sections(self.mod))
        self.assertLessEqual(os.path.getsize(path),
                             1.2 * (self.table_bytes(self.mod) + shdrs))
        before = self.server.responses()
        res = self.find('--symbols-only', self.bid)
        self.assertEqual(self.assert_found(res, self.bid, 'symbols'), path)
        self.assertEqual(self.server.responses(), before)

    def test_what_perf_reads_is_the_modules(self):
        """The symbols as the .ko's, an ET_REL whose .text is at the .ko's
        file offset (perf places its symbols by it), every section with a
        symbol at its index and name, none executable (perf 7.3 maps code
        sections after .text by offsets the file does not keep)."""
        path = self.assert_found(self.find('--symbols-only', self.bid),
                                 self.bid, 'symbols')
        self.assertEqual(symbols(path), symbols(self.mod))
        with open(path, 'rb') as f:
            head = f.read(18)
        self.assertEqual(struct.unpack_from('<H', head, 16)[0], 1)  # ET_REL
        full, mine = read_sections(self.mod), read_sections(path)
        in_use = {int(f[6]) for f in (line.split() for line in
                                      symbols(self.mod).splitlines()[1:])
                  if f[6].isdigit() and f[3] != 'SECTION'}
        for name, (idx, _typ, flags, _addr, _size) in full.items():
            if idx not in in_use:
                continue
            self.assertIn(name, mine)
            self.assertEqual(mine[name][0], idx, name)
            self.assertNotIn('X', mine[name][2], name)
            self.assertEqual('A' in mine[name][2], 'A' in flags, name)

        def text_offset(p):
            with open(p, 'rb') as f:
                img = ElfImage(f.read())
            return img.shdr(img.section('.text'), 'sh_offset')
        self.assertEqual(text_offset(path), text_offset(self.mod))
        self.assertEqual(section_bytes(path, '.note.gnu.build-id'),
                         section_bytes(self.mod, '.note.gnu.build-id'))

    def test_whole_when_asked(self):
        before = self.section_traffic()[0]
        path = self.assert_found(self.find(self.bid2), self.bid2, 'whole')
        self.assertEqual(self.section_traffic()[0], before)
        with open(path, 'rb') as a, open(self.mod2, 'rb') as b:
            self.assertEqual(a.read(), b.read())

    def test_code_section_after_text_comes_whole(self):
        bid = read_build_id(self.noinstr)
        res = self.find('--symbols-only', bid)
        path = self.assert_found(res, bid, 'whole')
        self.assertIn('a symbol in a code section that perf maps with '
                      '.text by its file offset', res.stderr)
        self.assertNotIn(SYMBOLS_FILE, self.cache_entries(bid))
        self.assertEqual(os.path.getsize(path),
                         os.path.getsize(self.noinstr))

    def test_trampolines_keep_their_place(self):
        """x86's static-call trampolines right after .text, which perf
        maps with .text by their file offset: the file keeps that offset
        (.text's size, here not a multiple of their alignment, then 4) and
        their bytes, one section query more; theirs is the only executable
        section."""
        bid = read_build_id(self.tramp)
        tramp = section_bytes(self.tramp, TRAMPOLINES)
        n0, bytes0 = self.section_traffic()
        path = self.assert_found(self.find('--symbols-only', bid), bid,
                                 'symbols')
        n1, bytes1 = self.section_traffic()
        self.assertEqual(n1 - n0, 5)
        self.assertEqual(bytes1 - bytes0,
                         self.table_bytes(self.tramp) + len(tramp))
        self.assertEqual(symbols(path), symbols(self.tramp))
        self.assertEqual(section_bytes(path, TRAMPOLINES), tramp)
        with open(self.tramp, 'rb') as f:
            ko = ElfImage(f.read())
        with open(path, 'rb') as f:
            img = ElfImage(f.read())
        i = ko.section(TRAMPOLINES)
        self.assertNotEqual(ko.shdr(1, 'sh_size') % 4, 0)
        self.assertEqual(img.names[i], TRAMPOLINES)
        self.assertEqual(img.shdr(i, 'sh_offset'), ko.shdr(i, 'sh_offset'))
        self.assertEqual([n for j, n in enumerate(img.names)
                          if j and img.shdr(j, 'sh_flags') & SHF_EXECINSTR],
                         [TRAMPOLINES])

    def test_tables_before_text(self):
        """7.3's modules: tables (__ksymtab, .altinstructions...) before
        .text in the file.  perf maps .text by its own offset, so the file
        puts it right after the ELF header; the trampolines keep their
        offset from it, and their bytes."""
        bid = read_build_id(self.tables_first)
        path = self.assert_found(self.find('--symbols-only', bid), bid,
                                 'symbols')
        self.assertEqual(symbols(path), symbols(self.tables_first))
        with open(self.tables_first, 'rb') as f:
            ko = ElfImage(f.read())
        with open(path, 'rb') as f:
            img = ElfImage(f.read())
        text, tramp = ko.section('.text'), ko.section(TRAMPOLINES)
        self.assertGreater(text, 1)
        self.assertEqual(img.names[text], '.text')
        self.assertEqual(img.shdr(text, 'sh_offset'), 64)
        self.assertNotEqual(ko.shdr(text, 'sh_offset'), 64)
        self.assertEqual(
            img.shdr(tramp, 'sh_offset') - img.shdr(text, 'sh_offset'),
            ko.shdr(tramp, 'sh_offset') - ko.shdr(text, 'sh_offset'))
        self.assertEqual(section_bytes(path, TRAMPOLINES),
                         section_bytes(self.tables_first, TRAMPOLINES))
        self.assertEqual([img.names[j] for j in range(1, text)],
                         [ko.names[j] for j in range(1, text)])

    def test_code_before_text_comes_whole(self):
        bid = read_build_id(self.code_first)
        res = self.find('--symbols-only', bid)
        self.assertIn('a code section before .text', res.stderr)
        self.assert_found(res, bid, 'whole')

    def test_gap_stays_a_hole_in_copies(self):
        """The symbols-only file of a module with trampolines after a
        megabyte of code is that long, the code's place a hole; `symprov
        prefetch --into` copies it with the hole, not a megabyte of
        zeros."""
        bid = read_build_id(self.big)
        path = self.assert_found(self.find('--symbols-only', bid), bid,
                                 'symbols')
        self.assertGreater(os.path.getsize(path), BIG_CODE)
        self.assertLess(allocated(path), BIG_CODE // 2,
                        'the file system of %s punches no holes' % path)
        pd = PerfData(minimal())
        pd.add_build_id(bytes.fromhex(bid), '/lib/modules/6.12.0-test/'
                        'kernel/symprov_big.ko', kernel=True)
        profile = os.path.join(self.home, 'big.data')
        with open(profile, 'wb') as f:
            f.write(pd.bytes())
        tree = os.path.join(self.home, 'tree')
        res = subprocess.run(
            [symprov(), 'prefetch', '-i',
             profile, '--providers', 'libdebuginfodprov.so', '--into', tree],
            env=self.env(), text=True, capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        copy = os.path.join(tree, 'buildid', bid, 'debuginfo')
        with open(path, 'rb') as a, open(copy, 'rb') as b:
            self.assertEqual(a.read(), b.read())
        self.assertLessEqual(allocated(copy), allocated(path) + 65536)

    def test_sections_side_by_side(self):
        """Once .shstrtab has named them, the other four sections are
        asked at once: all four in flight before the first is answered,
        one round trip for them where one each would be four."""
        bid = read_build_id(self.tramp)
        hold = 1.0
        with ThrottleProxy(self.server.port, hold=hold,
                           max_seconds=120) as proxy:
            path = self.assert_found(
                self.find('--symbols-only', bid,
                          env=self.env(urls=proxy.url)), bid, 'symbols')
            asked = list(zip(proxy.requests, proxy.arrivals))
        self.assertEqual(symbols(path), symbols(self.tramp))
        sections = [(r.split()[1].rsplit('/', 1)[1], t) for r, t in asked
                    if '/section/' in r]
        self.assertEqual(sections[0][0], '.shstrtab')
        self.assertEqual(sorted(n for n, _ in sections[1:]),
                         sorted(TABLES[1:] + (TRAMPOLINES,)))
        # each is held HOLD seconds before it goes to the server
        self.assertLess(sections[-1][1] - sections[1][1], hold)

    def test_server_preparing_past_the_timeout(self):
        """A server that sends nothing for longer than DEBUGINFOD_TIMEOUT
        to the first query (a debuginfod -U extracting the .ko from a
        package) is down: unavailable after one wait.  Told never to take
        a server for down (symprov.debuginfod.server-down-s=0),
        libdebuginfod asks again, within DEBUGINFOD_RETRY_LIMIT; the
        whole .ko is never asked, each other section once."""
        bid = read_build_id(self.tramp)
        bodies = {n: section_bytes(self.tramp, n)
                  for n in TABLES + (TRAMPOLINES,)}
        with open(self.tramp, 'rb') as f:
            body = f.read()
        for down_s in (None, 0):
            self.cache = os.path.join(self.home, 'cache-%s' % down_s)
            with FaultServer('late', body=body, bodies=bodies, delay_s=5,
                             then='file', after=1, size_header=True) as fault:
                res = self.find('--symbols-only', bid,
                                env=self.env(
                                    urls=fault.url, DEBUGINFOD_TIMEOUT=2,
                                    SYMPROV_DEBUGINFOD_SERVER_DOWN_S=down_s))
                hits = [h.rsplit('/', 1)[-1] for h in fault.hits]
            if down_s is None:
                self.assertEqual(res.returncode, 4, res.stderr)
                self.assertIn('%s sent nothing in 2 s' % fault.url,
                              res.stderr)
                self.assertEqual(hits[:1], ['.shstrtab'])
                continue
            path = self.assert_found(res, bid, 'symbols')
            self.assertEqual(symbols(path), symbols(self.tramp))
            self.assertEqual(hits[:2], ['.shstrtab', '.shstrtab'])
            self.assertEqual(sorted(hits[2:]),
                             sorted(TABLES[1:] + (TRAMPOLINES,)))

    def test_trampolines_cut_short(self):
        bid = read_build_id(self.tramp)
        res = self.hostile_find('trampolines end past their section',
                                self.tramp, bid, **{TRAMPOLINES: b'\xc3'})
        self.assert_found(res, bid, 'whole')

    def test_trampolines_after_a_text_too_large(self):
        """A .text symbol far out would place the trampolines (and make
        the file as large): refused."""
        bid = read_build_id(self.tramp)
        symtab = bytearray(section_bytes(self.tramp, '.symtab'))
        for i in range(1, len(symtab) // 24):
            if symtab[24 * i + 4] & 0xf == 2 and \
                    struct.unpack_from('<H', symtab, 24 * i + 6)[0] == 1:
                struct.pack_into('<Q', symtab, 24 * i + 8, 1 << 40)
                break
        res = self.hostile_find('too large', self.tramp, bid, **{
            TRAMPOLINES: section_bytes(self.tramp, TRAMPOLINES),
            '.symtab': bytes(symtab)})
        self.assert_found(res, bid, 'whole')

    def test_code_section_past_init_text(self):
        bid = read_build_id(self.past_init)
        path = self.assert_found(self.find('--symbols-only', bid), bid,
                                 'symbols')
        self.assertEqual(symbols(path), symbols(self.past_init))

    def test_section_names_the_tables_do_not_tell(self):
        """.data is left out of .shstrtab (the tail of .init.data) with no
        .rela.data after it: the sections since the last certain name go
        unnamed and not loaded (perf puts their symbols at no address a
        sample has); every name given is the .ko's; .text is .text."""
        bid = read_build_id(self.untold)
        path = self.assert_found(self.find('--symbols-only', bid), bid,
                                 'symbols')
        # readelf names section symbols by their sections
        def named(p):
            return [ln for ln in symbols(p).splitlines()
                    if ' SECTION ' not in ln]
        self.assertEqual(named(path), named(self.untold))
        with open(self.untold, 'rb') as f:
            real = ElfImage(f.read()).names
        with open(path, 'rb') as f:
            img = ElfImage(f.read())
        self.assertEqual(img.names[1], '.text')
        self.assertEqual(img.names[real.index('.data')], '')
        unnamed = 0
        for i, name in enumerate(img.names[1:-3], 1):
            if name:
                self.assertEqual(name, real[i])
                continue
            unnamed += 1
            self.assertFalse(img.shdr(i, 'sh_flags') & SHF_ALLOC, real[i])
        # .data and the sections since the last name the tables told
        self.assertGreaterEqual(unnamed, 1)
        self.assertLessEqual(unnamed, 3)

    # hostile sections -------------------------------------------------
    def hostile(self, why, **changed):
        return self.hostile_find(why, self.mod, self.bid, **changed)

    def test_names_outside_the_string_table(self):
        symtab = bytearray(section_bytes(self.mod, '.symtab'))
        strtab = section_bytes(self.mod, '.strtab')
        for i in range(1, len(symtab) // 24):
            struct.pack_into('<I', symtab, 24 * i, len(strtab) + 1000 * i)
        res = self.hostile('symbol table is damaged',
                           **{'.symtab': bytes(symtab)})
        self.assert_found(res, self.bid, 'whole')

    def test_symbol_in_a_section_the_rebuild_left_out(self):
        """A function in a section no section symbol announces: no
        section header could be certain for it."""
        symtab = bytearray(section_bytes(self.mod, '.symtab'))
        for i in range(1, len(symtab) // 24):
            info = symtab[24 * i + 4]
            if info & 0xf == 2:  # STT_FUNC
                struct.pack_into('<H', symtab, 24 * i + 6, 0xff00)
                break
        res = self.hostile('a symbol is in a section without section symbol',
                           **{'.symtab': bytes(symtab)})
        self.assert_found(res, self.bid, 'whole')

    def test_section_names_damaged(self):
        names = section_bytes(self.mod, '.shstrtab')
        res = self.hostile('fetching the whole file',
                           **{'.shstrtab': names.replace(b'\0', b'x')})
        self.assert_found(res, self.bid, 'whole')

    def test_note_of_another_module(self):
        res = self.hostile('does not carry the build ID asked for', **{
            '.note.gnu.build-id': section_bytes(self.mod2,
                                                '.note.gnu.build-id')})
        self.assert_found(res, self.bid, 'whole')


if __name__ == '__main__':
    sys.exit(server_testcase.run_main('module symbols',
                                      sys.modules[__name__]))
