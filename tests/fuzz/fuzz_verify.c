// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the check of fetched files on any bytes.  It must not
 * crash, and it must say why it rejects.  Every file it accepts is then
 * read the way perf 6.12 reads a vmlinux (util/symbol-elf.c:
 * elf_read_build_id(), symsrc__init(), dso__load_sym_internal()), from a
 * heap copy of exactly the file's size, so that ASan sees any read perf
 * would make past the file or through a NULL section buffer: a file the
 * check accepts and this model crashes on is a gap in the check.  And on
 * any bytes, the build ID the check reads with libelf alone is the one
 * libdw's dwelf_elf_gnu_build_id() reads, and the check of each kind
 * says why it refuses a file the check of the structure accepts.
 */
#define _GNU_SOURCE /* memfd_create */
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symprov.h"
#include "symprov_buildid.h"
#include "symprov_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What perf reads is summed here so that no read is optimised away. */
static volatile size_t model_sink;

/* util/symbol-elf.c: elf_section_by_name() */
static Elf_Scn *model_section_by_name(Elf *elf, GElf_Ehdr *ep, GElf_Shdr *shp,
				      const char *name, size_t *idx)
{
	Elf_Scn *sec = NULL;
	size_t cnt = 1;

	if (!elf_rawdata(elf_getscn(elf, ep->e_shstrndx), NULL))
		return NULL;
	while ((sec = elf_nextscn(elf, sec)) != NULL) {
		char *str;

		gelf_getshdr(sec, shp);
		str = elf_strptr(elf, ep->e_shstrndx, shp->sh_name);
		if (str && !strcmp(name, str)) {
			if (idx)
				*idx = cnt;
			return sec;
		}
		++cnt;
	}
	return NULL;
}

#define MODEL_NOTE_ALIGN(n) (((n) + 3) & -4U)

/* util/symbol-elf.c: elf_read_build_id() */
static void model_read_build_id(Elf *elf, GElf_Ehdr *ehdr)
{
	static const char *const names[] = { ".note.gnu.build-id", ".notes",
					     ".note" };
	unsigned char bf[20];
	GElf_Shdr shdr;
	Elf_Scn *sec = NULL;
	Elf_Data *data;
	char *ptr;
	size_t i;

	for (i = 0; !sec && i < 3; i++)
		sec = model_section_by_name(elf, ehdr, &shdr, names[i], NULL);
	if (!sec)
		return;
	data = elf_getdata(sec, NULL);
	/* perf adds 0 to a NULL buffer here: harmless, but UB to UBSan */
	if (!data || !data->d_size)
		return;
	ptr = data->d_buf;
	while (ptr < (char *)data->d_buf + data->d_size) {
		GElf_Nhdr nhdr;
		size_t namesz, descsz;
		const char *name;

		/* the bytes perf reads, at any alignment (x86 does not care) */
		memcpy(&nhdr, ptr, sizeof(nhdr));
		namesz = MODEL_NOTE_ALIGN(nhdr.n_namesz);
		descsz = MODEL_NOTE_ALIGN(nhdr.n_descsz);
		ptr += sizeof(nhdr);
		name = ptr;
		ptr += namesz;
		if (nhdr.n_type == NT_GNU_BUILD_ID &&
		    nhdr.n_namesz == sizeof("GNU") &&
		    !memcmp(name, "GNU", sizeof("GNU"))) {
			memcpy(bf, ptr, descsz < 20 ? descsz : 20);
			model_sink += bf[0];
			break;
		}
		ptr += descsz;
	}
}

/* util/symbol-elf.c: elf_addr_to_index() */
static size_t model_addr_to_index(Elf *elf, GElf_Addr addr)
{
	Elf_Scn *sec = NULL;
	GElf_Shdr shdr;
	size_t cnt = 1;

	while ((sec = elf_nextscn(elf, sec)) != NULL) {
		gelf_getshdr(sec, &shdr);
		if (addr >= shdr.sh_addr && addr < shdr.sh_addr + shdr.sh_size)
			return cnt;
		++cnt;
	}
	return -1;
}

/* util/symbol-elf.c: elf_sym__filter() and elf_sym__is_label() */
static int model_keeps(const GElf_Sym *sym, int *is_label)
{
	int type = GELF_ST_TYPE(sym->st_info);
	int vis = GELF_ST_VISIBILITY(sym->st_other);

	*is_label = type == STT_NOTYPE && sym->st_name &&
		    sym->st_shndx != SHN_UNDEF && sym->st_shndx != SHN_ABS &&
		    vis != STV_HIDDEN && vis != STV_INTERNAL;
	return *is_label || ((type == STT_FUNC || type == STT_GNU_IFUNC ||
			      type == STT_OBJECT) &&
			     sym->st_name && sym->st_shndx != SHN_UNDEF);
}

struct model_opd {
	Elf_Scn *sec;
	size_t idx;
	GElf_Shdr shdr;
};

