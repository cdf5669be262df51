#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A seed for fuzz_symbols: the sections of a small vmlinux look-alike,
in the target's input format, so that fuzzing starts from a file that
builds.

    make_symbols_seed.py OUTPUT
"""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from elf_fixtures import make_kernel_elf, section_bytes  # noqa: E402

# fuzz_symbols.c: flag bit 0 puts a note with its build ID in front, bit 1
# takes the note's name from .shstrtab.
FLAGS = 3


def main():
    with tempfile.TemporaryDirectory() as tmp:
        elf = make_kernel_elf(os.path.join(tmp, 'vmlinux'), 'ab' * 20)
        seed = bytes([FLAGS])
        for name in ('.shstrtab', '.notes', '.symtab', '.strtab'):
            data = section_bytes(elf, name)
            seed += struct.pack('<H', len(data)) + data
    tmp_out = sys.argv[1] + '.tmp'
    with open(tmp_out, 'wb') as f:
        f.write(seed)
    os.replace(tmp_out, sys.argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main())
