/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Check that a file a server sent is what was asked for, and harmless. */
#ifndef SYMPROV_VERIFY_H
#define SYMPROV_VERIFY_H

#include <stddef.h>
#include <stdint.h>

/* libelf's elf_version(), once a process: before any libelf call */
void symprov_elf_init(void);

/*
 * 0 when @fd is an ELF file that symprov_verify_elf() accepts, whose GNU
 * build ID note is exactly @build_id (@len bytes) and that is what a host
 * asking for @kind (enum symprov_kind) can use:
 * - SYMPROV_KIND_KERNEL_MODULE: a relocatable object (ET_REL) with a
 *   symbol table and every executable section's data: perf 6.12 places a
 *   module's symbols by the file offsets of its sections, which a debug-only
 *   copy (objcopy --only-keep-debug) does not keep;
 * - SYMPROV_KIND_EXECUTABLE: an executable or shared object (ET_EXEC,
 *   ET_DYN) that is the runtime object, not its separate debug file: its
 *   executable segments and sections have data (perf 6.12 reads the PLT
 *   and its relocations of it, and crashes on a debug file's);
 * - SYMPROV_KIND_DEBUGINFO: a symbol table (.symtab); the code may have no
 *   data;
 * - SYMPROV_KIND_KERNEL and kinds this does not know: nothing more.
 * Otherwise -EBADMSG and *why says what is wrong (a static string).
 */
int symprov_verify_kind(int fd, uint32_t kind, const unsigned char *build_id,
			size_t len, const char **why);

/* symprov_verify_kind() of a kernel: the build ID and the structure. */
int symprov_verify_build_id(int fd, const unsigned char *build_id, size_t len,
			    const char **why);

/*
 * 0 when every header and table of the ELF file @fd that a symbol loader
 * (perf 6.12's util/symbol-elf.c) reads without checking is sound:
 * - the ELF header, the section and program header tables and every
 *   section but SHT_NOBITS lie inside the file (so every count is bounded
 *   by its size);
 * - the section name table is a string table and every section's name is
 *   a NUL-terminated string inside it;
 * - every symbol table (SHT_SYMTAB, SHT_DYNSYM) has the entry size of a
 *   symbol and a size that is a multiple of it, is linked to a string
 *   table ending in NUL, and every symbol's name lies inside that table;
 *   a symbol perf reads a function descriptor for (.opd) points inside it;
 * - the notes of the section perf reads the build ID from
 *   (.note.gnu.build-id, else .notes, else .note) lie inside it, and its
 *   GNU build ID, if any, is the one of the file.
 * Otherwise -EBADMSG and *why says what is wrong (a static string).  The cost is
 * proportional to the number of sections and symbols; the file's data is
 * not read otherwise.
 */
int symprov_verify_elf(int fd, const char **why);

#endif /* SYMPROV_VERIFY_H */
