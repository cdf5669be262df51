#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""`symprov prefetch -i` on profiles whose build IDs are in the events:
MMAP2 records with a build ID (perf record --buildid-mmap, perf 7's
default, which writes no build ID table), inside zstd-compressed records
too (perf record -z), merged with the header's table when there is one.

The profiles are made here (tests/lib/perfdata.py; perf reads them: one
test says so), their files served by a real debuginfod; one test records
a real profile with perf.  Damaged event sections, cut at every byte or
with nonsense in each field, give one line and exit 1.
"""
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from minimal_perfdata import minimal  # noqa: E402
from perfdata import (HEADER_BUILD_ID, HEADER_COMPRESSED, HEADER_VERSION,  # noqa: E402
                      MISC_KERNEL, MISC_USER,
                      PERF_RECORD_COMPRESSED, PERF_RECORD_MMAP,
                      PERF_RECORD_MMAP2, PerfData,
                      Record, compressed_records, mmap2_build_id,
                      zstd_compress)
from server_testcase import ServerTestCase, run_main  # noqa: E402
import test_prefetch as tp  # noqa: E402

BUILD = 'build'
PID = 4242
# the sample_id_all trailer perf puts after an MMAP2's name (pid, tid,
# time): the name ends at its NUL, not at the record's end
SAMPLE_ID = struct.pack('<iiQ', PID, PID, 123456789)

# (build ID, name in the record, cpumode, pid) of the MMAP2 records
MMAPS = (
    (tp.BID_K, '[kernel.kallsyms]_text', MISC_KERNEL, -1),
    (tp.BID_M, tp.MODULE, MISC_KERNEL, -1),
    (tp.BID_V, '[vdso]', MISC_USER, PID),
    (tp.BID_U, tp.USER, MISC_USER, PID),
    (tp.BID_L, tp.LIB, MISC_USER, PID),
    # each process maps them again: one entry
    (tp.BID_U, tp.USER, MISC_USER, PID + 1),
    (tp.BID_L, tp.LIB, MISC_USER, PID + 1),
)

# what prefetch prints of them: the kernel under its table's name
LINES = (
    ('kernel', tp.BID_K, '[kernel.kallsyms]'),
    ('module', tp.BID_M, tp.MODULE),
    ('skipped', tp.BID_V, '[vdso]'),
    ('executable', tp.BID_U, tp.USER),
    ('debuginfo', tp.BID_U, tp.USER),
    ('executable', tp.BID_L, tp.LIB),
    ('debuginfo', tp.BID_L, tp.LIB),
)


def mmap_records(mmaps=MMAPS):
    """MMAPS as records, an MMAP2 with an inode (no build ID) among them."""
    recs = [mmap2_build_id(bytes.fromhex(bid), name, cpumode, pid=pid,
                           tid=pid, sample_id=SAMPLE_ID)
            for bid, name, cpumode, pid in mmaps]
    plain = mmap2_build_id(b'\x99' * 20, '/usr/bin/no-build-id', MISC_USER,
                           pid=PID, tid=PID, sample_id=SAMPLE_ID)
    plain.misc = MISC_USER
    recs.insert(3, plain)
    return recs


def events_profile(compress=None, table=(), **kw):
    """The minimal profile with MMAPS in its events, as perf 7 writes it:
    no build ID table, unless TABLE has entries (build ID, name,
    cpumode); COMPRESS 'compressed' or 'compressed2' puts them in zstd
    records of that kind (KW for compressed_records())."""
    pd = PerfData(minimal())
    for bid, name, cpumode in table:
        pd.add_build_id(bytes.fromhex(bid), name, kernel=None,
                        cpumode=cpumode)
    if not table:
        pd.set_feature(HEADER_BUILD_ID, None)
    recs = mmap_records()
    if compress:
        recs = compressed_records(recs, compressed2=compress == 'compressed2',
                                  **kw)
        pd.set_compressed()
    # after the kernel's MMAP, before the samples
    pd.records[1:1] = recs
    return pd


def perf_mmap2_build_ids(path):
    """{(build ID, name)} of the MMAP2 records in perf's dump of the
    profile PATH (perf report -D), the kernel's named as in its table."""
    res = subprocess.run([tp.PERF, 'report', '-D', '-i', path], text=True,
                         capture_output=True, timeout=tp.TIMEOUT)
    if res.returncode:
        raise AssertionError(res.stderr)
    # ... PERF_RECORD_MMAP2 PID/TID: [START(LEN) @ PGOFF <BUILD ID>]: r-xp NAME
    out = set()
    for m in re.finditer(r'PERF_RECORD_MMAP2 .*<([0-9a-f]+)>\]: \S+ (.*)$',
                         res.stdout, re.M):
        bid, name = m.groups()
        if name.startswith('[kernel.kallsyms]'):
            name = '[kernel.kallsyms]'
        out.add((bid, name))
    return out


