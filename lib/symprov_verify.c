// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod trusts the server: it does not check that the file it
 * returns carries the build ID it asked for, nor that it is whole.  Loading
 * a vmlinux of another kernel would put every sample on a wrong symbol, and
 * perf 6.12 (util/symbol-elf.c) reads a vmlinux's tables without checking
 * them: a string table shorter than a symbol's name offset, a symbol table
 * entry size of 0 or a note section without data crash it.  Check here
 * everything it trusts, before any host sees the file, and that the file
 * is of the kind asked for: a module's or a program's separate debug file
 * has the right build ID and sound tables, and names wrong symbols or
 * crashes perf all the same.  With libelf only: perf, which may be built
 * without libdw, runs this too.
 */
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "libsymprov.h"
#include "symprov_verify.h"

static pthread_once_t symprov_elf_once = PTHREAD_ONCE_INIT;

static void symprov_elf_version(void)
{
	elf_version(EV_CURRENT);
}

void symprov_elf_init(void)
{
	pthread_once(&symprov_elf_once, symprov_elf_version);
}

/* @len bytes at @off are inside a file of @size bytes. */
static bool symprov_inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The section called @name in the way perf finds it: the first one. */
static Elf_Scn *symprov_scn_by_name(Elf *elf, size_t shstrndx, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;

		if (!gelf_getshdr(scn, &shdr))
			return NULL;
		s = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/*
 * A file cut short can keep its build ID note: a body that ended with its
 * connection (no Content-Length), a copy in the cache truncated later.
 * Everything the ELF headers place in the file must be in it.  libelf
 * pretends a section header table that does not fit is not there: compare
 * with what the ELF header says.
 */
static const char *symprov_elf_outside(Elf *elf, int fd)
{
	struct stat st;
	GElf_Ehdr ehdr;
	Elf_Scn *scn = NULL;
	size_t i, n, phnum;
	uint64_t size;

	if (fstat(fd, &st) || !gelf_getehdr(elf, &ehdr) ||
	    elf_getshdrnum(elf, &n) || elf_getphdrnum(elf, &phnum))
		return "damaged ELF header";
	size = (uint64_t)st.st_size;
	if ((ehdr.e_shnum && n != ehdr.e_shnum) || (!n) != (!ehdr.e_shoff) ||
	    !symprov_inside(ehdr.e_shoff,
			    gelf_fsize(elf, ELF_T_SHDR, n, EV_CURRENT), size))
		return "file is truncated: section header table past its end";
	if (n && ehdr.e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT))
		return "section header size is not that of this ELF class";
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			return "damaged section header";
		if (shdr.sh_type != SHT_NOBITS &&
		    !symprov_inside(shdr.sh_offset, shdr.sh_size, size))
			return "file is truncated: a section ends past its end";
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr) ||
		    !symprov_inside(phdr.p_offset, phdr.p_filesz, size))
			return "file is truncated: a segment ends past its end";
	}
	return NULL;
}

/*
 * Section @ndx is a string table perf can read by offset: its names must
 * end inside it, and elf_strptr() is linear in the table's size per call
 * unless its last byte is a NUL.  perf reads compressed tables as they are
 * in the file.  @names: the section name table (for the reasons).  With
 * the NUL, any offset below *@size (if not NULL) is a whole name.
 */
static const char *symprov_strtab_damage(Elf *elf, size_t ndx, bool names,
					 size_t *size)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!scn || !gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_STRTAB)
		return names ? "section name table is not a string table" :
			       "symbol table linked to a section that is not a string table";
	if (shdr.sh_flags & SHF_COMPRESSED)
		return "string table is compressed";
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_size || data->d_size != shdr.sh_size ||
	    ((const char *)data->d_buf)[data->d_size - 1] != '\0')
		return names ? "section name table does not end with a NUL" :
			       "string table of a symbol table does not end with a NUL";
	if (size)
		*size = data->d_size;
	return NULL;
}

/*
 * perf reads e_shstrndx from the ELF header as is; libelf follows an
 * extended index (SHN_XINDEX) to section 0.  Both must name the same table,
 * or the raw one no section at all.
 */
