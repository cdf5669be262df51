/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Check that a file a server sent is what was asked for, and harmless. */
#ifndef SYMPROV_VERIFY_H
#define SYMPROV_VERIFY_H

#include <stddef.h>

/*
 * 0 when @fd is an ELF file that symprov_verify_elf() accepts and whose GNU
 * build ID note is exactly @build_id (@len bytes); otherwise -1 and *why
 * says what is wrong (a static string).
 */
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
 * Otherwise -1 and *why says what is wrong (a static string).  The cost is
 * proportional to the number of sections and symbols; the file's data is
 * not read otherwise.
 */
int symprov_verify_elf(int fd, const char **why);

#endif /* SYMPROV_VERIFY_H */
