# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Structured damage to an ELF file: one field of its ELF header, of a
section header, of a symbol or of a note, set to a chosen value.

    img = ElfImage(open(path, 'rb').read())
    i = img.section('.strtab')
    img.set_shdr(i, 'sh_size', 8)
    open(out, 'wb').write(img.data)

Mutator(img, seed).mutant() gives (description, bytes) of one random
structured mutation of the headers and tables the symbol loaders read; the
hostile-file tests name theirs with damage().  Both ELF classes and both
byte orders; everything else of the file is kept byte for byte.
"""
import random
import struct

EHDR = {
    # field: (offset in 32-bit, offset in 64-bit, size in 32, size in 64)
    'e_type': (16, 16, 2, 2), 'e_machine': (18, 18, 2, 2),
    'e_version': (20, 20, 4, 4), 'e_entry': (24, 24, 4, 8),
    'e_phoff': (28, 32, 4, 8), 'e_shoff': (32, 40, 4, 8),
    'e_flags': (36, 48, 4, 4), 'e_ehsize': (40, 52, 2, 2),
    'e_phentsize': (42, 54, 2, 2), 'e_phnum': (44, 56, 2, 2),
    'e_shentsize': (46, 58, 2, 2), 'e_shnum': (48, 60, 2, 2),
    'e_shstrndx': (50, 62, 2, 2),
}
SHDR = {
    'sh_name': (0, 0, 4, 4), 'sh_type': (4, 4, 4, 4),
    'sh_flags': (8, 8, 4, 8), 'sh_addr': (12, 16, 4, 8),
    'sh_offset': (16, 24, 4, 8), 'sh_size': (20, 32, 4, 8),
    'sh_link': (24, 40, 4, 4), 'sh_info': (28, 44, 4, 4),
    'sh_addralign': (32, 48, 4, 8), 'sh_entsize': (36, 56, 4, 8),
}
SYM = {
    'st_name': (0, 0, 4, 4), 'st_value': (4, 8, 4, 8),
    'st_size': (8, 16, 4, 8), 'st_info': (12, 4, 1, 1),
    'st_other': (13, 5, 1, 1), 'st_shndx': (14, 6, 2, 2),
}
NHDR = {'n_namesz': (0, 0, 4, 4), 'n_descsz': (4, 4, 4, 4),
        'n_type': (8, 8, 4, 4)}
SHT_NOBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOTE, SHT_DYNSYM = 8, 2, 3, 7, 11
SHT_PROGBITS = 1
SHF_ALLOC = 2
INT = {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}


class ElfError(Exception):
    pass


class ElfImage:
    """A mutable copy of an ELF file, addressed by header fields."""

    def __init__(self, data):
        self.data = bytearray(data)
        if self.data[:4] != b'\x7fELF' or self.data[4] not in (1, 2) or \
                self.data[5] not in (1, 2):
            raise ElfError('not an ELF file of a known class and order')
        self.is64 = self.data[4] == 2
        self.order = '<' if self.data[5] == 1 else '>'
        # where the tables were when read: a mutant moves them, not these
        self.shoff = self.ehdr('e_shoff')
        self.shentsize = self.ehdr('e_shentsize')
        self.shnum = self.ehdr('e_shnum')
        if self.shnum == 0 and self.shoff:
            self.shnum = self._get(self.shoff + self._off(SHDR, 'sh_size'),
                                   self._size(SHDR, 'sh_size'))
        self.shstrndx = self.ehdr('e_shstrndx')
        if self.shstrndx == 0xffff:
            self.shstrndx = self.shdr(0, 'sh_link')
        self.names = [self._name(i) for i in range(self.shnum)]

    # raw fields -----------------------------------------------------------
    def _off(self, table, field):
        return table[field][1 if self.is64 else 0]

    def _size(self, table, field):
        return table[field][3 if self.is64 else 2]

    def _get(self, off, size):
        return struct.unpack_from(self.order + INT[size], self.data, off)[0]

    def _set(self, off, size, value):
        struct.pack_into(self.order + INT[size], self.data, off,
                         value & ((1 << (8 * size)) - 1))

    def width(self, table, field):
        """Bits of FIELD in TABLE (EHDR, SHDR, SYM, NHDR) in this class."""
        return 8 * self._size(table, field)

    # the ELF header --------------------------------------------------------
    def ehdr(self, field):
        return self._get(self._off(EHDR, field), self._size(EHDR, field))

    def set_ehdr(self, field, value):
        self._set(self._off(EHDR, field), self._size(EHDR, field), value)

    # section headers ---------------------------------------------------------
    def _shdr_at(self, i, field):
        return self.shoff + i * self.shentsize + self._off(SHDR, field)

    def shdr(self, i, field):
        return self._get(self._shdr_at(i, field), self._size(SHDR, field))

    def set_shdr(self, i, field, value):
        self._set(self._shdr_at(i, field), self._size(SHDR, field), value)

    def _name(self, i):
        base = self.shdr(self.shstrndx, 'sh_offset')
        start = base + self.shdr(i, 'sh_name')
        end = self.data.find(b'\0', start)
        return self.data[start:end].decode('utf-8', 'replace')

    def section(self, name):
        """Index of the first section called NAME."""
        if name not in self.names:
            raise ElfError('no section %s' % name)
        return self.names.index(name)

    def sections_of_type(self, *types):
        return [i for i in range(1, self.shnum)
                if self.shdr(i, 'sh_type') in types]

    # symbols -------------------------------------------------------------------
    def sym_entsize(self):
        return 24 if self.is64 else 16

    def nsyms(self, symtab):
        return self.shdr(symtab, 'sh_size') // self.sym_entsize()

    def _sym_at(self, symtab, n, field):
        return (self.shdr(symtab, 'sh_offset') + n * self.sym_entsize() +
                self._off(SYM, field))

    def sym(self, symtab, n, field):
        return self._get(self._sym_at(symtab, n, field),
                         self._size(SYM, field))

    def set_sym(self, symtab, n, field, value):
        self._set(self._sym_at(symtab, n, field), self._size(SYM, field),
                  value)

    def find_sym(self, symtab, name):
        """Index of the first symbol called NAME in SYMTAB."""
        strtab = self.shdr(symtab, 'sh_link')
        base = self.shdr(strtab, 'sh_offset')
        want = name.encode() + b'\0'
        for n in range(self.nsyms(symtab)):
            off = base + self.sym(symtab, n, 'st_name')
            if self.data[off:off + len(want)] == want:
                return n
        raise ElfError('no symbol %s' % name)

    # notes --------------------------------------------------------------------
    def set_note(self, sec, field, value, nth=0):
        """FIELD of the NTH note header of section SEC."""
        off = self.shdr(sec, 'sh_offset')
        end = off + self.shdr(sec, 'sh_size')
        for _ in range(nth):
            namesz = self._get(off, 4)
            descsz = self._get(off + 4, 4)
            off += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
            if off + 12 > end:
                raise ElfError('no note %d' % nth)
        self._set(off + self._off(NHDR, field), 4, value)

    def set_byte(self, off, value):
        self.data[off] = value & 0xff


def _build_id_desc(img):
    """(section, offset, size) of the GNU build ID note's description."""
    for i in img.sections_of_type(SHT_NOTE):
        off = img.shdr(i, 'sh_offset')
        end = off + img.shdr(i, 'sh_size')
        while off + 12 <= end:
            namesz = img._get(off, 4)
            descsz = img._get(off + 4, 4)
            if img._get(off + 8, 4) == 3 and \
                    img.data[off + 12:off + 16] == b'GNU\0':
                return i, off + 16, descsz
            off += 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
    raise ElfError('no build ID note')