static const char *symprov_names_damage(Elf *elf, size_t shnum,
					size_t *shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	const char *why;

	if (!shnum)
		return NULL;
	if (elf_getshdrstrndx(elf, shstrndx) || !gelf_getehdr(elf, &ehdr) ||
	    !*shstrndx || *shstrndx >= shnum ||
	    (ehdr.e_shstrndx < shnum && ehdr.e_shstrndx != *shstrndx))
		return "section name table index out of range";
	why = symprov_strtab_damage(elf, *shstrndx, true, NULL);
	if (why)
		return why;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr) ||
		    !elf_strptr(elf, *shstrndx, shdr.sh_name))
			return "section name outside the section name table";
	}
	return NULL;
}

/* The symbols perf 6.12 keeps (elf_sym__filter(), elf_sym__is_label()). */
static bool symprov_perf_keeps(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	int vis = GELF_ST_VISIBILITY(sym->st_other);

	if (!sym->st_name || sym->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	return type == STT_NOTYPE && sym->st_shndx != SHN_ABS &&
	       vis != STV_HIDDEN && vis != STV_INTERNAL;
}

/*
 * Symbol @i of @data, a symbol table of ELF class @class read by libelf,
 * in memory as that class's symbols (their size is the entsize checked).
 * A vmlinux has 190,000 symbols: gelf_getsym() and elf_strptr() on each
 * were five times the cost of the whole check.
 */
static void symprov_sym(const Elf_Data *data, int class, size_t i,
			GElf_Sym *sym)
{
	const char *p = data->d_buf;

	if (class == ELFCLASS64) {
		Elf64_Sym s;

		memcpy(&s, p + i * sizeof(s), sizeof(s));
		*sym = s;
	} else {
		Elf32_Sym s;

		memcpy(&s, p + i * sizeof(s), sizeof(s));
		sym->st_name = s.st_name;
		sym->st_value = s.st_value;
		sym->st_size = s.st_size;
		sym->st_info = s.st_info;
		sym->st_other = s.st_other;
		sym->st_shndx = s.st_shndx;
	}
}

/*
 * The .opd section perf reads function descriptors from: index and header,
 * or 0 when there is none (perf uses the first one called .opd, if
 * SHT_PROGBITS).
 */
static size_t symprov_opd(Elf *elf, size_t shstrndx, GElf_Shdr *shdr)
{
	Elf_Scn *scn = symprov_scn_by_name(elf, shstrndx, ".opd");

	if (!scn || !gelf_getshdr(scn, shdr) || shdr->sh_type != SHT_PROGBITS)
		return 0;
	return elf_ndxscn(scn);
}

static const char *symprov_symtab_damage(Elf *elf, Elf_Scn *scn,
					 const GElf_Shdr *shdr, size_t shnum,
					 size_t opd, const GElf_Shdr *opd_shdr)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	int class = gelf_getclass(elf);
	size_t i, nsyms, strsz;
	const char *why;
	Elf_Data *data;

	/* perf divides by sh_entsize, and walks sh_size / sh_entsize */
	if (shdr->sh_entsize != entsize || shdr->sh_size % entsize)
		return "symbol table entry size is not that of a symbol";
	if (shdr->sh_size / entsize > INT_MAX)
		return "symbol table too large";
	if (shdr->sh_flags & SHF_COMPRESSED)
		return "symbol table is compressed";
	if (!shdr->sh_size)
		return NULL; /* perf reads no name */
	if (!shdr->sh_link || shdr->sh_link >= shnum)
		return "symbol table's string table index out of range";
	why = symprov_strtab_damage(elf, shdr->sh_link, false, &strsz);
	if (why)
		return why;
	data = elf_getdata(scn, NULL);
	if (!data || data->d_type != ELF_T_SYM || data->d_size != shdr->sh_size)
		return "symbol table cannot be read";
	nsyms = shdr->sh_size / entsize;
	for (i = 0; i < nsyms; i++) {
		const char *p = (const char *)data->d_buf + i * entsize;
		uint32_t name; /* st_name leads a symbol of either class */
		GElf_Sym sym;

		memcpy(&name, p, sizeof(name));
		if (name >= strsz)
			return "symbol name outside its string table";
		if (!opd)
			continue;
		/* an offset perf truncates to 32 bits; it reads 8 bytes */
		symprov_sym(data, class, i, &sym);
		if (sym.st_shndx == opd && symprov_perf_keeps(&sym) &&
		    (uint64_t)(uint32_t)(sym.st_value - opd_shdr->sh_addr) + 8 >
			    opd_shdr->sh_size)
			return "symbol outside its function descriptor section";
	}
	return NULL;
}

