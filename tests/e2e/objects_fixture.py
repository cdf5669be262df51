#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Kernel modules and user-space objects of a profile, made for the tests.

    objects_fixture.py --from orig.data --out mod.data \
        [--every 10] [--release 6.12.117+deb12-cloud-amd64] FILE.ko...

Modules, in a recorded profile, for machines that run none:
Adds to the profile, for each FILE.ko (an ET_REL kernel module with a
build ID): an MMAP record of the kernel's kind, as perf record writes for
a loaded module, named like Debian's /lib/modules/<release>/kernel/...
<name>.ko.xz, at an address of the module area of its own; its build ID
(in its MMAP2 record if the kernel's has one, in HEADER_BUILD_ID if the
profile has that table); and moves every Nth kernel sample of the profile
into the functions of the modules' .text, round robin.  The .ko's own
symbol table is then the oracle: perf places a module's .text symbols at
map start + st_value, so each moved sample belongs to the function it was
put in.  Prints a JSON summary on stdout: per module its name in the
profile, short name ([xfs]), build ID and base, and the expected sample
count per (dso, symbol).

Importable: Module, module_functions(), splice_modules(); build_module()
makes a module with the toolchain, as kbuild does (gcc -g -c, then ld -r
with a build ID), with kernel-like sections, build_module_of() one of
given C source; build_user_object() a shared object and a program using
it, with static functions, for a profile of user-space code whose files
are then taken away.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
from elf_mutate import ElfImage  # noqa: E402
from elf_fixtures import read_build_id  # noqa: E402
from perfdata import HEADER_BUILD_ID, PerfData  # noqa: E402

STT_FUNC = 2
ET_REL = 1
# where the modules go: past where the profile's own samples are
MODULE_BASE = 0xffffffffc1000000
MODULE_ALIGN = 2 << 20
RELEASE = '6.12.117+deb12-cloud-amd64'


class Module:
    """A .ko and where the profile says it was: its name there, base."""

    def __init__(self, path, name=None, release=RELEASE):
        self.path = path
        base = os.path.basename(path)
        stem = base[:-len('.ko')] if base.endswith('.ko') else base
        self.short = '[%s]' % stem.replace('-', '_')
        # its place in the package's tree, if it comes from one
        sub = path.split('/kernel/', 1)[1] if '/kernel/' in path else base
        self.name = name or '/lib/modules/%s/kernel/%s.xz' % (release, sub)
        self.build_id = read_build_id(path)
        self.functions, self.text_size = module_functions(path)
        # x86's static-call trampolines, loaded right after .text
        self.trampolines, self.span = module_trampolines(path,
                                                         self.text_size)
        self.base = None


def module_functions(path):
    """[(st_value, st_size, name)] of the functions of the .text of the
    ET_REL file PATH, one per address, and the size of its .text."""
    with open(path, 'rb') as f:
        img = ElfImage(f.read())
    if img.ehdr('e_type') != ET_REL:
        raise ValueError('%s is not a relocatable file' % path)
    text = img.section('.text')
    symtab = img.section('.symtab')
    strtab = img.shdr(symtab, 'sh_link')
    base = img.shdr(strtab, 'sh_offset')
    seen, out = set(), []
    for n in range(1, img.nsyms(symtab)):
        if img.sym(symtab, n, 'st_shndx') != text or \
                img.sym(symtab, n, 'st_info') & 0xf != STT_FUNC:
            continue
        value = img.sym(symtab, n, 'st_value')
        size = img.sym(symtab, n, 'st_size')
        off = base + img.sym(symtab, n, 'st_name')
        name = bytes(img.data[off:img.data.index(b'\0', off)]).decode()
        # the padding and CFI stubs before a function are its own
        if size < 8 or value in seen or name.startswith(('__pfx_',
                                                          '__cfi_')):
            continue
        seen.add(value)
        out.append((value, size, name))
    return sorted(out), img.shdr(text, 'sh_size')


