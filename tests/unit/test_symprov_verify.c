// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The check of fetched files: build ID, and the structure perf relies on.
 * The files are this test's own executable (linked with TEST_BUILD_ID) with
 * one field damaged, and a symbols-only copy of it; for the checks of each
 * kind, a kernel module look-alike (TEST_MODULE) and its debug-only copy.
 */
#define _GNU_SOURCE /* memfd_create */
#include <elf.h>
#include <fcntl.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "symprov.h"
#include "symprov_buildid.h"
#include "symprov_verify.h"

/* A symbol perf reads a function descriptor for, as on ppc64 ELFv1. */
const unsigned long test_opd_entry[4]
	__attribute__((section(".opd"))) = { 1, 2, 3, 4 };

static unsigned char own_id[SYMPROV_BUILD_ID_MAX];

struct image {
	unsigned char *buf;
	size_t size;
};

static int verify_file(const char *file, const unsigned char *id, size_t len,
		       const char **why)
{
	int fd = open(file, O_RDONLY), ret;

	assert_true(fd >= 0);
	ret = symprov_verify_build_id(fd, id, len, why);
	close(fd);
	return ret;
}

static void load_file(const char *file, struct image *im)
{
	int fd = open(file, O_RDONLY);
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	im->size = (size_t)st.st_size;
	im->buf = malloc(im->size);
	assert_non_null(im->buf);
	assert_int_equal(pread(fd, im->buf, im->size, 0), (ssize_t)im->size);
	close(fd);
}

static void load_self(struct image *im)
{
	load_file("/proc/self/exe", im);
	assert_int_equal(im->buf[EI_CLASS], ELFCLASS64);
}

static Elf64_Ehdr *ehdr_of(const struct image *im)
{
	return (Elf64_Ehdr *)im->buf;
}

static Elf64_Shdr *shdr_of(const struct image *im, size_t i)
{
	return (Elf64_Shdr *)(im->buf + ehdr_of(im)->e_shoff) + i;
}

static size_t scn_of(const struct image *im, const char *name)
{
	const Elf64_Ehdr *eh = ehdr_of(im);
	const char *names =
		(const char *)im->buf + shdr_of(im, eh->e_shstrndx)->sh_offset;
	size_t i;

	for (i = 1; i < eh->e_shnum; i++)
		if (!strcmp(names + shdr_of(im, i)->sh_name, name))
			return i;
	fail_msg("no section %s", name);
	return 0;
}

static Elf64_Sym *sym_of(const struct image *im, const char *name)
{
	const Elf64_Shdr *symtab = shdr_of(im, scn_of(im, ".symtab"));
	const char *strs =
		(const char *)im->buf + shdr_of(im, symtab->sh_link)->sh_offset;
	Elf64_Sym *sym = (Elf64_Sym *)(im->buf + symtab->sh_offset);
	size_t i;

	for (i = 0; i < symtab->sh_size / sizeof(*sym); i++)
		if (!strcmp(strs + sym[i].st_name, name))
			return &sym[i];
	fail_msg("no symbol %s", name);
	return NULL;
}

/*
 * The reason symprov_verify_kind(@kind, @id) gives for @im, or NULL.  What
 * passes as any kind passes as a kernel, and its structure alone.
 */
static const char *verify_image_kind(const struct image *im,
				     const unsigned char *id, uint32_t kind)
{
	int fd = memfd_create("test-verify", MFD_CLOEXEC);
	const char *why = NULL;
	int ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, im->buf, im->size), (ssize_t)im->size);
	ret = symprov_verify_kind(fd, kind, id, 20, &why);
	assert_int_equal(ret, why ? -EBADMSG : 0);
	if (!ret) {
		assert_int_equal(symprov_verify_build_id(fd, id, 20, &why), 0);
		assert_int_equal(symprov_verify_elf(fd, &why), 0);
		why = NULL;
	}
	close(fd);
	return why;
}

/* The reason symprov_verify_build_id(@id) gives for @im, or NULL. */
static const char *verify_image_as(const struct image *im,
				   const unsigned char *id)
{
	return verify_image_kind(im, id, SYMPROV_KIND_KERNEL);
}