static const char *symprov_symtabs_damage(Elf *elf, size_t shnum,
					  size_t shstrndx)
{
	GElf_Shdr opd_shdr;
	size_t opd = shnum ? symprov_opd(elf, shstrndx, &opd_shdr) : 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *why;

		if (!gelf_getshdr(scn, &shdr))
			return "damaged section header";
		if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM)
			continue;
		why = symprov_symtab_damage(elf, scn, &shdr, shnum, opd,
					    &opd_shdr);
		if (why)
			return why;
	}
	return NULL;
}

#define SYMPROV_NOTE_ALIGN(n) (((uint64_t)(n) + 3) & ~(uint64_t)3)

/*
 * perf 6.12 (elf_read_build_id()) walks the notes of the first section
 * called .note.gnu.build-id, else .notes, else .note, whatever its type,
 * as 4-byte aligned headers, names and descriptions, and copies up to 20
 * bytes of the first GNU build ID it meets.  Walk them the same way:
 * everything it reads must be in the section, and that build ID must be
 * the file's (@id, @len, symprov_elf_build_id()'s).
 */
static const char *symprov_notes_damage(Elf *elf, size_t shstrndx,
					const void *id, size_t len)
{
	static const char *const names[] = { ".note.gnu.build-id", ".notes",
					     ".note" };
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	Elf_Data *data;
	uint64_t off = 0;
	size_t i;

	for (i = 0; !scn && i < sizeof(names) / sizeof(names[0]); i++)
		scn = symprov_scn_by_name(elf, shstrndx, names[i]);
	if (!scn || !gelf_getshdr(scn, &shdr) || !shdr.sh_size)
		return NULL;
	if (shdr.sh_type == SHT_NOBITS)
		return "build ID note section has no data";
	data = elf_getdata(scn, NULL);
	if (!data || data->d_size != shdr.sh_size)
		return "build ID note section cannot be read";
	while (off < data->d_size) {
		const unsigned char *p = (const unsigned char *)data->d_buf;
		GElf_Nhdr nhdr;
		uint64_t name, desc, next;

		if (data->d_size - off < sizeof(nhdr))
			return "note header outside its section";
		memcpy(&nhdr, p + off, sizeof(nhdr));
		name = off + sizeof(nhdr);
		desc = name + SYMPROV_NOTE_ALIGN(nhdr.n_namesz);
		next = desc + SYMPROV_NOTE_ALIGN(nhdr.n_descsz);
		if (desc > data->d_size || desc + nhdr.n_descsz > data->d_size)
			return "note outside its section";
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    !memcmp(p + name, "GNU", 4)) {
			if (next > data->d_size)
				return "note outside its section";
			/* @id is NULL when the file has no build ID */
			if (nhdr.n_descsz != len ||
			    (len && memcmp(p + desc, id, len) != 0))
				return "build ID notes disagree";
			break;
		}
		off = next;
	}
	return NULL;
}

/*
 * A symbol table perf loads: the first section called .symtab, if
 * SHT_SYMTAB (symsrc__init()), with a symbol past the null one.
 */
static bool symprov_has_symtab(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = symprov_scn_by_name(elf, shstrndx, ".symtab");
	GElf_Shdr shdr;

	return scn && gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB &&
	       shdr.sh_size > shdr.sh_entsize;
}

/*
 * objcopy --only-keep-debug makes the code sections SHT_NOBITS and moves
 * the offsets of the others: a copy whose symbols perf would place on no
 * code (a module's, by section offsets) or whose .plt it reads as data.
 */