def module_trampolines(path, text_size):
    """([(offset, st_size, name)], span): the static-call trampolines of
    the ET_REL file PATH that the kernel loads with .text, by their offset
    from its start (the section right after .text and its relocations,
    aligned as in the file), and the bytes .text and they take."""
    with open(path, 'rb') as f:
        img = ElfImage(f.read())
    names = img.names
    if '.static_call.text' not in names:
        return [], text_size
    text, sct = names.index('.text'), names.index('.static_call.text')
    if names[text + 1:sct] not in ([], ['.rela.text']):
        return [], text_size
    align = img.shdr(sct, 'sh_addralign') or 1
    start = (text_size + align - 1) // align * align
    symtab = img.section('.symtab')
    strtab = img.shdr(symtab, 'sh_link')
    base = img.shdr(strtab, 'sh_offset')
    out = []
    for n in range(1, img.nsyms(symtab)):
        if img.sym(symtab, n, 'st_shndx') != sct or \
                img.sym(symtab, n, 'st_info') & 0xf != STT_FUNC:
            continue
        off = base + img.sym(symtab, n, 'st_name')
        name = bytes(img.data[off:img.data.index(b'\0', off)]).decode()
        out.append((start + img.sym(symtab, n, 'st_value'),
                    img.sym(symtab, n, 'st_size'), name))
    return sorted(out), start + img.shdr(sct, 'sh_size')


MODULE_SOURCE = r'''
__attribute__((section(".init.text"))) int %(name)s_init(void)
{
	return 0;
}
%(funcs)s
'''
MODULE_FUNC = r'''
__attribute__((noinline)) long %(name)s_fn%(i)d(long x)
{
	long i, s = x;

	for (i = 0; i < x %% %(mod)d + 3; i++)
		s = s * 31 + i * %(i)d;
	return s;
}
'''

# x86's static-call trampoline (ARCH_DEFINE_STATIC_CALL_TRAMP in
# arch/x86/include/asm/static_call.h): a jump to a function, in a section
# of its own aligned to 4, which ld -r puts right after .text.
MODULE_TRAMPOLINE = r'''
asm(".pushsection .static_call.text, \"ax\"\n"
    ".align 4\n"
    ".globl __SCT__%(name)s_call%(i)d\n"
    "__SCT__%(name)s_call%(i)d:\n"
    ".byte 0xe9; .long %(name)s_fn%(i)d - (. + 4)\n"
    ".byte 0x0f, 0xb9, 0xcc\n"
    ".type __SCT__%(name)s_call%(i)d, @function\n"
    ".size __SCT__%(name)s_call%(i)d, . - __SCT__%(name)s_call%(i)d\n"
    ".popsection\n");
'''


# The sections of the kernel's scripts/module.lds that such a module has,
# and its notes after them (kbuild's objects bring notes of their own, with
# which ld puts the build ID): .text first, as in every module of Debian's
# packages.
MODULE_LDS = '''
SECTIONS {
	.text 0 : { *(.text .text.[0-9a-zA-Z_]*) }
	.bss 0 : { *(.bss .bss.[0-9a-zA-Z_]*) }
	.data 0 : { *(.data .data.[0-9a-zA-Z_]*) }
	.rodata 0 : { *(.rodata .rodata.[0-9a-zA-Z_]*) }
	.note.gnu.build-id 0 : { *(.note.gnu.build-id) }
}
'''

# Debian's 7.3 modules: __ksymtab, __bug_table, .altinstructions,
# __patchable_function_entries and the like before .text, whose file
# offset is then not the one right after the ELF header.
MODULE_LDS_TABLES_FIRST = '''
SECTIONS {
	__ksymtab 0 : { *(__ksymtab) }
	.altinstructions 0 : { *(.altinstructions) }
	.text 0 : { *(.text .text.[0-9a-zA-Z_]*) }
	.static_call.text 0 : { *(.static_call.text) }
	.init.text 0 : { *(.init.text) }
	.bss 0 : { *(.bss .bss.[0-9a-zA-Z_]*) }
	.data 0 : { *(.data .data.[0-9a-zA-Z_]*) }
	.rodata 0 : { *(.rodata .rodata.[0-9a-zA-Z_]*) }
	.note.gnu.build-id 0 : { *(.note.gnu.build-id) }
}
'''