static const char *verify_image(const struct image *im)
{
	return verify_image_as(im, own_id);
}

static void test_own_build_id(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(verify_file("/proc/self/exe", own_id, 20, &why), 0);
}

static void test_other_build_id(void **state)
{
	unsigned char other[20];
	const char *why = NULL;

	(void)state;
	memcpy(other, own_id, 20);
	other[19] ^= 1;
	assert_int_equal(verify_file("/proc/self/exe", other, 20, &why), -EBADMSG);
	assert_string_equal(why, "build ID differs from the one asked for");
	/* a prefix is not a match either */
	assert_int_equal(verify_file("/proc/self/exe", own_id, 8, &why), -EBADMSG);
}

static void test_not_elf(void **state)
{
	char file[] = "/tmp/test_verify.XXXXXX";
	int fd = mkstemp(file);
	const char *why = NULL;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "<html>404</html>\n", 17), 17);
	close(fd);
	assert_int_equal(verify_file(file, own_id, 20, &why), -EBADMSG);
	assert_string_equal(why, "not an ELF file");
	unlink(file);
}

/* Damages, one field each, and the reason they get. */

static void strtab_cut(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, scn_of(im, ".strtab"));
	uint64_t n = 8;

	/* 8 bytes or the first length after that cutting a name */
	while (!im->buf[sh->sh_offset + n - 1])
		n++;
	sh->sh_size = n;
}

static void strtab_unterminated(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, scn_of(im, ".strtab"));

	im->buf[sh->sh_offset + sh->sh_size - 1] = 'A';
}

static void symtab_entsize_0(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_entsize = 0;
}

static void symtab_entsize_1(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_entsize = 1;
}

static void symtab_size_odd(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_size -= 1;
}

static void symtab_link_out_of_range(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_link = ehdr_of(im)->e_shnum + 3;
}

static void symtab_link_0(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_link = 0;
}

static void symtab_link_text(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_link = scn_of(im, ".text");
}

static void symtab_compressed(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_flags |= SHF_COMPRESSED;
}

static void dynsym_entsize_0(struct image *im)
{
	shdr_of(im, scn_of(im, ".dynsym"))->sh_entsize = 0;
}

static void st_name_past_strtab(struct image *im)
{
	sym_of(im, "main")->st_name =
		shdr_of(im, scn_of(im, ".strtab"))->sh_size;
}

static void st_name_huge(struct image *im)
{
	sym_of(im, "main")->st_name = 0xfffffff8;
}

static void opd_symbol_past_end(struct image *im)
{
	Elf64_Shdr *opd = shdr_of(im, scn_of(im, ".opd"));

	sym_of(im, "test_opd_entry")->st_value =
		opd->sh_addr + opd->sh_size - 4;
}

static void shstrndx_text(struct image *im)
{
	ehdr_of(im)->e_shstrndx = scn_of(im, ".text");
}

static void shstrndx_out_of_range(struct image *im)
{
	ehdr_of(im)->e_shstrndx = ehdr_of(im)->e_shnum + 1;
}

static void shstrtab_unterminated(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, ehdr_of(im)->e_shstrndx);

	im->buf[sh->sh_offset + sh->sh_size - 1] = 'A';
}

static void sh_name_past_shstrtab(struct image *im)
{
	shdr_of(im, scn_of(im, ".comment"))->sh_name =
		shdr_of(im, ehdr_of(im)->e_shstrndx)->sh_size + 10;
}

static void section_past_end(struct image *im)
{
	shdr_of(im, scn_of(im, ".comment"))->sh_offset = im->size + 4096;
}

static void section_size_huge(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_size = UINT64_MAX - 7;
}

static void shnum_65535(struct image *im)
{
	ehdr_of(im)->e_shnum = 65535;
}

static void shentsize_32(struct image *im)
{
	ehdr_of(im)->e_shentsize = 32;
}

static void type_core(struct image *im)
{
	ehdr_of(im)->e_type = ET_CORE;
}

