/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The section table of a kernel's symbols-only file, rebuilt from the
 * sections a debuginfod server serves one by one.
 */
#ifndef DIP_LAYOUT_H
#define DIP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds of what is taken from a server, in bytes. */
#define DIP_LAYOUT_SHSTRTAB_MAX (1U << 20)
#define DIP_LAYOUT_NOTE_MAX (1U << 16)
#define DIP_LAYOUT_TABLE_MAX (1U << 30) /* .symtab, .strtab */
#define DIP_LAYOUT_TRAMPOLINES_MAX (1U << 20)
/* x86's static-call trampolines, which a module's symbols-only file keeps */
#define DIP_LAYOUT_TRAMPOLINES ".static_call.text"
/* A module's .text, which the file skips to place its trampolines. */
#define DIP_LAYOUT_TEXT_MAX (64U << 20)
/* Most sections rebuilt: a vmlinux has under a hundred. */
#define DIP_LAYOUT_SECTIONS_MAX 8192

/* The sections fetched, as the server sent them. */
struct dip_tables {
	bool module; /* a kernel module's (ET_REL), else a vmlinux's */
	const unsigned char *shstrtab;
	size_t shstrtab_len;
	const char *note_name; /* the name of the note section fetched */
	const unsigned char *note;
	size_t note_len;
	const unsigned char *symtab;
	size_t symtab_len;
	const unsigned char *strtab;
	size_t strtab_len;
	/*
	 * A module's static-call trampolines: the name of their section,
	 * if fetched (dip_layout_trampolines_name()), and their bytes.
	 */
	const char *trampolines_name;
	const unsigned char *trampolines;
	size_t trampolines_len;
};

struct dip_section {
	uint32_t name; /* offset in .shstrtab */
	uint32_t type; /* SHT_* */
	uint64_t flags;
	uint64_t addr;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t align;
	uint64_t entsize;
	const void *data; /* size bytes, or NULL (SHT_NOBITS, SHT_NULL) */
	/*
	 * A section without data: its offset, or 0 for the end of the file.
	 * With data: the offset it must have, or 0 for one after the data
	 * of the sections that must have theirs.
	 */
	uint64_t offset;
};

struct dip_layout {
	unsigned char elfclass; /* ELFCLASS32, ELFCLASS64 */
	unsigned char elfdata; /* ELFDATA2LSB, ELFDATA2MSB */
	uint16_t type; /* ET_EXEC, ET_REL */
	uint16_t machine;
	size_t shstrndx;
	size_t nr; /* sections, the null one at index 0 included */
	struct dip_section *sec;
	/* sections whose size is the extent of their symbols: a guess */
	size_t nr_sized_by_symbols;
};

/*
 * Which note section to fetch for @shstrtab's file: the one perf reads
 * the build ID from.  NULL (and *why) when this file cannot be rebuilt
 * from its sections whatever they hold.
 */
const char *dip_layout_note_name(const unsigned char *shstrtab, size_t len,
				 const char **why);

/*
 * Whether @shstrtab's file may have static-call trampolines, which a
 * module's symbols-only file keeps (dip_tables.trampolines): the name of
 * their section, or NULL.
 */
const char *dip_layout_trampolines_name(const unsigned char *shstrtab,
					size_t len);

/*
 * Rebuild the section table from @t for the file with @build_id: a
 * vmlinux's, or a kernel module's when @t->module.
 * Returns 0, or -EINVAL when the sections do not make it certain (*why
 * says what), -ENOMEM.  @l points into @t: keep @t until @l is freed.
 */
int dip_layout_make(const struct dip_tables *t, const unsigned char *build_id,
		    size_t build_id_len, struct dip_layout *l,
		    const char **why);

void dip_layout_free(struct dip_layout *l);

#endif /* DIP_LAYOUT_H */