def build_id_note(img):
    """Index of the section holding the GNU build ID note."""
    return _build_id_desc(img)[0]


def set_build_id(img, hex_id):
    """Give IMG the build ID HEX_ID, of the length of the one it has."""
    _, off, size = _build_id_desc(img)
    new = bytes.fromhex(hex_id)
    if len(new) != size:
        raise ElfError('build ID of %d bytes, the note has %d'
                       % (len(new), size))
    img.data[off:off + size] = new


# Values that break assumptions: limits, off by one, sizes of other things.
def interesting(img, bits, current, rng):
    top = (1 << bits) - 1
    size = len(img.data)
    vals = [0, 1, 2, 7, 8, 16, 24, 0xff, 0xffff, 0xff00, 0xfff1, 0xfff2,
            top, top - 7, top >> 1, (top >> 1) + 1, size, size - 1,
            size + 1, size * 2, current + 1, current - 1, current * 2,
            current // 2, current + 4096, current ^ (1 << rng.randrange(bits)),
            img.shnum, img.shnum - 1, img.shnum + 1, rng.getrandbits(bits)]
    for i in range(1, img.shnum):
        vals.append(img.shdr(i, rng.choice(('sh_offset', 'sh_size',
                                            'sh_addr', 'sh_name'))))
    return [v & top for v in vals]


# Sections a symbol loader reads besides the symbol and string tables:
# perf synthesizes PLT symbols from these of a user-space object.
PLT_SECTIONS = ('.plt', '.plt.got', '.plt.sec', '.rela.plt', '.rel.plt',
                '.rela.dyn', '.dynsym', '.dynstr', '.dynamic')