static void note_nobits(struct image *im)
{
	shdr_of(im, scn_of(im, ".note.gnu.build-id"))->sh_type = SHT_NOBITS;
}

static void note_cut(struct image *im)
{
	/* the header and "GNU", not the description */
	shdr_of(im, scn_of(im, ".note.gnu.build-id"))->sh_size = 20;
}

static void note_descsz_huge(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, scn_of(im, ".note.gnu.build-id"));
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(im->buf + sh->sh_offset);

	nh->n_descsz = 0x1000;
}

/* The section header table gone: the build ID is that of PT_NOTE. */
static void no_sections(struct image *im)
{
	ehdr_of(im)->e_shoff = 0;
	ehdr_of(im)->e_shnum = 0;
	ehdr_of(im)->e_shstrndx = SHN_UNDEF;
}

static Elf64_Phdr *phdr_of(const struct image *im, size_t i)
{
	return (Elf64_Phdr *)(im->buf + ehdr_of(im)->e_phoff) + i;
}

static void no_sections_no_note(struct image *im)
{
	size_t i;

	no_sections(im);
	for (i = 0; i < ehdr_of(im)->e_phnum; i++)
		if (phdr_of(im, i)->p_type == PT_NOTE)
			phdr_of(im, i)->p_type = PT_NULL;
}

/*
 * A first note segment over the whole file: the notes read would add up
 * to more than the file, which notes that do not overlap never do.  The
 * check stops reading there, so it cannot say the file has no build ID
 * (libdw reads on and may find one): it refuses the file.
 */
static void no_sections_note_over_all(struct image *im)
{
	Elf64_Phdr *ph = phdr_of(im, 0);

	no_sections(im);
	assert_int_not_equal(ph->p_type, PT_NOTE);
	ph->p_type = PT_NOTE;
	ph->p_offset = 0;
	ph->p_filesz = im->size;
}

/* The same with a note section before the build ID's. */
static void note_section_over_all(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, 1);

	assert_int_not_equal(1, scn_of(im, ".note.gnu.build-id"));
	sh->sh_type = SHT_NOTE;
	sh->sh_offset = 0;
	sh->sh_size = im->size;
}

static void truncated(struct image *im)
{
	im->size /= 2;
}

static const struct damage {
	const char *name;
	void (*apply)(struct image *im);
	const char *why;
} damages[] = {
	{ ".strtab sh_size = 8", strtab_cut,
	  "string table of a symbol table does not end with a NUL" },
	{ ".strtab last byte", strtab_unterminated,
	  "string table of a symbol table does not end with a NUL" },
	{ ".symtab sh_entsize = 0", symtab_entsize_0,
	  "symbol table entry size is not that of a symbol" },
	{ ".symtab sh_entsize = 1", symtab_entsize_1,
	  "symbol table entry size is not that of a symbol" },
	{ ".symtab sh_size - 1", symtab_size_odd,
	  "symbol table entry size is not that of a symbol" },
	{ ".symtab sh_link out of range", symtab_link_out_of_range,
	  "symbol table's string table index out of range" },
	{ ".symtab sh_link = 0", symtab_link_0,
	  "symbol table's string table index out of range" },
	{ ".symtab sh_link = .text", symtab_link_text,
	  "symbol table linked to a section that is not a string table" },
	{ ".symtab SHF_COMPRESSED", symtab_compressed,
	  "symbol table is compressed" },
	{ ".dynsym sh_entsize = 0", dynsym_entsize_0,
	  "symbol table entry size is not that of a symbol" },
	{ "st_name = .strtab sh_size", st_name_past_strtab,
	  "symbol name outside its string table" },
	{ "st_name = 0xfffffff8", st_name_huge,
	  "symbol name outside its string table" },
	{ ".opd symbol 4 bytes before the end", opd_symbol_past_end,
	  "symbol outside its function descriptor section" },
	{ "e_shstrndx = .text", shstrndx_text,
	  "section name table is not a string table" },
	{ "e_shstrndx out of range", shstrndx_out_of_range,
	  "section name table index out of range" },
	{ ".shstrtab last byte", shstrtab_unterminated,
	  "section name table does not end with a NUL" },
	{ "sh_name past .shstrtab", sh_name_past_shstrtab,
	  "section name outside the section name table" },
	{ "sh_offset past the end", section_past_end,
	  "file is truncated: a section ends past its end" },
	{ "sh_size = 2^64 - 8", section_size_huge,
	  "file is truncated: a section ends past its end" },
	{ "e_shnum = 65535", shnum_65535,
	  "file is truncated: section header table past its end" },
	{ "e_shentsize = 32", shentsize_32,
	  "section header size is not that of this ELF class" },
	{ "e_type = ET_CORE", type_core,
	  "not a relocatable, executable or shared object file" },
	{ "build ID note SHT_NOBITS", note_nobits, "no build ID note" },
	{ "build ID note cut", note_cut, "no build ID note" },
	{ "build ID note n_descsz = 4096", note_descsz_huge,
	  "no build ID note" },
	{ "half of the file", truncated,
	  "file is truncated: section header table past its end" },
	{ "no sections, no note segment", no_sections_no_note,
	  "no build ID note" },
	{ "no sections, a note segment over the file",
	  no_sections_note_over_all, "note sections overlap" },
	{ "a note section over the file", note_section_over_all,
	  "note sections overlap" },
};