# Tables for those sections: 13 and 14 bytes, so that .text's offset in
# the .ko is not a multiple of 64.
MODULE_TABLES = r'''
__attribute__((section("__ksymtab"), used, aligned(1)))
static const char %(name)s_ksymtab[13] = { 1 };
__attribute__((section(".altinstructions"), used, aligned(1)))
static const char %(name)s_alt[14] = { 2 };
'''


def build_module(path, name, nfuncs=12, trampolines=0, data_first=False):
    """PATH, an ET_REL module NAME_fn0..NAME_fnN in .text, NAME_init in
    .init.text, with DWARF and a build ID, linked as kbuild links one
    (ld -r with the sections of its module.lds); with TRAMPOLINES static-
    call trampolines __SCT__NAME_call0.. to the first functions; with
    DATA_FIRST, tables before .text in the file, as in 7.3's modules."""
    funcs = ''.join(MODULE_FUNC % {'name': name, 'i': i, 'mod': 7 + i}
                    for i in range(nfuncs))
    funcs += ''.join(MODULE_TRAMPOLINE % {'name': name, 'i': i}
                     for i in range(min(trampolines, nfuncs)))
    if not data_first:
        return build_module_of(path, MODULE_SOURCE % {'name': name,
                                                      'funcs': funcs})
    # x86's CONFIG_FUNCTION_ALIGNMENT: .text aligned to 16, in the file
    # too, after tables that are not
    return build_module_of(path, MODULE_SOURCE % {
        'name': name, 'funcs': funcs + MODULE_TABLES % {'name': name}},
        MODULE_LDS_TABLES_FIRST, ['-falign-functions=16'])


def build_module_of(path, source, lds_text=None, cflags=()):
    """PATH, the module of C SOURCE, compiled (with CFLAGS too) and
    linked as kbuild does (with the linker script LDS_TEXT, else
    MODULE_LDS)."""
    src, obj, lds = path + '.c', path + '.o', path + '.lds'
    with open(src, 'w') as f:
        f.write(source)
    with open(lds, 'w') as f:
        f.write(lds_text or MODULE_LDS)
    # -pg -mfentry, as Debian's kernels: every function calls __fentry__
    subprocess.run(['gcc', '-g', '-O1', '-fno-pic', '-mcmodel=kernel',
                    '-ffreestanding', '-pg', '-mfentry'] + list(cflags) +
                   ['-c', src, '-o', obj], check=True, timeout=60)
    subprocess.run(['ld', '-r', '--build-id=sha1', '-T', lds, '-o', path,
                    obj], check=True, timeout=60)
    for f in (src, obj, lds):
        os.unlink(f)
    return path


USER_LIB_SOURCE = r'''
static __attribute__((noinline)) unsigned long objs_static_spin(unsigned long n)
{
	unsigned long i, s = 0;

	for (i = 0; i < n; i++)
		s = s * 1103515245 + i;
	return s;
}

unsigned long objs_global_spin(unsigned long n)
{
	return objs_static_spin(n) ^ objs_static_spin(n / 2);
}
'''
USER_PROG_SOURCE = r'''
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long objs_global_spin(unsigned long n);

static __attribute__((noinline)) unsigned long prog_static_loop(void)
{
	unsigned long s = 0, i;

	for (i = 0; i < 200000; i++)
		s += i * i;
	return s;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	unsigned long s = 0;

	while (time(NULL) < end)
		s += objs_global_spin(100000) + prog_static_loop();
	printf("%lu\n", s & 1);
	return 0;
}
'''


LIBC_PROG_SOURCE = r'''
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20], dst[1 << 20];
	static int v[4096];
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	size_t n = 0;
	int i;

	memset(buf, 'x', sizeof(buf) - 1);
	while (time(NULL) < end) {
		for (i = 0; i < 4096; i++)
			v[i] = rand();
		qsort(v, 4096, sizeof(v[0]), cmp);
		memcpy(dst, buf, sizeof(buf));
		n += strlen(dst);
	}
	return n == 0;
}
'''