class Mutator:
    """Random single-field mutations of the parts symbol loaders read:
    the ELF header's section fields, the headers of the symbol and string
    tables, of the section name table, of the note, of allocated sections
    and of the PLT's sections, symbol entries, note headers and the bytes
    at the end of string tables.  About one in four is a damage of a table's
    header that breaks it as a whole: a string table cut short (sh_size
    0, 1, 8, half, one less), a symbol table's sh_entsize (0, 1, 8, 16,
    off by one, twice), or a section made SHT_NOBITS (as in a file of
    `objcopy --only-keep-debug`)."""

    EHDR_FIELDS = ('e_shoff', 'e_shentsize', 'e_shnum', 'e_shstrndx',
                   'e_type', 'e_phoff', 'e_phnum', 'e_phentsize',
                   'e_ehsize')

    def __init__(self, img, seed=0):
        self.img = img
        self.rng = random.Random(seed)
        self.symtabs = img.sections_of_type(SHT_SYMTAB, SHT_DYNSYM)
        self.strtabs = img.sections_of_type(SHT_STRTAB)
        try:
            self.note = [build_id_note(img)]
        except ElfError:
            self.note = []
        named = [i for i, n in enumerate(img.names)
                 if n in ('.text', '.data', '.bss', '.rodata', '.notes',
                          '.note.gnu.build-id', '.init.text', '.opd') +
                 PLT_SECTIONS]
        self.sections = sorted(set(self.symtabs + self.strtabs + self.note +
                                   named + [img.shstrndx]))

    def mutant(self):
        """(description, bytes) of one mutation of the original image."""
        img = ElfImage(self.img.data)
        rng = self.rng
        what = rng.choice(('ehdr', 'shdr', 'shdr', 'shdr', 'sym', 'sym',
                           'note', 'strend', 'table', 'table', 'table'))
        if what == 'table':
            return self._table(img)
        if what == 'ehdr':
            field = rng.choice(self.EHDR_FIELDS)
            cur = img.ehdr(field)
            val = rng.choice(interesting(img, img.width(EHDR, field), cur,
                                         rng))
            img.set_ehdr(field, val)
            desc = '%s = %#x (was %#x)' % (field, val, cur)
        elif what == 'shdr' or (what == 'sym' and not self.symtabs) or \
                (what == 'note' and not self.note):
            i = rng.choice(self.sections)
            field = rng.choice(list(SHDR))
            cur = img.shdr(i, field)
            if field == 'sh_type' and rng.random() < 0.5:
                val = rng.choice((0, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB,
                                  SHT_NOTE, SHT_NOBITS, SHT_DYNSYM))
            else:
                val = rng.choice(interesting(img, img.width(SHDR, field),
                                             cur, rng))
            img.set_shdr(i, field, val)
            desc = 'section %d %s: %s = %#x (was %#x)' % (
                i, img.names[i], field, val, cur)
        elif what == 'sym':
            s = rng.choice(self.symtabs)
            n = rng.randrange(img.nsyms(s))
            field = rng.choice(list(SYM))
            cur = img.sym(s, n, field)
            val = rng.choice(interesting(img, img.width(SYM, field), cur,
                                         rng))
            img.set_sym(s, n, field, val)
            desc = 'section %d %s: symbol %d %s = %#x (was %#x)' % (
                s, img.names[s], n, field, val, cur)
        elif what == 'note':
            i = self.note[0]
            field = rng.choice(list(NHDR))
            cur = img._get(img.shdr(i, 'sh_offset') +
                           img._off(NHDR, field), 4)
            val = rng.choice(interesting(img, 32, cur, rng))
            img.set_note(i, field, val)
            desc = 'section %d %s: note %s = %#x (was %#x)' % (
                i, img.names[i], field, val, cur)
        else:
            i = rng.choice(self.strtabs)
            end = img.shdr(i, 'sh_offset') + img.shdr(i, 'sh_size') - 1
            img.set_byte(end, ord('A'))
            desc = 'section %d %s: last byte = "A"' % (i, img.names[i])
        return desc, bytes(img.data)

    def _table(self, img):
        """(description, bytes) of a damage that breaks a table whole."""
        rng = self.rng
        kinds = ['nobits']
        if self.strtabs:
            kinds.append('strsize')
        if self.symtabs:
            kinds.append('entsize')
        kind = rng.choice(kinds)
        if kind == 'strsize':
            i, field = rng.choice(self.strtabs), 'sh_size'
            cur = img.shdr(i, field)
            val = rng.choice((0, 1, 8, cur // 2, cur - 1))
        elif kind == 'entsize':
            i, field = rng.choice(self.symtabs), 'sh_entsize'
            cur = img.shdr(i, field)
            val = rng.choice((0, 1, 8, 16, cur - 1, cur + 1, cur * 2))
        else:
            i, field = rng.choice(self.sections), 'sh_type'
            cur = img.shdr(i, field)
            val = SHT_NOBITS
        img.set_shdr(i, field, val)
        desc = 'section %d %s: %s = %#x (was %#x)' % (
            i, img.names[i], field, val, cur)
        return desc, bytes(img.data)