static void test_damage(void **state)
{
	const struct damage *d = *state;
	struct image im;
	const char *why;

	load_self(&im);
	d->apply(&im);
	why = verify_image(&im);
	if (!why || strcmp(why, d->why))
		fail_msg("%s: got \"%s\", want \"%s\"", d->name,
			 why ? why : "accepted", d->why);
	free(im.buf);
}

/* A note section perf reads that has no data crashes it (a NULL read). */
static void test_note_without_data(void **state)
{
	int fd = memfd_create("test-verify", MFD_CLOEXEC);
	const char *why = NULL;
	struct image im;

	(void)state;
	load_self(&im);
	note_nobits(&im);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, im.buf, im.size), (ssize_t)im.size);
	assert_int_equal(symprov_verify_elf(fd, &why), -EBADMSG);
	assert_string_equal(why, "build ID note section has no data");
	close(fd);
	free(im.buf);
}

/*
 * A GNU build ID note with an empty description, where libdw finds no
 * note (not SHT_NOTE, no PT_NOTE) but perf reads it by name: no build ID,
 * and nothing compared with one (fuzz_verify found a memcmp() of a NULL
 * pointer there).
 */
static void test_note_empty_description(void **state)
{
	int fd = memfd_create("test-verify", MFD_CLOEXEC);
	const char *why = NULL;
	struct image im;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	int i;

	(void)state;
	load_self(&im);
	eh = ehdr_of(&im);
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(im.buf + eh->e_phoff) + i;

		if (ph->p_type == PT_NOTE)
			ph->p_type = PT_NULL;
	}
	sh = shdr_of(&im, scn_of(&im, ".note.gnu.build-id"));
	sh->sh_type = SHT_PROGBITS;
	((Elf64_Nhdr *)(im.buf + sh->sh_offset))->n_descsz = 0;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, im.buf, im.size), (ssize_t)im.size);
	assert_int_equal(symprov_verify_elf(fd, &why), 0);
	assert_int_equal(symprov_verify_build_id(fd, (const unsigned char *)"",
						 0, &why),
			 -EBADMSG);
	assert_string_equal(why, "no build ID note");
	close(fd);
	free(im.buf);
}

/*
 * Without sections the build ID comes from the note segments, as libdw's
 * dwelf_elf_gnu_build_id() takes it.
 */
static void test_no_sections(void **state)
{
	struct image im;

	(void)state;
	load_self(&im);
	no_sections(&im);
	assert_null(verify_image(&im));
	free(im.buf);
}

/* The .opd symbol as linked, and 8 bytes from the end, are accepted. */
static void test_opd_inside(void **state)
{
	Elf64_Shdr *opd;
	struct image im;

	(void)state;
	load_self(&im);
	assert_null(verify_image(&im));
	opd = shdr_of(&im, scn_of(&im, ".opd"));
	sym_of(&im, "test_opd_entry")->st_value =
		opd->sh_addr + opd->sh_size - 8;
	assert_null(verify_image(&im));
	free(im.buf);
}