class PerfDataTest(ServerTestCase):
    # the files of test_prefetch, and its way of running prefetch
    make_fixtures = tp.PrefetchTest.__dict__['make_fixtures']
    prefetch = tp.PrefetchTest.prefetch
    lines = tp.PrefetchTest.lines
    summary = tp.PrefetchTest.summary
    assert_refused = tp.PrefetchTest.assert_refused

    def setUp(self):
        super().setUp()
        tp.BUILD = BUILD  # its prefetch() runs the build tested here
        self.tree = os.path.join(self.home, 'tree')
        self.profile = None

    def write(self, name, pd_or_bytes):
        data = pd_or_bytes
        if isinstance(data, PerfData):
            data = data.bytes()
        return tp.write(os.path.join(self.home, name), data)

    def assert_fetched(self, profile, lines=LINES):
        """Prefetch of PROFILE prints LINES, in order, and finds all that
        is needed in the tree."""
        res = self.prefetch(profile=profile)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        got = self.lines(res)
        self.assertEqual([line[:3] for line in got], list(lines))
        for kind, _bid, _name, what in got:
            if kind in ('kernel', 'module', 'executable'):
                self.assertTrue(what.startswith(self.tree + '/'), what)
        return res

    # build IDs in the events --------------------------------------------
    def test_mmap2_events(self):
        """No build ID table, MMAP2 records with build IDs: perf 7."""
        self.assert_fetched(self.write('mmap2.data', events_profile()))

    def test_compressed(self):
        """perf record -z: records cut across the compressed ones; Debian's
        perf reads the same build IDs in them (skipped without it: a
        failure of the suite)."""
        pd = events_profile('compressed', chunk=150)
        self.assertGreater(len([r for r in pd.records
                                if r.type == PERF_RECORD_COMPRESSED]), 3)
        path = self.write('z.data', pd)
        self.assert_fetched(path)
        if not os.access(tp.PERF, os.X_OK):
            self.skipTest('no %s (linux-perf): not compared with perf' %
                          tp.PERF)
        self.assert_perf_reads(path)

    def test_compressed2(self):
        self.assert_fetched(self.write('z2.data', events_profile(
            'compressed2', chunk=150)))

    def test_stream_across_records(self):
        """A zstd frame cut over several records: the stream goes on."""
        self.assert_fetched(self.write('zs.data', events_profile(
            'compressed', chunk=400, parts=3)))

    def test_table_and_events(self):
        """Both sources, each entry once: the table's first."""
        table = ((tp.BID_K, '[kernel.kallsyms]', MISC_KERNEL),
                 (tp.BID_GONE, '/usr/bin/gone', MISC_USER))
        res = self.prefetch(profile=self.write('both.data', events_profile(
            'compressed', table=table)))
        # the one not served is needed: exit 2
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        gone = [('executable', tp.BID_GONE, '/usr/bin/gone'),
                ('debuginfo', tp.BID_GONE, '/usr/bin/gone')]
        self.assertEqual([line[:3] for line in self.lines(res)],
                         [LINES[0]] + gone + list(LINES[1:]))

    def assert_perf_reads(self, path):
        """perf's dump of the profile PATH has the MMAP2 build IDs."""
        self.assertEqual(perf_mmap2_build_ids(path),
                         {line[1:3] for line in LINES})

    def test_real_recording(self):
        """perf record --buildid-mmap -z: the build IDs asked for are
        those of the MMAP2 records perf itself reads in it, the kernel's
        among them."""
        if os.geteuid() != 0 or not os.access(tp.PERF, os.X_OK):
            self.skipTest('needs root and %s' % tp.PERF)
        data = os.path.join(self.home, 'real.data')
        # Its own command, not -a: while a recording of the whole
        # machine takes build IDs, the kernel (6.18 here) flags the MMAP2
        # records of the same mappings in recordings without them as
        # holding one, and Debian 12's perf 6.1 dies at their end ("stack
        # smashing detected"): test_prefetch's and test_perfcache's
        # recordings, run beside this suite.
        rec = subprocess.run([tp.PERF, 'record', '--buildid-mmap', '-z',
                              '-e', 'cpu-clock', '-o', data, '--',
                              'sleep', '1'], text=True,
                             capture_output=True, timeout=tp.TIMEOUT)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        mapped = perf_mmap2_build_ids(data)
        self.assertIn('[kernel.kallsyms]', {n for _, n in mapped})
        res = self.prefetch('--jobs', '4', profile=data)
        self.assertIn(res.returncode, (0, 2), res.stderr)
        got = {line[1:3] for line in self.lines(res)}
        # one line a build ID: of one of the names it is mapped under
        self.assertLessEqual(got, mapped)
        self.assertEqual({bid for bid, _ in got}, {bid for bid, _ in mapped})

    # what it says ----------------------------------------------------------
    def test_no_build_id_at_all(self):
        pd = PerfData(minimal())
        pd.set_feature(HEADER_BUILD_ID, None)
        self.assert_refused(self.write('none.data', pd),
                            'no build ID table and none in the events')
        self.assert_refused(self.write('empty.data', PerfData(minimal())),
                            'an empty build ID table, none in the events')

    def test_modules_without_build_id(self):
        """perf 6.1's perf record -a where /proc/kcore is readable: the
        modules' MMAP records, no build ID for any of them (its table
        names the kernel and user objects).  One line says so and how to
        record them; not when the table names one of them (the others
        had no sample), nor for a file of perf 6.12 or later (which
        writes them whenever a module has samples)."""
        mods = ['/lib/modules/6.1.0-x/kernel/fs/xfs/xfs.ko.xz',
                '/lib/modules/6.1.0-x/kernel/drivers/md/dm-crypt.ko.xz']

        def profile(version, named=()):
            pd = PerfData(minimal())
            pd.set_feature(HEADER_VERSION, struct.pack('<I', 64) +
                           version.encode().ljust(64, b'\0'))
            pd.add_build_id(bytes.fromhex(tp.BID_K), '[kernel.kallsyms]',
                            kernel=True)
            for bid, name in named:
                pd.add_build_id(bytes.fromhex(bid), name, kernel=True)
            recs = []
            for i, name in enumerate(mods * 2):  # each twice: told once
                fname = name.encode() + b'\0' * (8 - len(name) % 8)
                recs.append(Record(PERF_RECORD_MMAP, MISC_KERNEL, struct.pack(
                    '<iiQQQ', -1, 0, 0xffffffffc0000000 + i * 0x10000,
                    0x8000, 0) + fname + SAMPLE_ID))
            pd.records[1:1] = recs
            return pd

        def said(name, pd):
            res = self.prefetch(profile=self.write(name, pd))
            return res, [line for line in res.stderr.splitlines()
                         if 'kernel module' in line]

        _, lines = said('61.data', profile('6.1.187'))
        self.assertEqual(lines, [
            'symprov: prefetch: %s: no build ID for the 2 kernel modules '
            'it maps (%s, ...): samples in them, if any, stay unnamed; '
            'perf before 6.12 writes them with perf record --buildid-all'
            % (os.path.join(self.home, '61.data'), sorted(mods)[0])])
        res, lines = said('61-all.data', profile('6.1.187',
                                                 [(tp.BID_M, mods[0])]))
        self.assertEqual(lines, [])
        self.assertIn(('module', tp.BID_M, mods[0]),
                      [line[:3] for line in self.lines(res)])
        self.assertEqual(said('612.data', profile('6.12.57'))[1], [])

    def test_pipe(self):
        data = events_profile().bytes()
        self.assert_refused(self.write('pipe.data', data[:8] + struct.pack(
            '<Q', 16) + data[104:]), 'written to a pipe',
            'perf inject -o FILE makes a file of it')

    def test_cut_at_every_byte(self):
        """Its compressed events cut anywhere: refused in one line, or,
        cut where a compressed record ends, what came before it."""
        pd = events_profile('compressed', chunk=150)
        # no feature sections: the data section is the end of the file
        pd.set_feature(HEADER_COMPRESSED, None)
        data = pd.bytes()
        data_off, data_size = struct.unpack_from('<QQ', data, 40)
        path = os.path.join(self.home, 'cut.data')
        accepted, got = 0, None
        for n in range(data_size + 1):
            d = bytearray(data[:data_off + n])
            struct.pack_into('<Q', d, 48, n)
            tp.write(path, bytes(d))
            res = self.prefetch(profile=path, into=False)
            self.assertIn(res.returncode, (0, 1), (n, res.stderr))
            if res.returncode == 1:
                self.assertEqual(res.stdout, '')
                self.assertEqual(len(res.stderr.splitlines()), 1,
                                 res.stderr)
                continue
            accepted += 1
            got = [line[:3] for line in self.lines(res)]
            self.assertEqual(got, list(LINES[:len(got)]), (n, res.stderr))
        # the whole of it is the last one
        self.assertEqual(got, list(LINES))
        self.assertLess(accepted, 10)

    def damaged_mmap2(self, off, fmt, *values, compress=None):
        """The events profile, a field of its first MMAP2 record changed."""
        pd = events_profile()
        mmap2 = [r for r in pd.records if r.type == PERF_RECORD_MMAP2][0]
        raw = bytearray(mmap2.raw())
        struct.pack_into(fmt, raw, off, *values)
        i = pd.records.index(mmap2)
        # the record as it is, even if its size says another
        pd.records[i:i + 1] = [_Raw(raw)]
        if compress:
            pd.records[i:i + 1] = compressed_records([_Raw(raw)])
            pd.set_compressed()
        return pd

    def test_damaged_events(self):
        cases = (
            ((6, '<H', 0), 'size 0, too small'),
            ((6, '<H', 0xfff8), 'past the end of the data section'),
            ((6, '<H', 64), 'an MMAP2 of 64 bytes, too small'),
            ((40, '<B', 21), 'build ID of 21 bytes'),
            ((40, '<B', 0), 'build ID of 0 bytes'),
            ((72, '<40s', b'A' * 40), 'not NUL-terminated'),
        )
        for i, (change, why) in enumerate(cases):
            self.assert_refused(self.write('e%d.data' % i,
                                           self.damaged_mmap2(*change)),
                                'event at', why)
        for i, (change, why) in enumerate(cases[2:]):
            pd = self.damaged_mmap2(*change, compress=True)
            self.assert_refused(self.write('ze%d.data' % i, pd),
                                'decompressed event at', why)

    def test_damaged_compressed(self):
        def profile(recs, comp_type=1):
            pd = PerfData(minimal())
            pd.set_feature(HEADER_BUILD_ID, None)
            pd.set_compressed(comp_type)
            pd.records[1:1] = recs
            return pd
        good = compressed_records(mmap_records())
        nested = compressed_records(good)
        # a record cut in two, its second half never comes
        cut = [Record(PERF_RECORD_COMPRESSED, 0,
                      zstd_compress(mmap_records()[0].raw()[:50]))]
        # COMPRESSED2 whose data is bigger than the record
        c2 = compressed_records(mmap_records(), compressed2=True)
        c2[0].body[0:8] = struct.pack('<Q', len(c2[0].body))
        cases = (
            (profile([Record(PERF_RECORD_COMPRESSED, 0, b'not zstd')]),
             'compressed record at'),
            (profile(good, comp_type=2), 'method 2, not zstd'),
            (profile(nested), 'a compressed record in compressed data'),
            (profile(cut), 'the last one cut after 50 bytes'),
            (profile(c2), 'bytes of compressed data in a record of'),
        )
        for i, (pd, why) in enumerate(cases):
            self.assert_refused(self.write('c%d.data' % i, pd), why)

    def test_decompression_bomb(self):
        """Records that decompress to over 1024 times their size (perf's
        own make about 10): refused once that many bytes came out."""
        filler = (struct.pack('<IHH', 0, 0, 0xfff8) + bytes(0xfff0)) * 2000
        bomb = Record(PERF_RECORD_COMPRESSED, 0, zstd_compress(filler))
        self.assertLess(len(bomb.body) * 1024 + (64 << 20), len(filler))
        pd = PerfData(minimal())
        pd.set_compressed()
        pd.records[1:1] = [bomb]
        self.assert_refused(self.write('bomb.data', pd),
                            'more than 1024 times their size')


class _Raw(Record):
    """A record whose bytes are RAW as they are, its size field too."""

    def __init__(self, raw):
        super().__init__(0, 0, b'')
        self._bytes = bytes(raw)

    def raw(self):
        return self._bytes


def main():
    tp.BUILD = BUILD
    return run_main('perfdata', sys.modules[__name__])


if __name__ == '__main__':
    sys.exit(main())