/* util/symbol-elf.c: dso__load_sym_internal(), reads only */
static void model_load_sym(Elf *elf, GElf_Ehdr *ehdr, Elf_Scn *sec,
			   GElf_Shdr *shdr, struct model_opd *opd)
{
	Elf_Data *syms, *symstrs, *secstrs, *opddata = NULL;
	Elf_Scn *sec_strndx;
	GElf_Shdr tshdr;
	uint32_t nr_syms, idx;
	GElf_Sym sym;

	if (model_section_by_name(elf, ehdr, &tshdr, ".text", NULL))
		model_sink += tshdr.sh_addr - tshdr.sh_offset;
	if (opd->sec)
		opddata = elf_rawdata(opd->sec, NULL);
	syms = elf_getdata(sec, NULL);
	if (!syms)
		return;
	sec = elf_getscn(elf, shdr->sh_link);
	if (!sec)
		return;
	symstrs = elf_getdata(sec, NULL);
	if (!symstrs)
		return;
	sec_strndx = elf_getscn(elf, ehdr->e_shstrndx);
	if (!sec_strndx)
		return;
	secstrs = elf_getdata(sec_strndx, NULL);
	if (!secstrs)
		return;
	nr_syms = shdr->sh_size / shdr->sh_entsize;
	memset(&sym, 0, sizeof(sym));
	for (idx = 0, gelf_getsym(syms, idx, &sym); idx < nr_syms;
	     idx++, gelf_getsym(syms, idx, &sym)) {
		/* the relocation symbol is looked up by name in all */
		const char *elf_name = (char *)symstrs->d_buf + sym.st_name;
		GElf_Shdr sshdr;
		int is_label;

		model_sink += strlen(elf_name);
		if (!model_keeps(&sym, &is_label))
			continue;
		if (opd->sec && sym.st_shndx == opd->idx) {
			uint32_t offset = sym.st_value - opd->shdr.sh_addr;
			uint64_t *p =
				(uint64_t *)((char *)opddata->d_buf + offset);
			uint64_t value;

			memcpy(&value, p, sizeof(value));
			sym.st_value = value;
			sym.st_shndx = model_addr_to_index(elf, sym.st_value);
		}
		if (sym.st_shndx == SHN_ABS)
			continue;
		sec = elf_getscn(elf, sym.st_shndx);
		if (!sec)
			return;
		gelf_getshdr(sec, &sshdr);
		if (!(sshdr.sh_flags & SHF_ALLOC))
			continue;
		model_sink += strlen((char *)secstrs->d_buf + sshdr.sh_name);
	}
}

/* util/symbol-elf.c: symsrc__init() and dso__load_sym() of a vmlinux */
static void model_perf(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct model_opd opd = { NULL, 0, { 0 } };
	/* perf leaves them unset when there is no such section */
	GElf_Shdr symshdr = { 0 }, dynshdr = { 0 };
	Elf_Scn *symtab, *dynsym;
	GElf_Ehdr ehdr;
	Elf *elf;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (!elf || !gelf_getehdr(elf, &ehdr))
		abort(); /* the check read it: so must libelf here */
	model_read_build_id(elf, &ehdr);
	symtab = model_section_by_name(elf, &ehdr, &symshdr, ".symtab", NULL);
	if (symshdr.sh_type != SHT_SYMTAB)
		symtab = NULL;
	dynsym = model_section_by_name(elf, &ehdr, &dynshdr, ".dynsym", NULL);
	if (dynshdr.sh_type != SHT_DYNSYM)
		dynsym = NULL;
	opd.sec =
		model_section_by_name(elf, &ehdr, &opd.shdr, ".opd", &opd.idx);
	if (opd.shdr.sh_type != SHT_PROGBITS)
		opd.sec = NULL;
	if (symtab)
		model_load_sym(elf, &ehdr, symtab, &symshdr, &opd);
	if (dynsym)
		model_load_sym(elf, &ehdr, dynsym, &dynshdr, &opd);
	elf_end(elf);
	free(copy);
}

/*
 * Asked for libdw's build ID, the check never finds another one or none;
 * when libdw finds none, the check finds none either.  It refuses a file
 * whose note sections overlap (it stops reading notes there), and says so.
 */
static void compare_build_id(int fd)
{
	static const unsigned char any[20] = { 1 };
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	const char *why = NULL;
	ssize_t len;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return;
	}
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (len > 0) {
		if (symprov_verify_build_id(fd, id, (size_t)len, &why) &&
		    (!strcmp(why, "build ID differs from the one asked for") ||
		     !strcmp(why, "no build ID note")))
			abort();
	} else if (!symprov_verify_build_id(fd, any, sizeof(any), &why) ||
		   (strcmp(why, "no build ID note") != 0 &&
		    strcmp(why, "note sections overlap") != 0)) {
		abort();
	}
	elf_end(elf);
}

/*
 * The check of each kind, on a file accepted with its build ID @id: it
 * says why it refuses, and a kernel is checked as before.
 */
static void check_kinds(int fd, const void *id, size_t len)
{
	const char *why = NULL;
	uint32_t kind;

	for (kind = SYMPROV_KIND_KERNEL; kind <= SYMPROV_KIND_EXECUTABLE;
	     kind++) {
		int bad = symprov_verify_kind(fd, kind, id, len, &why);

		if (bad ? !why : why != NULL)
			abort();
		if (bad && kind == SYMPROV_KIND_KERNEL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	unsigned char other[SYMPROV_BUILD_ID_MAX];
	const void *id = NULL;
	const char *why = NULL;
	ssize_t len;
	Elf *elf;

	if (fd < 0) {
		elf_version(EV_CURRENT);
		fd = memfd_create("fuzz-verify", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	compare_build_id(fd);
	if (symprov_verify_elf(fd, &why)) {
		if (!why)
			abort();
		return 0;
	}
	if (why)
		abort();
	model_perf(data, size);

	/* accepted with its own build ID, and only with it */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	if (len > 0 && len <= SYMPROV_BUILD_ID_MAX) {
		memcpy(other, id, len);
		if (symprov_verify_build_id(fd, id, len, &why))
			abort();
		other[0] ^= 1;
		if (!symprov_verify_build_id(fd, other, len, &why) ||
		    strcmp(why, "build ID differs from the one asked for") != 0)
			abort();
		check_kinds(fd, id, len);
	}
	elf_end(elf);
	return 0;
}