/* An empty symbol table needs no string table: perf reads no name. */
static void test_empty_symtab(void **state)
{
	Elf64_Shdr *dynsym;
	struct image im;

	(void)state;
	load_self(&im);
	dynsym = shdr_of(&im, scn_of(&im, ".dynsym"));
	dynsym->sh_size = 0;
	dynsym->sh_link = 0;
	assert_null(verify_image(&im));
	dynsym->sh_entsize = 0; /* but perf divides by its entry size */
	assert_string_equal(verify_image(&im),
			    "symbol table entry size is not that of a symbol");
	free(im.buf);
}

static size_t align_up(size_t n, size_t a)
{
	return a > 1 ? (n + a - 1) / a * a : n;
}

/*
 * A symbols-only copy of @src: the ELF header, the build ID note, .symtab,
 * .strtab, .shstrtab and the section headers; every other section
 * SHT_NOBITS, its offset past the end of the file; no program headers.
 */
static void make_symbols_only(const struct image *src, struct image *dst)
{
	const Elf64_Ehdr *eh = ehdr_of(src);
	size_t symtab = scn_of(src, ".symtab");
	size_t keep[4] = { symtab, shdr_of(src, symtab)->sh_link,
			   eh->e_shstrndx, scn_of(src, ".note.gnu.build-id") };
	size_t i, k, off = sizeof(Elf64_Ehdr);
	Elf64_Shdr *sh;

	dst->buf = calloc(1, src->size);
	assert_non_null(dst->buf);
	memcpy(dst->buf, src->buf, sizeof(Elf64_Ehdr));
	ehdr_of(dst)->e_phoff = 0;
	ehdr_of(dst)->e_phnum = 0;
	sh = malloc(eh->e_shnum * sizeof(*sh));
	assert_non_null(sh);
	memcpy(sh, shdr_of(src, 0), eh->e_shnum * sizeof(*sh));
	for (i = 1; i < eh->e_shnum; i++) {
		for (k = 0; k < 4 && keep[k] != i; k++)
			;
		if (k < 4) {
			off = align_up(off, sh[i].sh_addralign);
			memcpy(dst->buf + off, src->buf + sh[i].sh_offset,
			       sh[i].sh_size);
			sh[i].sh_offset = off;
			off += sh[i].sh_size;
		} else {
			sh[i].sh_type = SHT_NOBITS;
			sh[i].sh_offset = i & 1 ? src->size + (1 << 20) :
						  UINT64_MAX - 4096;
		}
	}
	off = align_up(off, 8);
	memcpy(dst->buf + off, sh, eh->e_shnum * sizeof(*sh));
	ehdr_of(dst)->e_shoff = off;
	dst->size = off + eh->e_shnum * sizeof(*sh);
	free(sh);
}

static void test_symbols_only(void **state)
{
	struct image im, symonly;

	(void)state;
	load_self(&im);
	make_symbols_only(&im, &symonly);
	assert_true(symonly.size < im.size);
	assert_null(verify_image(&symonly));
	/* and damaged, it is still checked */
	strtab_unterminated(&symonly);
	assert_string_equal(
		verify_image(&symonly),
		"string table of a symbol table does not end with a NUL");
	free(symonly.buf);
	free(im.buf);
}

/*
 * A symbol table of ELF class 32 is read as one: TEST_ELF32, linked for
 * i386, passes; a name one past its string table does not.
 */
