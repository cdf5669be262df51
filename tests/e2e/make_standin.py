#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Build a stand-in vmlinux for the running kernel under another build ID.

The stand-in is an ET_EXEC ELF whose .text section sits at the kernel's _text
address and spans up to _etext, with one function symbol per address taken
from kallsyms, linked by `ld -Ttext=ADDR --build-id=0xNEWID` together with a
small `gcc -g` object so it carries DWARF (debuginfod then serves it as
`debuginfo`, not only as `executable`).

    make_standin.py --build-id NEWID -o standin.vmlinux \
        [--kallsyms /proc/kallsyms] [--kallsyms-copy standin.kallsyms]

What makes `perf report --vmlinux=STANDIN` on the moved profile print the
same symbols as `perf report` (kallsyms) on the original one:

- only the symbols perf's kallsyms loader keeps (types T/t/W/w/D/d/B/b, no
  '$' names, no module symbols) and only those in [_text, _etext): a symbol
  in another allocated section would make perf create a separate
  "[kernel.kallsyms].<section>" map;
- one symbol per address, the one perf's kallsyms path keeps: kallsyms gives
  no sizes, symbols__fixup_end() extends only the last symbol of a
  same-address group to the next address and symbols__fixup_duplicate()
  then prefers that non-zero-length one, i.e. the last one in file order.
  With all aliases in the ELF, choose_best_symbol() would pick by
  binding/underscores/length instead and differ for many groups;
- explicit st_size = next kallsyms address - address (what fixup_end gives
  kallsyms symbols), binding from the type letter (W weak, upper-case
  global, lower-case local), STT_FUNC for t/w else STT_OBJECT (perf prints
  OBJECT symbols as name+offset);
- the relocation reference symbols `_text` and `_stext` (perf records
  "[kernel.kallsyms]_text" and looks the same name up in the vmlinux to
  compute the KASLR offset): when not the kept symbol of their address they
  are added as SHN_ABS NOTYPE symbols, which that lookup finds but the
  symbol loader skips;
- .text is the section perf uses to remap the kernel map: map start =
  sh_addr + reloc, end = start + sh_size, so the section must cover every
  sampled kernel text address.

The symbol object is written directly by this script (gas can't define the
same local name twice; kallsyms has hundreds of duplicated static names).
Its .text is sparse zeros.  The output is about as big as the kernel text
(tens of MB, mostly zeros).
"""

import argparse
import os
import platform
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import (E2EError, cli, is_hex_build_id, log, parse_kallsyms,  # noqa
                    perf_kallsyms_filter, run)

STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2
SHN_ABS = 0xfff1
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 1, 2, 3
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
EM = {"x86_64": 62, "aarch64": 183}
REF_RELOC_NAMES = ("_text", "_stext")

DWARF_C = r"""
/* Gives the symprov e2e stand-in vmlinux some DWARF. */
struct symprov_standin_info {
	unsigned long magic;
	const char *what;
};