def build_libc_program(path):
    """PATH, a program that spends its time in libc: qsort(), memcpy(),
    strlen(), whose work is done by functions libc keeps local (named by
    its debug info only)."""
    with open(path + '.c', 'w') as f:
        f.write(LIBC_PROG_SOURCE)
    subprocess.run(['gcc', '-O1', '-o', path, path + '.c'], check=True,
                   timeout=60)
    os.unlink(path + '.c')
    return path


def build_user_object(dirpath):
    """In DIRPATH: libobjs.so (a static and a global function) and objs (a
    program using it, with a static function of its own), with debug info
    and build IDs.  Returns (program, library)."""
    os.makedirs(dirpath, exist_ok=True)
    lib = os.path.join(dirpath, 'libobjs.so')
    prog = os.path.join(dirpath, 'objs')
    for src, text in ((lib + '.c', USER_LIB_SOURCE),
                      (prog + '.c', USER_PROG_SOURCE)):
        with open(src, 'w') as f:
            f.write(text)
    subprocess.run(['gcc', '-g', '-O1', '-shared', '-fPIC',
                    '-Wl,--build-id', '-o', lib, lib + '.c'], check=True,
                   timeout=60)
    subprocess.run(['gcc', '-g', '-O1', '-Wl,--build-id', '-o', prog,
                    prog + '.c', '-L' + dirpath, '-lobjs',
                    '-Wl,-rpath,' + dirpath], check=True, timeout=60)
    for src in (lib + '.c', prog + '.c'):
        os.unlink(src)
    return prog, lib


def split_debug(path, exe, debug):
    """EXE: PATH stripped as a distribution ships it (.dynsym only);
    DEBUG: its separate debug info (objcopy --only-keep-debug)."""
    subprocess.run(['objcopy', '--only-keep-debug', path, debug],
                   check=True, timeout=60)
    subprocess.run(['strip', '--strip-all', '-o', exe, path], check=True,
                   timeout=60)


def splice_modules(src, dst, modules, every=10, trampolines=False):
    """Write DST: SRC with MODULES loaded and every EVERYth kernel sample
    moved into one of their functions (with TRAMPOLINES, into their
    static-call trampolines first).  Returns {(short, symbol): count}
    of the moved samples."""
    with open(src, 'rb') as f:
        pd = PerfData(f.read())
    kernel_mmap = pd.kernel_mmap()
    base = MODULE_BASE
    for m in modules:
        m.base = base
        base += (m.span + MODULE_ALIGN - 1) // MODULE_ALIGN * \
            MODULE_ALIGN + MODULE_ALIGN
    for m in reversed(modules):
        build_id = bytes.fromhex(m.build_id)
        pd.insert_after(kernel_mmap, pd.kernel_mmap_like(
            m.base, m.span, m.name, build_id))
        # perf 7.3 records build IDs in the MMAP2 records, not here
        if HEADER_BUILD_ID in pd.features:
            pd.add_build_id(build_id, m.name, kernel=True)
    if not all(m.functions for m in modules):
        raise ValueError('a module without functions in its .text')
    want = collections.Counter()
    kernel = [r for r in pd.samples() if r.kernel]
    for i, r in enumerate(kernel[every - 1::every]):
        # spread over the modules first, then over their functions
        m = modules[i % len(modules)]
        targets = (m.trampolines if trampolines else []) + m.functions
        value, size, name = targets[(i // len(modules)) % len(targets)]
        r.set_ip(pd, m.base + value + min(4, size - 1))
        want[(m.short, name)] += 1
    tmp = dst + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(pd.bytes())
    os.replace(tmp, dst)
    return want


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--from', dest='src', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--every', type=int, default=10)
    ap.add_argument('--release', default=RELEASE)
    ap.add_argument('modules', nargs='+')
    args = ap.parse_args(argv)
    mods = [Module(p, release=args.release) for p in args.modules]
    want = splice_modules(args.src, args.out, mods, args.every)
    json.dump({'modules': [{'path': m.path, 'name': m.name,
                            'short': m.short, 'build_id': m.build_id,
                            'base': m.base} for m in mods],
               'expected': [[d, s, n] for (d, s), n in sorted(want.items())]},
              sys.stdout, indent=1)
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