static void test_class32(void **state)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	const Elf32_Shdr *sh, *symtab = NULL;
	const char *why = NULL;
	const Elf32_Ehdr *eh;
	Elf32_Sym *sym;
	struct image im;
	size_t i;

	(void)state;
	assert_int_equal(symprov_build_id_parse(TEST_ELF32_BUILD_ID, id, &why),
			 20);
	load_file(TEST_ELF32, &im);
	eh = (const Elf32_Ehdr *)im.buf;
	assert_int_equal(im.buf[EI_CLASS], ELFCLASS32);
	sh = (const Elf32_Shdr *)(im.buf + eh->e_shoff);
	for (i = 1; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
	assert_non_null(symtab);
	assert_true(symtab->sh_size >= 2 * sizeof(*sym));
	assert_null(verify_image_as(&im, id));

	sym = (Elf32_Sym *)(im.buf + symtab->sh_offset) + 1;
	sym->st_name = sh[symtab->sh_link].sh_size - 1; /* its last NUL */
	assert_null(verify_image_as(&im, id));
	sym->st_name++;
	assert_string_equal(verify_image_as(&im, id),
			    "symbol name outside its string table");
	free(im.buf);
}

/*
 * The input fuzz_verify stopped at (tests/fuzz/corpus/fuzz_verify/):
 * a note section over the whole file, then the build ID note in a
 * section perf does not read by name.  libdw finds that build ID; the
 * check stopped at the first section and, finding none, accepted the
 * file, then refused it asked for its own build ID.  It now refuses it
 * either way, and says why.
 */
