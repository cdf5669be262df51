# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Small ELF files with a chosen build ID, made with gcc and ld."""
import os
import struct
import subprocess

SOURCE = 'int symprov_fixture(void) { return %d; }\n'


def make_elf(path, build_id, debuginfo=True, seed=0):
    """Link PATH with --build-id=0xBUILD_ID; with debuginfo it carries
    DWARF, so debuginfod serves it as 'debuginfo' as well as 'executable'."""
    src = path + '.c'
    obj = path + '.o'
    with open(src, 'w') as f:
        f.write(SOURCE % seed)
    cmd = ['gcc', '-c', '-O0', src, '-o', obj]
    if debuginfo:
        cmd.insert(1, '-g')
    subprocess.run(cmd, check=True, timeout=60)
    subprocess.run(['ld', '--build-id=0x' + build_id, '-e',
                    'symprov_fixture', '-o', path, obj],
                   check=True, timeout=60)
    os.unlink(src)
    os.unlink(obj)
    return path


def read_build_id(path):
    """The GNU build ID of PATH, as hex, from readelf -n."""
    out = subprocess.run(['readelf', '-n', path], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    for line in out.splitlines():
        if 'Build ID:' in line:
            return line.split('Build ID:')[1].strip()
    return None


KERNEL_SOURCE = r'''
int kf_data_a = %(seed)d;
int kf_data_b[8] = { 2 };
const int kf_ro_a = 3;
const char kf_ro_str[12] = "symprov";
int kf_bss_a;
long kf_bss_b[4];
__attribute__((section(".init.data"))) int kf_init_data = 4;
__attribute__((section(".init.text"))) int kf_init_fn(void)
{
	return kf_init_data;
}
int kf_text_fn(int x) { return x + kf_data_a + kf_ro_a + kf_bss_a; }
int kf_text_fn2(int x)
{
	return kf_text_fn(x) * 2 + kf_ro_str[0] + (int)kf_bss_b[1] +
	       kf_data_b[3];
}
'''

# The layout of a vmlinux: the kernel's start symbols, the build ID in
# .notes, sections whose names are the tails of others (.text of
# .init.text).
KERNEL_LDS = '''
SECTIONS {
	. = 0xffffffff81000000;
	.text : { _stext = .; *(.text .text.*) _etext = .; }
	.rodata : ALIGN(4096) { __start_rodata = .; *(.rodata .rodata.*) }
	.notes : { *(.note.gnu.build-id) }
	.data : ALIGN(4096) { _sdata = .; *(.data) _edata = .; }
	.init.text : ALIGN(4096) { _sinittext = .; *(.init.text) _einittext = .; }
	.init.data : { *(.init.data) }
	.bss : ALIGN(4096) { __bss_start = .; *(.bss) *(COMMON) __bss_stop = .; }
	/DISCARD/ : { *(.eh_frame) *(.note.GNU-stack) *(.note.gnu.property) }
}
'''


def make_kernel_elf(path, build_id, seed=1):
    """A small vmlinux look-alike with DWARF: linked like an x86 kernel,
    with --emit-relocs (so its .symtab has a symbol per section) and a
    linker script that puts symbols in .text, .rodata, .data, .init.text,
    .init.data and .bss."""
    src, obj, lds = path + '.c', path + '.o', path + '.lds'
    with open(src, 'w') as f:
        f.write(KERNEL_SOURCE % {'seed': seed})
    with open(lds, 'w') as f:
        f.write(KERNEL_LDS)
    subprocess.run(['gcc', '-g', '-O1', '-c', '-fno-pic', '-mcmodel=kernel',
                    '-fno-asynchronous-unwind-tables', '-fcf-protection=none',
                    src, '-o', obj], check=True, timeout=60)
    subprocess.run(['ld', '--emit-relocs', '--no-warn-rwx-segments',
                    '--build-id=0x' + build_id, '-T', lds, '-e',
                    'kf_text_fn', '-o', path, obj], check=True, timeout=60)
    for f in (src, obj, lds):
        os.unlink(f)
    return path


MODULE_SOURCE = r'''
int km_data = %(seed)d;
__attribute__((noinline)) static int km_helper(int x)
{
	return x * 3 + km_data;
}
__attribute__((section(".init.text"))) int init_module(void)
{
	return km_helper(1);
}
__attribute__((section(".text.unlikely"))) int km_cold(int x)
{
	return x - km_data;
}
int km_main(int x) { return km_helper(x) + km_cold(x); }
'''


def make_module(path, build_id, seed=1, source=MODULE_SOURCE):
    """A kernel module look-alike with DWARF: gcc -g -c, then ld -r with
    the build ID, an ET_REL with .text, .init.text and .text.unlikely as a
    .ko has them (debuginfod serves it as 'debuginfo', never as
    'executable'); or of SOURCE (%(seed)d in it replaced)."""
    src, obj = path + '.c', path + '.o'
    with open(src, 'w') as f:
        f.write(source % {'seed': seed})
    subprocess.run(['gcc', '-g', '-O1', '-c', '-fno-pic', src, '-o', obj],
                   check=True, timeout=60)
    subprocess.run(['ld', '-r', '--build-id=0x' + build_id, '-o', path, obj],
                   check=True, timeout=60)
    os.unlink(src)
    os.unlink(obj)
    return path


PROGRAM_SOURCE = r'''
int up_data = %(seed)d;
int up_fn(int x) { return x + up_data; }
int main(void) { return up_fn(0) != %(seed)d; }
'''


def make_program(path, build_id, shared=False, seed=1):
    """A user-space executable (a shared object with SHARED) with DWARF,
    linked by gcc with the build ID: it has a PLT and dynamic relocations,
    which perf reads of the runtime object."""
    src = path + '.c'
    with open(src, 'w') as f:
        f.write(PROGRAM_SOURCE % {'seed': seed})
    cmd = ['gcc', '-g', '-O1', '-Wl,--build-id=0x' + build_id, src, '-o',
           path]
    if shared:
        cmd[1:1] = ['-shared', '-fPIC']
    subprocess.run(cmd, check=True, timeout=60)
    os.unlink(src)
    return path


def split_debug(path, debug):
    """PATH's debug info to DEBUG (objcopy --only-keep-debug: the code
    sections and segments without data), then PATH stripped: the runtime
    object and its separate debug file, as a distribution ships them."""
    subprocess.run(['objcopy', '--only-keep-debug', path, debug], check=True,
                   timeout=60)
    subprocess.run(['strip', path], check=True, timeout=60)
    return path, debug


def read_sections(path):
    """{name: (index, type, flags, address, size)} from readelf -S."""
    out = subprocess.run(['readelf', '-SW', path], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    secs = {}
    for line in out.splitlines():
        line = line.replace('[ ', '[')
        parts = line.split()
        if len(parts) < 7 or not parts[0].startswith('[') or \
                parts[0] == '[Nr]' or parts[1] == 'NULL':
            continue
        idx = int(parts[0].strip('[]'))
        flags = parts[7] if len(parts) > 10 else ''
        secs[parts[1]] = (idx, parts[2], flags, int(parts[3], 16),
                          int(parts[5], 16))
    return secs


def section_bytes(path, name):
    """The bytes of section NAME of the 64-bit little-endian ELF PATH."""
    with open(path, 'rb') as f:
        elf = f.read()
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)

    def shdr(i):
        return struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
    strs = shdr(shstrndx)
    for i in range(shnum):
        h = shdr(i)
        end = elf.index(b'\0', strs[4] + h[0])
        if elf[strs[4] + h[0]:end].decode() == name:
            return elf[h[4]:h[4] + h[5]]
    raise KeyError(name)
