# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Read and rewrite a perf.data file (PERFILE2, little endian), for tests.

    pd = PerfData(open('perf.data', 'rb').read())
    for rec in pd.samples():
        if rec.kernel and rec.ip(pd) ...:
            rec.set_ip(pd, new_ip)
    pd.insert_after(kernel_mmap, pd.kernel_mmap_like(START, LEN, NAME,
                                                     BUILD_ID))
    pd.add_build_id(bytes.fromhex(BUILD_ID), NAME, kernel=True)
    pd.replace_build_id(pd.kernel_build_ids().pop(), NEW_BUILD_ID)
    pd.records.append(mmap2_build_id(bytes.fromhex(BUILD_ID), NAME,
                                     MISC_USER))
    open('out.data', 'wb').write(pd.bytes())

Enough of the format for the tests' profiles: the records of the data
section (samples and their instruction pointer, MMAP records, MMAP2
records with a build ID, zstd-compressed records) and the HEADER_BUILD_ID
and HEADER_COMPRESSED features (tools/perf/Documentation/
perf.data-file-format.txt).  Everything else is kept byte for byte;
feature sections are laid out again after the data section, in their
order, when it changes size.
"""
import struct
import subprocess

MAGIC = b'PERFILE2'
HEADER_BUILD_ID = 2
HEADER_VERSION = 5
HEADER_COMPRESSED = 27
FEAT_BITS = 256
COMP_ZSTD = 1

PERF_RECORD_MMAP = 1
PERF_RECORD_SAMPLE = 9
PERF_RECORD_MMAP2 = 10
PERF_RECORD_COMPRESSED = 81
PERF_RECORD_COMPRESSED2 = 83  # with the size of its data, perf 6.15 on

MISC_CPUMODE_MASK = 7
MISC_KERNEL = 1
MISC_USER = 2
MISC_GUEST_KERNEL = 4
KERNEL_CPUMODES = (MISC_KERNEL, MISC_GUEST_KERNEL)
MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15

SAMPLE_IP = 1 << 0
SAMPLE_TID = 1 << 1
SAMPLE_IDENTIFIER = 1 << 16

NAME_ALIGN = 64
KERNEL_NAME = '[kernel.kallsyms]'
# offsets in the body of an MMAP or MMAP2 record (past its 8-byte header)
MMAP_NAME_AT = 32
MMAP2_ID_SIZE_AT = 32
MMAP2_ID_AT = 36
MMAP2_NAME_AT = 64


class PerfDataError(Exception):
    pass


def _align(n, a):
    return (n + a - 1) // a * a


class Record:
    """One record of the data section: its type, misc and bytes."""

    __slots__ = ('type', 'misc', 'body')

    def __init__(self, rtype, misc, body):
        self.type, self.misc, self.body = rtype, misc, bytearray(body)

    @property
    def cpumode(self):
        return self.misc & MISC_CPUMODE_MASK

    @property
    def kernel(self):
        return self.cpumode == MISC_KERNEL

    def raw(self):
        return struct.pack('<IHH', self.type, self.misc,
                           8 + len(self.body)) + bytes(self.body)

    # samples: the instruction pointer (PERF_SAMPLE_IP)
    def _ip_off(self, pd):
        if self.type != PERF_RECORD_SAMPLE or not pd.sample_type & SAMPLE_IP:
            raise PerfDataError('not a sample with an IP')
        return 8 if pd.sample_type & SAMPLE_IDENTIFIER else 0

    def ip(self, pd):
        return struct.unpack_from('<Q', self.body, self._ip_off(pd))[0]

    def set_ip(self, pd, ip):
        struct.pack_into('<Q', self.body, self._ip_off(pd), ip)

    def pid_tid(self, pd):
        """pid and tid of a sample (PERF_SAMPLE_TID follows the IP)."""
        return struct.unpack_from('<ii', self.body, self._ip_off(pd) + 8)

    # MMAP: pid, tid, start, len, pgoff, filename, then the sample ID.
    # MMAP2 has 32 more bytes before the filename: the device and inode,
    # or the build ID (MISC_MMAP_BUILD_ID), then prot and flags.
    def _name_off(self):
        if self.type == PERF_RECORD_MMAP:
            return MMAP_NAME_AT
        if self.type == PERF_RECORD_MMAP2:
            return MMAP2_NAME_AT
        raise PerfDataError('not an MMAP or MMAP2 record')

    def mmap(self):
        name_off = self._name_off()
        pid, tid, start, length, pgoff = struct.unpack_from('<iiQQQ',
                                                            self.body)
        name = bytes(self.body[name_off:]).split(b'\0', 1)[0].decode()
        return pid, tid, start, length, pgoff, name

    def sample_id(self):
        """What follows the padded name of an MMAP or MMAP2: the sample
        ID (the sample_id_all trailer)."""
        name = self.mmap()[5]
        return bytes(self.body[self._name_off() +
                               _align(len(name.encode()) + 1, 8):])

    def build_id(self):
        """The build ID of an MMAP2 record that has one, else None."""
        if (self.type != PERF_RECORD_MMAP2 or
                not self.misc & MISC_MMAP_BUILD_ID):
            return None
        size = self.body[MMAP2_ID_SIZE_AT]
        return bytes(self.body[MMAP2_ID_AT:MMAP2_ID_AT + size])

    def set_build_id(self, build_id):
        """Replace the build ID of an MMAP2 record that has one."""
        if self.build_id() is None:
            raise PerfDataError('not an MMAP2 record with a build ID')
        self.body[MMAP2_ID_SIZE_AT] = len(build_id)
        self.body[MMAP2_ID_AT:MMAP2_ID_AT + 20] = \
            build_id + b'\0' * (20 - len(build_id))


def mmap2_build_id(build_id, name, cpumode, pid=-1, tid=0, start=0,
                   length=0x1000, pgoff=0, sample_id=b''):
    """An MMAP2 record with a build ID in place of the inode, as perf
    record --buildid-mmap writes them: the name NUL-padded to 8 bytes,
    then SAMPLE_ID (the sample_id_all trailer)."""
    fname = name.encode() + b'\0'
    fname += b'\0' * (_align(len(fname), 8) - len(fname))
    body = struct.pack('<iiQQQ', pid, tid, start, length, pgoff)
    body += struct.pack('<BBH', len(build_id), 0, 0)
    body += build_id + b'\0' * (20 - len(build_id))
    body += struct.pack('<II', 5, 2)  # PROT_READ | PROT_EXEC, MAP_PRIVATE
    return Record(PERF_RECORD_MMAP2, cpumode | MISC_MMAP_BUILD_ID,
                  body + fname + sample_id)


def zstd_compress(data):
    """DATA as one zstd frame, made by the zstd command."""
    return subprocess.run(['zstd', '-q', '-c'], input=data, check=True,
                          stdout=subprocess.PIPE).stdout


def compressed_records(records, chunk=200, parts=1, compressed2=False):
    """RECORDS as perf record -z writes them: zstd data in COMPRESSED
    records, or COMPRESSED2 ones (perf 6.15 on: they give the size of
    their data and are padded to 8 bytes).  The records' bytes are cut
    every CHUNK bytes, records in two too, as perf cuts at its flushes;
    each cut is a zstd frame of its own, cut in PARTS records (perf's one
    stream of frames goes on from record to record)."""
    raw = b''.join(r.raw() for r in records)
    out = []
    for i in range(0, len(raw), chunk):
        frame = zstd_compress(raw[i:i + chunk])
        step = -(-len(frame) // parts)
        for j in range(0, len(frame), step):
            part = frame[j:j + step]
            if compressed2:
                pad = b'\0' * (_align(len(part), 8) - len(part))
                body = struct.pack('<Q', len(part)) + part + pad
                out.append(Record(PERF_RECORD_COMPRESSED2, 0, body))
            else:
                out.append(Record(PERF_RECORD_COMPRESSED, 0, part))
    return out


class PerfData:
    def __init__(self, data):
        data = bytes(data)
        if data[:8] != MAGIC:
            raise PerfDataError('not a perf.data file (magic %r)' % data[:8])
        self.header_size, self.attr_size = struct.unpack_from('<QQ', data, 8)
        self.attrs_off, self.attrs_size = struct.unpack_from('<QQ', data, 24)
        data_off, data_size = struct.unpack_from('<QQ', data, 40)
        self.head = bytearray(data[:data_off])
        self.bitmap = data[72:72 + FEAT_BITS // 8]
        self.features = self._read_features(data, data_off + data_size)
        self.sample_type = self._sample_type(data)
        self.records = self._read_records(data[data_off:data_off + data_size])

    def _sample_type(self, data):
        """The bits of the events' sample types that place the IP and the
        TID: the same for every event (perf record -a adds a dummy one)."""
        types = set()
        for off in range(self.attrs_off, self.attrs_off + self.attrs_size,
                         self.attr_size):
            st = struct.unpack_from('<Q', data, off + 24)[0]
            types.add(st & (SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID))
        if len(types) != 1:
            raise PerfDataError('events whose samples differ in layout: %s'
                                % sorted(types))
        return types.pop()

    def set_feature(self, bit, body):
        """Add the feature BIT with the section BODY, or replace it; None
        takes it away."""
        if body is None:
            self.head[72 + bit // 8] &= ~(1 << (bit % 8)) & 0xff
            self.features.pop(bit, None)
        else:
            self.head[72 + bit // 8] |= 1 << (bit % 8)
            self.features[bit] = bytearray(body)
        self.bitmap = bytes(self.head[72:72 + FEAT_BITS // 8])

    def set_compressed(self, comp_type=COMP_ZSTD):
        """HEADER_COMPRESSED: version, type, level, ratio, mmap_len."""
        self.set_feature(HEADER_COMPRESSED,
                         struct.pack('<IIIII', 0, comp_type, 1, 6, 528384))

    def _feature_bits(self):
        return [b for b in range(FEAT_BITS)
                if self.bitmap[b // 8] & (1 << (b % 8))]

    def _read_features(self, data, table):
        out = {}
        for i, bit in enumerate(self._feature_bits()):
            off, size = struct.unpack_from('<QQ', data, table + 16 * i)
            out[bit] = bytearray(data[off:off + size])
        return out

    @staticmethod
    def _read_records(buf):
        recs, off = [], 0
        while off + 8 <= len(buf):
            rtype, misc, size = struct.unpack_from('<IHH', buf, off)
            if size < 8 or off + size > len(buf):
                raise PerfDataError('bad record at data offset %d' % off)
            recs.append(Record(rtype, misc, buf[off + 8:off + size]))
            off += size
        return recs

    # -- records -----------------------------------------------------------
    def samples(self):
        return [r for r in self.records if r.type == PERF_RECORD_SAMPLE]

    def mmaps(self):
        """The MMAP and MMAP2 records (perf 7.3 writes the kernel's as an
        MMAP2 with its build ID)."""
        return [r for r in self.records
                if r.type in (PERF_RECORD_MMAP, PERF_RECORD_MMAP2)]

    def kernel_mmap(self):
        """The MMAP or MMAP2 record of the kernel proper
        ([kernel.kallsyms]_text or the like)."""
        for r in self.mmaps():
            if r.kernel and r.mmap()[5].startswith(KERNEL_NAME):
                return r
        raise PerfDataError('no kernel MMAP record')

    def kernel_mmap_like(self, start, length, name, build_id, pgoff=0):
        """A record of the kernel's kind, for a module: @name at @start,
        with the kernel map's pid, tid and sample ID; an MMAP2 with
        @build_id if the kernel's has its build ID."""
        like = self.kernel_mmap()
        pid, tid = like.mmap()[:2]
        if like.build_id() is not None:
            return mmap2_build_id(build_id, name, like.cpumode, pid, tid,
                                  start, length, pgoff, like.sample_id())
        fname = name.encode() + b'\0'
        fname += b'\0' * (_align(len(fname), 8) - len(fname))
        body = struct.pack('<iiQQQ', pid, tid, start, length, pgoff)
        if like.type == PERF_RECORD_MMAP2:
            body += bytes(like.body[MMAP_NAME_AT:MMAP2_NAME_AT])
        return Record(like.type, like.misc, body + fname + like.sample_id())

    def insert_after(self, rec, new):
        self.records.insert(self.records.index(rec) + 1, new)

    # -- HEADER_BUILD_ID ---------------------------------------------------
    def build_ids(self):
        """[(cpumode, build ID bytes, name)] of HEADER_BUILD_ID."""
        buf, out, off = self.features.get(HEADER_BUILD_ID, b''), [], 0
        while off + 8 <= len(buf):
            _, misc, size = struct.unpack_from('<IHH', buf, off)
            if size < 8 + 4 + 24 or off + size > len(buf):
                break
            bid = buf[off + 12:off + 36]
            n = bid[20] if misc & MISC_BUILD_ID_SIZE else 20
            name = bytes(buf[off + 36:off + size]).split(b'\0', 1)[0]
            out.append((misc & MISC_CPUMODE_MASK, bytes(bid[:n]),
                        name.decode()))
            off += size
        return out

    def add_build_id(self, build_id, name, kernel, pid=-1, cpumode=None):
        """Append a HEADER_BUILD_ID entry (perf's layout: the name padded
        to NAME_ALIGN); CPUMODE, if given, instead of KERNEL's."""
        if HEADER_BUILD_ID not in self.features:
            raise PerfDataError('no HEADER_BUILD_ID feature')
        fname = name.encode() + b'\0'
        fname += b'\0' * (_align(len(fname), NAME_ALIGN) - len(fname))
        if cpumode is None:
            cpumode = MISC_KERNEL if kernel else MISC_USER
        misc = cpumode | MISC_BUILD_ID_SIZE
        bid = build_id + b'\0' * (20 - len(build_id))
        entry = struct.pack('<i', pid)
        entry += bid[:20] + bytes([len(build_id), 0, 0, 0])
        entry += fname
        self.features[HEADER_BUILD_ID] += struct.pack(
            '<IHH', 0, misc, 8 + len(entry)) + entry

    def kernel_build_ids(self):
        """The build IDs the profile gives the kernel proper: its
        HEADER_BUILD_ID entry ([kernel.kallsyms]) and its MMAP2 records
        ([kernel.kallsyms]_text, perf record --buildid-mmap, perf 7.3's
        default).  A set: one member in a sound profile."""
        ids = {bid for cpumode, bid, name in self.build_ids()
               if cpumode in KERNEL_CPUMODES and name == KERNEL_NAME}
        ids |= {r.build_id() for r in self.mmaps()
                if r.cpumode in KERNEL_CPUMODES and
                r.build_id() is not None and
                r.mmap()[5].startswith(KERNEL_NAME)}
        return ids

    def replace_build_id(self, old, new):
        """Give every HEADER_BUILD_ID entry and MMAP2 record whose build
        ID is @old the build ID @new instead; returns how many."""
        count = 0
        for r in self.mmaps():
            if r.build_id() == old:
                r.set_build_id(new)
                count += 1
        buf, off = self.features.get(HEADER_BUILD_ID, bytearray()), 0
        while off + 8 + 4 + 24 <= len(buf):
            _, misc, size = struct.unpack_from('<IHH', buf, off)
            if size < 8 + 4 + 24:
                break
            n = buf[off + 32] if misc & MISC_BUILD_ID_SIZE else 20
            if bytes(buf[off + 12:off + 12 + n]) == old:
                buf[off + 12:off + 32] = new + b'\0' * (20 - len(new))
                if misc & MISC_BUILD_ID_SIZE:
                    buf[off + 32] = len(new)
                count += 1
            off += size
        return count

    # -- out -----------------------------------------------------------------
    def bytes(self):
        data = b''.join(r.raw() for r in self.records)
        head = bytearray(self.head)
        data_off = len(head)
        struct.pack_into('<QQ', head, 40, data_off, len(data))
        bits = self._feature_bits()
        table_off = data_off + len(data)
        off = table_off + 16 * len(bits)
        table, contents = b'', b''
        for bit in bits:
            body = bytes(self.features[bit])
            table += struct.pack('<QQ', off, len(body))
            contents += body
            off += len(body)
        return bytes(head) + data + table + contents