static void test_fuzz_note_sections_overlap(void **state)
{
	static const unsigned char any[20] = { 1 };
	const char *why = NULL;
	int fd;

	(void)state;
	assert_int_equal(verify_file(TEST_FUZZ_OVERLAP, any, sizeof(any), &why),
			 -EBADMSG);
	assert_string_equal(why, "note sections overlap");
	why = NULL;
	fd = open(TEST_FUZZ_OVERLAP, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(symprov_verify_elf(fd, &why), -EBADMSG);
	close(fd);
	assert_string_equal(why, "note sections overlap");
}

/* The checks of each kind (symprov_verify_kind()). */

static unsigned char module_id[SYMPROV_BUILD_ID_MAX];

static void load_module(struct image *im)
{
	load_file(TEST_MODULE, im);
	assert_int_equal(ehdr_of(im)->e_type, ET_REL);
}

static void set_nobits(struct image *im, const char *name)
{
	shdr_of(im, scn_of(im, name))->sh_type = SHT_NOBITS;
}

static void text_nobits(struct image *im)
{
	set_nobits(im, ".text");
}

static void init_text_nobits(struct image *im)
{
	set_nobits(im, ".init.text");
}

static void unlikely_text_nobits(struct image *im)
{
	set_nobits(im, ".text.unlikely");
}

/* perf loads .symtab only as SHT_SYMTAB */
static void symtab_progbits(struct image *im)
{
	shdr_of(im, scn_of(im, ".symtab"))->sh_type = SHT_PROGBITS;
}

static void symtab_null_symbol_only(struct image *im)
{
	Elf64_Shdr *sh = shdr_of(im, scn_of(im, ".symtab"));

	sh->sh_size = sh->sh_entsize;
}

static void type_rel(struct image *im)
{
	ehdr_of(im)->e_type = ET_REL;
}

static void type_dyn(struct image *im)
{
	ehdr_of(im)->e_type = ET_DYN;
}

static Elf64_Phdr *code_segment(const struct image *im)
{
	size_t i;

	for (i = 0; i < ehdr_of(im)->e_phnum; i++) {
		Elf64_Phdr *ph =
			(Elf64_Phdr *)(im->buf + ehdr_of(im)->e_phoff) + i;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			return ph;
	}
	fail_msg("no executable segment");
	return NULL;
}

static void code_segment_no_data(struct image *im)
{
	code_segment(im)->p_filesz = 0;
}

static void code_segment_not_executable(struct image *im)
{
	code_segment(im)->p_flags &= ~PF_X;
}

/*
 * What objcopy --only-keep-debug makes of an executable: every allocated
 * section but the notes without data, the segments without file data.
 */
static void debug_file_of(struct image *im)
{
	size_t i;

	for (i = 1; i < ehdr_of(im)->e_shnum; i++) {
		Elf64_Shdr *sh = shdr_of(im, i);

		if ((sh->sh_flags & SHF_ALLOC) && sh->sh_type != SHT_NOTE)
			sh->sh_type = SHT_NOBITS;
	}
	for (i = 0; i < ehdr_of(im)->e_phnum; i++) {
		Elf64_Phdr *ph =
			(Elf64_Phdr *)(im->buf + ehdr_of(im)->e_phoff) + i;

		if (ph->p_type == PT_LOAD)
			ph->p_filesz = 0;
	}
}

static const struct kind_case {
	const char *name;
	bool module; /* TEST_MODULE, else this executable */
	void (*apply)(struct image *im); /* NULL: as built */
	uint32_t kind;
	const char *why; /* NULL: accepted */
} kind_cases[] = {
	{ "module as a module", true, NULL, SYMPROV_KIND_KERNEL_MODULE, NULL },
	{ "module as debuginfo", true, NULL, SYMPROV_KIND_DEBUGINFO, NULL },
	{ "module as a kernel", true, NULL, SYMPROV_KIND_KERNEL, NULL },
	{ "module as an executable", true, NULL, SYMPROV_KIND_EXECUTABLE,
	  "not an executable or shared object file" },
	{ "module, .text NOBITS", true, text_nobits, SYMPROV_KIND_KERNEL_MODULE,
	  "executable section without data: a separate debug file" },
	{ "module, .init.text NOBITS", true, init_text_nobits,
	  SYMPROV_KIND_KERNEL_MODULE,
	  "executable section without data: a separate debug file" },
	{ "module, .text.unlikely NOBITS", true, unlikely_text_nobits,
	  SYMPROV_KIND_KERNEL_MODULE,
	  "executable section without data: a separate debug file" },
	{ "module, .text NOBITS, as debuginfo", true, text_nobits,
	  SYMPROV_KIND_DEBUGINFO, NULL },
	{ "module, .symtab PROGBITS", true, symtab_progbits,
	  SYMPROV_KIND_KERNEL_MODULE, "no symbol table" },
	{ "module, the null symbol only", true, symtab_null_symbol_only,
	  SYMPROV_KIND_KERNEL_MODULE, "no symbol table" },
	{ "module, ET_DYN", true, type_dyn, SYMPROV_KIND_KERNEL_MODULE,
	  "not a relocatable object file, as a kernel module is" },
	{ "executable as an executable", false, NULL, SYMPROV_KIND_EXECUTABLE,
	  NULL },
	{ "executable as debuginfo", false, NULL, SYMPROV_KIND_DEBUGINFO,
	  NULL },
	{ "executable as a module", false, NULL, SYMPROV_KIND_KERNEL_MODULE,
	  "not a relocatable object file, as a kernel module is" },
	{ "executable, ET_REL", false, type_rel, SYMPROV_KIND_EXECUTABLE,
	  "not an executable or shared object file" },
	{ "executable, code segment without data", false, code_segment_no_data,
	  SYMPROV_KIND_EXECUTABLE,
	  "executable segment without data: a separate debug file" },
	{ "executable, no executable segment", false,
	  code_segment_not_executable, SYMPROV_KIND_EXECUTABLE,
	  "no executable segment" },
	{ "executable, .text NOBITS", false, text_nobits,
	  SYMPROV_KIND_EXECUTABLE,
	  "executable section without data: a separate debug file" },
	{ "executable's debug file as an executable", false, debug_file_of,
	  SYMPROV_KIND_EXECUTABLE,
	  "executable segment without data: a separate debug file" },
	{ "executable's debug file as debuginfo", false, debug_file_of,
	  SYMPROV_KIND_DEBUGINFO, NULL },
	{ "executable's debug file as a kernel", false, debug_file_of,
	  SYMPROV_KIND_KERNEL, NULL },
	{ "executable, .symtab PROGBITS, as debuginfo", false, symtab_progbits,
	  SYMPROV_KIND_DEBUGINFO, "no symbol table" },
	{ "executable, .symtab PROGBITS, as an executable", false,
	  symtab_progbits, SYMPROV_KIND_EXECUTABLE, NULL },
	{ "executable as kind 99", false, NULL, 99, NULL },
};

static void test_kind(void **state)
{
	const struct kind_case *c = *state;
	struct image im;
	const char *why;

	if (c->module)
		load_module(&im);
	else
		load_self(&im);
	if (c->apply)
		c->apply(&im);
	why = verify_image_kind(&im, c->module ? module_id : own_id, c->kind);
	if (c->why ? !why || strcmp(why, c->why) : why != NULL)
		fail_msg("%s: got \"%s\", want \"%s\"", c->name,
			 why ? why : "accepted", c->why ? c->why : "accepted");
	free(im.buf);
}

/*
 * objcopy --only-keep-debug of the module: its build ID and sound tables,
 * a debug file, not a module perf can place symbols in.
 */
static void test_module_debug_copy(void **state)
{
	const char *why = NULL;
	int fd = open(TEST_MODULE ".debug", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(symprov_verify_kind(fd, SYMPROV_KIND_KERNEL_MODULE,
					     module_id, 20, &why),
			 -EBADMSG);
	assert_string_equal(
		why, "executable section without data: a separate debug file");
	assert_int_equal(symprov_verify_kind(fd, SYMPROV_KIND_DEBUGINFO,
					     module_id, 20, &why),
			 0);
	/* the build ID is checked first, whatever the kind */
	module_id[0] ^= 1;
	assert_int_equal(symprov_verify_kind(fd, SYMPROV_KIND_DEBUGINFO,
					     module_id, 20, &why),
			 -EBADMSG);
	module_id[0] ^= 1;
	assert_string_equal(why, "build ID differs from the one asked for");
	close(fd);
}

/* A symbols-only file is a kernel's, or debug info: never a program. */
static void test_symbols_only_kinds(void **state)
{
	struct image im, symonly;

	(void)state;
	load_self(&im);
	make_symbols_only(&im, &symonly);
	assert_null(verify_image_kind(&symonly, own_id, SYMPROV_KIND_KERNEL));
	assert_null(
		verify_image_kind(&symonly, own_id, SYMPROV_KIND_DEBUGINFO));
	assert_string_equal(verify_image_kind(&symonly, own_id,
					      SYMPROV_KIND_EXECUTABLE),
			    "no executable segment");
	free(symonly.buf);
	free(im.buf);
}

int main(void)
{
	static const struct CMUnitTest basics[] = {
		cmocka_unit_test(test_own_build_id),
		cmocka_unit_test(test_other_build_id),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_note_without_data),
		cmocka_unit_test(test_note_empty_description),
		cmocka_unit_test(test_no_sections),
		cmocka_unit_test(test_opd_inside),
		cmocka_unit_test(test_empty_symtab),
		cmocka_unit_test(test_symbols_only),
		cmocka_unit_test(test_class32),
		cmocka_unit_test(test_fuzz_note_sections_overlap),
		cmocka_unit_test(test_module_debug_copy),
		cmocka_unit_test(test_symbols_only_kinds),
	};
	enum { NB = sizeof(basics) / sizeof(basics[0]) };
	enum { ND = sizeof(damages) / sizeof(damages[0]) };
	enum { NK = sizeof(kind_cases) / sizeof(kind_cases[0]) };
	struct CMUnitTest tests[NB + ND + NK];
	const char *why;
	size_t i;

	if (symprov_build_id_parse(TEST_BUILD_ID, own_id, &why) != 20 ||
	    symprov_build_id_parse(TEST_MODULE_BUILD_ID, module_id, &why) != 20)
		return 1;
	memcpy(tests, basics, sizeof(basics));
	for (i = 0; i < ND; i++)
		tests[NB + i] = (struct CMUnitTest){
			.name = damages[i].name,
			.test_func = test_damage,
			.initial_state = (void *)&damages[i],
		};
	for (i = 0; i < NK; i++)
		tests[NB + ND + i] = (struct CMUnitTest){
			.name = kind_cases[i].name,
			.test_func = test_kind,
			.initial_state = (void *)&kind_cases[i],
		};
	return _cmocka_run_group_tests("verify", tests, NB + ND + NK, NULL,
				       NULL);
}