static bool symprov_code_without_data(Elf *elf)
{
	const uint64_t code = SHF_ALLOC | SHF_EXECINSTR;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_NOBITS &&
		    (shdr.sh_flags & code) == code)
			return true;
	}
	return false;
}

/* The runtime object's code is in the file: no debug file's is. */
static const char *symprov_segments_damage(Elf *elf)
{
	bool code = false;
	size_t i, phnum;
	GElf_Phdr phdr;

	if (elf_getphdrnum(elf, &phnum))
		return "damaged ELF header";
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &phdr) ||
		    phdr.p_type != PT_LOAD || !(phdr.p_flags & PF_X))
			continue;
		if (!phdr.p_filesz && phdr.p_memsz)
			return "executable segment without data: a separate debug file";
		code = true;
	}
	return code ? NULL : "no executable segment";
}

/*
 * What @kind (enum symprov_kind) must be besides sound, or NULL.  0, a
 * kernel and a kind this does not know: nothing more.
 */
static const char *symprov_kind_damage(Elf *elf, uint32_t kind, size_t shstrndx)
{
	GElf_Ehdr ehdr;
	const char *why;

	if (!gelf_getehdr(elf, &ehdr))
		return "damaged ELF header";
	switch (kind) {
	case SYMPROV_KIND_KERNEL_MODULE:
		if (ehdr.e_type != ET_REL)
			return "not a relocatable object file, as a kernel module is";
		if (!symprov_has_symtab(elf, shstrndx))
			return "no symbol table";
		if (symprov_code_without_data(elf))
			return "executable section without data: a separate debug file";
		return NULL;
	case SYMPROV_KIND_EXECUTABLE:
		if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
			return "not an executable or shared object file";
		why = symprov_segments_damage(elf);
		if (!why && symprov_code_without_data(elf))
			why = "executable section without data: a separate debug file";
		return why;
	case SYMPROV_KIND_DEBUGINFO:
		return symprov_has_symtab(elf, shstrndx) ? NULL :
							   "no symbol table";
	default:
		return NULL;
	}
}

/* What is wrong with @elf as @kind, or NULL; its build ID is @id. */
static const char *symprov_elf_damage(Elf *elf, int fd, const void *id,
				      size_t len, uint32_t kind)
{
	size_t shnum, shstrndx = 0;
	const char *why;
	GElf_Ehdr ehdr;

	/*
	 * perf adjusts the symbols of these types only (and of the kernel's
	 * sections maps it keeps out of order otherwise: a crash at exit).
	 */
	if (!gelf_getehdr(elf, &ehdr))
		return "damaged ELF header";
	if (ehdr.e_type != ET_REL && ehdr.e_type != ET_EXEC &&
	    ehdr.e_type != ET_DYN)
		return "not a relocatable, executable or shared object file";
	why = symprov_elf_outside(elf, fd);
	if (why)
		return why;
	if (elf_getshdrnum(elf, &shnum))
		return "damaged ELF header";
	why = symprov_names_damage(elf, shnum, &shstrndx);
	if (!why)
		why = symprov_symtabs_damage(elf, shnum, shstrndx);
	if (!why && shnum)
		why = symprov_notes_damage(elf, shstrndx, id, len);
	if (!why)
		why = symprov_kind_damage(elf, kind, shstrndx);
	return why;
}

/*
 * The first GNU build ID note of the notes in @data (NULL: none), as
 * dwelf_elf_gnu_build_id() takes it: true if there is one, its
 * description in *@id, *@len bytes (maybe 0).  gelf_getnote() keeps each
 * note inside @data, and returns 0 past the last one.
 */
static bool symprov_note_build_id(Elf_Data *data, const void **id, size_t *len)
{
	size_t off = 0, name, desc;
	GElf_Nhdr nhdr;

	while ((off = gelf_getnote(data, off, &nhdr, &name, &desc)) > 0) {
		const char *p = data->d_buf;

		if (nhdr.n_type == NT_GNU_BUILD_ID &&
		    nhdr.n_namesz == sizeof("GNU") &&
		    !memcmp(p + name, "GNU", sizeof("GNU"))) {
			*id = p + desc;
			*len = nhdr.n_descsz;
			return true;
		}
	}
	return false;
}

