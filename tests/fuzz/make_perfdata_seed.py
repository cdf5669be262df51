#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Seeds for fuzz_perfdata: minimal perf.data files whose build ID tables
have an entry of each kind symprov prefetch tells apart, in perf's layout
and in the one of before perf 2.6.35 (no pid); the same entries in MMAP2
records with a build ID, as they are and zstd-compressed (perf 7).

    make_perfdata_seed.py DIR
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from minimal_perfdata import minimal  # noqa: E402
from perfdata import (HEADER_BUILD_ID, MISC_KERNEL, PerfData,  # noqa: E402
                      compressed_records, mmap2_build_id)

ENTRIES = (
    ('[kernel.kallsyms]', 1, 20),
    ('/lib/modules/6.12.0/kernel/fs/ext4/ext4.ko.xz', 1, 20),
    ('[nf_tables]', 1, 20),
    ('/usr/bin/app', 2, 20),
    ('/usr/lib/libmd5.so', 2, 16),
    ('[vdso]', 2, 20),
    ('[guest.kernel.kallsyms]', 4, 20),
)


def perf_layout():
    pd = PerfData(minimal())
    for i, (name, cpumode, n) in enumerate(ENTRIES):
        pd.add_build_id(bytes([0x11 * (i + 1)]) * n, name, kernel=None,
                        cpumode=cpumode)
    return pd.bytes()


def mmap2_events(compress=False):
    """ENTRIES in MMAP2 records and no table; COMPRESS: in COMPRESSED
    records and COMPRESSED2 ones, a record cut across two."""
    pd = PerfData(minimal())
    pd.set_feature(HEADER_BUILD_ID, None)
    recs = [mmap2_build_id(bytes([0x11 * (i + 1)]) * n, name, cpumode,
                           sample_id=b'\x42' * 16)
            for i, (name, cpumode, n) in enumerate(ENTRIES)]
    if compress:
        half = len(recs) // 2
        recs = (compressed_records(recs[:half], chunk=150) +
                compressed_records(recs[half:], chunk=150, compressed2=True))
        pd.set_compressed()
    pd.records[1:1] = recs
    return pd.bytes()


def old_layout():
    """The entries without a pid, as perf wrote them until 2.6.35."""
    pd = PerfData(minimal())
    name = b'[kernel.kallsyms]\0'
    name += b'\0' * (-len(name) % 64)
    body = b'\x5a' * 20 + b'\0' * 4 + name
    pd.features[HEADER_BUILD_ID] += struct.pack(
        '<IHH', 0, MISC_KERNEL, 8 + len(body)) + body
    return pd.bytes()


def write(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, 'perf-layout'), perf_layout())
    write(os.path.join(out, 'old-layout'), old_layout())
    write(os.path.join(out, 'mmap2-events'), mmap2_events())
    write(os.path.join(out, 'compressed-events'), mmap2_events(True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
