# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A minimal perf.data file, made byte by byte, the same every time: for
tests that need a profile without recording one, and for fuzz seeds.

    pd = PerfData(minimal())
    pd.add_build_id(bytes.fromhex(BID), '[kernel.kallsyms]', kernel=True)
    open(path, 'wb').write(pd.bytes())

It has what perf reads of a file (tools/perf/Documentation/
perf.data-file-format.txt): the header, one event (cpu-clock), a data
section with the kernel's MMAP and two samples, one in the kernel and one
in user space, and an empty HEADER_BUILD_ID feature section, which
perfdata.PerfData.add_build_id() fills.
"""
import struct

from perfdata import (FEAT_BITS, HEADER_BUILD_ID, MAGIC, MISC_KERNEL,
                      MISC_USER, PERF_RECORD_MMAP, PERF_RECORD_SAMPLE,
                      SAMPLE_IP, SAMPLE_TID)

HEADER_SIZE = 104
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7
SAMPLE_TIME = 1 << 2
SAMPLE_PERIOD = 1 << 8
SAMPLE_TYPE = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD
PERF_TYPE_SOFTWARE = 1
PERF_COUNT_SW_CPU_CLOCK = 0
KERNEL_START = 0xffffffff81000000
KERNEL_LEN = 0x1000000
USER_IP = 0x401000
PID = 4242


def _record(rtype, misc, body):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def _attr():
    """struct perf_event_attr, then the (empty) section of its IDs."""
    attr = struct.pack('<IIQQQQQ', PERF_TYPE_SOFTWARE, ATTR_SIZE,
                       PERF_COUNT_SW_CPU_CLOCK, 4000, SAMPLE_TYPE, 0, 0)
    attr += b'\0' * (ATTR_SIZE - len(attr))
    return attr + struct.pack('<QQ', 0, 0)


def _data():
    name = b'[kernel.kallsyms]_text\0'
    name += b'\0' * (-len(name) % 8)
    mmap = struct.pack('<iiQQQ', -1, 0, KERNEL_START, KERNEL_LEN,
                       KERNEL_START) + name
    # IP, PID and TID, TIME, PERIOD: the order of PERF_SAMPLE_* bits
    kernel = struct.pack('<QiiQQ', KERNEL_START + 0x100, 0, 0, 1000, 1)
    user = struct.pack('<QiiQQ', USER_IP, PID, PID, 2000, 1)
    return (_record(PERF_RECORD_MMAP, MISC_KERNEL, mmap) +
            _record(PERF_RECORD_SAMPLE, MISC_KERNEL, kernel) +
            _record(PERF_RECORD_SAMPLE, MISC_USER, user))


def minimal():
    """The bytes of the file, its HEADER_BUILD_ID section empty."""
    attr, data = _attr(), _data()
    attrs_off = HEADER_SIZE
    data_off = attrs_off + len(attr)
    bitmap = bytearray(FEAT_BITS // 8)
    bitmap[HEADER_BUILD_ID // 8] |= 1 << (HEADER_BUILD_ID % 8)
    header = MAGIC + struct.pack('<QQQQQQQQ', HEADER_SIZE, len(attr),
                                 attrs_off, len(attr), data_off, len(data),
                                 0, 0) + bytes(bitmap)
    assert len(header) == HEADER_SIZE
    table_off = data_off + len(data)
    # the table of feature sections: one, empty, right after it
    table = struct.pack('<QQ', table_off + 16, 0)
    return header + attr + data + table