/*
 * The build ID of @elf, a file of @size bytes, as libdw's
 * dwelf_elf_gnu_build_id() finds it, with libelf alone (perf needs no
 * libdw): the first GNU build ID note of the SHT_NOTE sections or, in a
 * file without sections, of the PT_NOTE segments; *@len is its length, 0
 * when there is none.  libelf copies the notes of a file of the other byte
 * order: those read may add up to the file's size, which notes that do not
 * overlap never pass, so that a file naming the same large range again and
 * again cannot make it allocate without limit.  Past that bound the notes
 * left unread could hold a build ID libdw would find: -1, the file is
 * refused rather than said to have none.
 */
static int symprov_elf_build_id(Elf *elf, uint64_t size, const void **id,
				size_t *len)
{
	Elf_Scn *scn = elf_nextscn(elf, NULL);
	uint64_t left = size;
	size_t i, phnum;
	bool found = false;

	*len = 0;
	for (; scn && !found; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr shdr;

		/* libelf reads nothing of one outside the file */
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
		    !symprov_inside(shdr.sh_offset, shdr.sh_size, size))
			continue;
		if (shdr.sh_size > left)
			return -1;
		left -= shdr.sh_size;
		found = symprov_note_build_id(elf_getdata(scn, NULL), id, len);
	}
	if (elf_nextscn(elf, NULL) || elf_getphdrnum(elf, &phnum))
		return 0;
	for (i = 0; i < phnum && !found; i++) {
		GElf_Phdr phdr;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &phdr) ||
		    phdr.p_type != PT_NOTE ||
		    !symprov_inside(phdr.p_offset, phdr.p_filesz, size))
			continue;
		if (phdr.p_filesz > left)
			return -1;
		left -= phdr.p_filesz;
		data = elf_getdata_rawchunk(
			elf, (int64_t)phdr.p_offset, phdr.p_filesz,
			phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		found = symprov_note_build_id(data, id, len);
	}
	return 0;
}

/*
 * @fd as ELF, its build ID in *@id (*@len bytes, 0 when it has none), or
 * NULL and *why.
 */
static Elf *symprov_elf_open(int fd, const void **id, size_t *len,
			     const char **why)
{
	struct stat st;
	Elf *elf;

	symprov_elf_init();
	if (fstat(fd, &st)) {
		*why = "cannot read the file";
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		*why = "not an ELF file";
		return NULL;
	}
	if (symprov_elf_build_id(elf, (uint64_t)st.st_size, id, len)) {
		elf_end(elf);
		*why = "note sections overlap";
		return NULL;
	}
	return elf;
}

int symprov_verify_elf(int fd, const char **why)
{
	const void *id = NULL;
	size_t len;
	Elf *elf = symprov_elf_open(fd, &id, &len, why);

	if (!elf)
		return -EBADMSG;
	*why = symprov_elf_damage(elf, fd, id, len, 0);
	elf_end(elf);
	return *why ? -EBADMSG : 0;
}

int symprov_verify_build_id(int fd, const unsigned char *build_id, size_t len,
			    const char **why)
{
	return symprov_verify_kind(fd, SYMPROV_KIND_KERNEL, build_id, len, why);
}

int symprov_verify_kind(int fd, uint32_t kind, const unsigned char *build_id,
			size_t len, const char **why)
{
	const void *found = NULL;
	size_t found_len;
	Elf *elf = symprov_elf_open(fd, &found, &found_len, why);

	if (!elf)
		return -EBADMSG;
	if (!found_len)
		*why = "no build ID note";
	else if (found_len != len || memcmp(found, build_id, len) != 0)
		*why = "build ID differs from the one asked for";
	else
		*why = symprov_elf_damage(elf, fd, found, found_len, kind);
	elf_end(elf);
	return *why ? -EBADMSG : 0;
}

int symprov_verify_file(int fd, uint32_t kind, const unsigned char *build_id,
			size_t len, const char **why)
{
	return symprov_verify_kind(fd, kind, build_id, len, why);
}
