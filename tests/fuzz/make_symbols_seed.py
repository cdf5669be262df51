#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A seed for fuzz_symbols: the sections of a small vmlinux look-alike,
or with --module of a module linked as kbuild links one (with
--trampolines, one with static-call trampolines), in the target's input
format, so that fuzzing starts from a file that builds.

    make_symbols_seed.py [--module [--trampolines]] OUTPUT
"""
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, os.path.join(HERE, '..', 'e2e'))
from elf_fixtures import make_kernel_elf, section_bytes  # noqa: E402
import objects_fixture  # noqa: E402

# fuzz_symbols.c: flag bit 0 puts a note with its build ID in front, bit 1
# takes the note's name from .shstrtab, bit 4 makes a module's file, bit
# 5 adds its trampolines.
FLAGS = 3
MODULE = 16
TRAMPOLINES = 32


def main():
    module = '--module' in sys.argv[1:-1]
    tramp = '--trampolines' in sys.argv[1:-1]
    out = sys.argv[-1]
    with tempfile.TemporaryDirectory() as tmp:
        if module:
            elf = objects_fixture.build_module(os.path.join(tmp, 'seed.ko'),
                                               'seed', nfuncs=3,
                                               trampolines=2 if tramp else 0)
            note = '.note.gnu.build-id'
        else:
            elf = make_kernel_elf(os.path.join(tmp, 'vmlinux'), 'ab' * 20)
            note = '.notes'
        seed = bytes([FLAGS | (MODULE if module else 0) |
                      (TRAMPOLINES if tramp else 0)])
        names = ['.shstrtab', note, '.symtab', '.strtab']
        for name in names + (['.static_call.text'] if tramp else []):
            data = section_bytes(elf, name)
            seed += struct.pack('<H', len(data)) + data
    tmp_out = out + '.tmp'
    with open(tmp_out, 'wb') as f:
        f.write(seed)
    os.replace(tmp_out, out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