int symprov_standin_marker(struct symprov_standin_info *info)
{
	return info ? (int)info->magic : 0;
}
"""


def binding(stype):
    if stype in "Ww":
        return STB_WEAK if stype == "W" else STB_LOCAL
    return STB_GLOBAL if stype.isupper() else STB_LOCAL


def elf_type(stype):
    return STT_FUNC if stype.lower() in "tw" else STT_OBJECT


def select_symbols(kallsyms):
    """Returns (text_start, text_end, [(addr, size, bind, type, name)],
    [(name, addr)] of extra absolute reference symbols)."""
    syms = parse_kallsyms(kallsyms)
    if not syms:
        raise E2EError("no symbols in %s" % kallsyms)
    byname = {}
    for addr, stype, name in syms:
        byname.setdefault(name, addr)
    if not any(a for a, _, _ in syms[:1000]):
        raise E2EError("%s has zeroed addresses (kptr_restrict? run as "
                       "root)" % kallsyms)
    for n in ("_text", "_etext"):
        if n not in byname:
            raise E2EError("%s has no %s" % (kallsyms, n))
    start = min(byname["_text"], byname.get("_stext", byname["_text"]))
    end = byname["_etext"]
    if end <= start:
        raise E2EError("_etext (%#x) <= _text (%#x)" % (end, start))

    kept = [(a, t, n) for a, t, n in syms if perf_kallsyms_filter(t, n)]
    kept.sort(key=lambda s: s[0])  # stable: keeps file order per address
    addrs = sorted({a for a, _, _ in kept})
    next_addr = {a: b for a, b in zip(addrs, addrs[1:])}
    winner = {}
    for a, t, n in kept:
        if start <= a < end:
            winner[a] = (t, n)  # last one in file order wins
    out = []
    for a in sorted(winner):
        t, n = winner[a]
        size = min(next_addr.get(a, end), end) - a
        if size <= 0:
            size = 1
        out.append((a, size, binding(t), elf_type(t), n))
    names = {n for _, _, _, _, n in out}
    extra = [(n, byname[n]) for n in REF_RELOC_NAMES
             if n in byname and n not in names]
    return start, end, out, extra


def write_rel_object(path, machine, text_size, symbols, abs_syms, start,
                     sections=None):
    """Write an ET_REL object: sparse zero .text of text_size bytes, and a
    symtab with symbols (values relative to start) and absolute ones.
    SECTIONS, [(name, address, size)], splits the code into several
    executable sections instead (symbols go to the one holding them)."""
    sections = sections or [(".text", start, text_size)]
    nsec = len(sections)
    strtab = bytearray(b"\0")
    stroff = {}

    def sname(n):
        if n not in stroff:
            stroff[n] = len(strtab)
            strtab.extend(n.encode() + b"\0")
        return stroff[n]

    def where(addr):
        for i, (_, sec_start, size) in enumerate(sections):
            if sec_start <= addr < sec_start + size or \
                    (i == nsec - 1 and addr == sec_start + size):
                return i + 1, addr - sec_start
        raise E2EError("symbol at %#x is in no section" % addr)

    ent = struct.Struct("<IBBHQQ")
    locs, globs = [], []
    for addr, size, bind, typ, name in symbols:
        ndx, value = where(addr)
        e = ent.pack(sname(name), (bind << 4) | typ, 0, ndx, value, size)
        (locs if bind == STB_LOCAL else globs).append(e)
    for name, addr in abs_syms:
        globs.append(ent.pack(sname(name), (STB_GLOBAL << 4) | STT_NOTYPE, 0,
                              SHN_ABS, addr, 0))
    # index 0 null, a section symbol per code section, locals, globals
    symtab = (ent.pack(0, 0, 0, 0, 0, 0) +
              b"".join(ent.pack(0, 3, 0, i + 1, 0, 0) for i in range(nsec)) +
              b"".join(locs) + b"".join(globs))
    first_global = 1 + nsec + len(locs)

    shnames = [b""] + [n.encode() for n, _, _ in sections] + [
        b".note.GNU-stack", b".symtab", b".strtab", b".shstrtab"]
    shstr = bytearray()
    shname_off = []
    for n in shnames:
        shname_off.append(len(shstr))
        shstr.extend(n + b"\0")

    ehdr_size, shent = 64, 64
    off = ehdr_size
    symtab_off = off
    off += len(symtab)
    strtab_off = off
    off += len(strtab)
    shstr_off = off
    off += len(shstr)
    off = (off + 7) & ~7
    shdr_off = off
    off += shent * len(shnames)
    code_off = []
    for _, _, size in sections:
        off = (off + 4095) & ~4095
        code_off.append(off)
        off += size

    sh = struct.Struct("<IIQQQQIIQQ")
    shdrs = [sh.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for i, (_, _, size) in enumerate(sections):
        shdrs.append(sh.pack(shname_off[i + 1], SHT_PROGBITS,
                             SHF_ALLOC | SHF_EXECINSTR, 0, code_off[i], size,
                             0, 0, 1, 0))
    shdrs += [
        sh.pack(shname_off[nsec + 1], SHT_PROGBITS, 0, 0, off, 0, 0, 0, 1,
                0),
        sh.pack(shname_off[nsec + 2], SHT_SYMTAB, 0, 0, symtab_off,
                len(symtab), nsec + 3, first_global, 8, ent.size),
        sh.pack(shname_off[nsec + 3], SHT_STRTAB, 0, 0, strtab_off,
                len(strtab), 0, 0, 1, 0),
        sh.pack(shname_off[nsec + 4], SHT_STRTAB, 0, 0, shstr_off,
                len(shstr), 0, 0, 1, 0),
    ]
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 1, machine, 1, 0, 0,
                               shdr_off, 0, ehdr_size, 0, 0, shent,
                               len(shnames), nsec + 4)
    with open(path, "wb") as f:
        f.write(ehdr)
        f.write(symtab)
        f.write(strtab)
        f.write(shstr)
        f.seek(shdr_off)
        f.write(b"".join(shdrs))
        f.truncate(off)  # sparse zero-filled code


def build(kallsyms, build_id, out, workdir, cc="gcc", ld="ld",
          timeout=300, ld_args=()):
    arch = platform.machine()
    if arch not in EM:
        raise E2EError("unsupported architecture %s" % arch)
    start, end, syms, extra = select_symbols(kallsyms)
    log("stand-in: .text %#x-%#x (%d MB), %d symbols, abs refs %s"
        % (start, end, (end - start) >> 20, len(syms),
           [n for n, _ in extra] or "none"))
    symo = os.path.join(workdir, "standin-syms.o")
    write_rel_object(symo, EM[arch], end - start, syms, extra, start)
    csrc = os.path.join(workdir, "standin-dwarf.c")
    with open(csrc, "w") as f:
        f.write(DWARF_C)
    dwo = os.path.join(workdir, "standin-dwarf.o")
    run([cc, "-g", "-O1", "-c", "-fno-pic", "-fno-asynchronous-unwind-tables",
         "-fcf-protection=none", "-o", dwo, csrc], timeout)
    tmp_out = out + ".tmp"
    # symbol object first: its .text starts exactly at -Ttext
    cmd = [ld, "-Ttext=%#x" % start, "--build-id=0x" + build_id,
           "-e", "%#x" % start, "-z", "noexecstack"] + list(ld_args) + \
        ["-o", tmp_out, symo, dwo]
    res = run(cmd, timeout, check=False)
    if res.returncode != 0:
        raise E2EError("ld failed: %s\n%s" % (" ".join(cmd), res.stderr))
    for line in res.stderr.splitlines():
        if "RWX" not in line:
            log("ld: " + line)
    os.replace(tmp_out, out)
    return start, end, len(syms)


def check_standin(path, build_id, start, readelf="readelf", timeout=120):
    """readelf checks: build ID note, .text address, DWARF present."""
    res = run([readelf, "-n", "-S", "-W", path], timeout)
    text = res.stdout
    if build_id not in text:
        raise E2EError("stand-in %s lacks build ID %s" % (path, build_id))
    ok_text = False
    for line in text.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 3 and parts[1] == ".text":
            ok_text = int(parts[3], 16) == start
    if not ok_text:
        raise E2EError("stand-in .text not at %#x" % start)
    if ".debug_info" not in text:
        raise E2EError("stand-in has no .debug_info")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-id", required=True, help="40 hex digits")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--kallsyms", default="/proc/kallsyms")
    ap.add_argument("--kallsyms-copy",
                    help="also save the kallsyms used here (alias map for "
                    "compare_reports.py)")
    ap.add_argument("--workdir", help="keep intermediate files here")
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--ld", default=os.environ.get("LD", "ld"))
    args = ap.parse_args(argv)
    bid = args.build_id.lower()
    if not is_hex_build_id(bid):
        ap.error("--build-id must be 40 hex digits")

    work = args.workdir or tempfile.mkdtemp(prefix="symprov-standin.")
    os.makedirs(work, exist_ok=True)
    try:
        ksrc = args.kallsyms
        # snapshot once so symbols and alias map agree
        snap = os.path.join(work, "kallsyms")
        with open(ksrc, "rb") as fi, open(snap, "wb") as fo:
            fo.write(fi.read())  # /proc files: no sendfile, size 0
        start, _, _ = build(snap, bid, args.output, work, args.cc, args.ld)
        check_standin(args.output, bid, start)
        if args.kallsyms_copy:
            shutil.copyfile(snap, args.kallsyms_copy)
        log("stand-in written: %s (build ID %s)" % (args.output, bid))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    cli(main, "make_standin")
