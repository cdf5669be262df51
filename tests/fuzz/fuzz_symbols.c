// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the symbols-only file builder on hostile sections.
 * The input is a flag byte, then .shstrtab, the note, .symtab and .strtab,
 * each as a 2-byte little-endian length and its bytes.  Flag bit 0 puts a
 * valid build-ID note for the asked build ID in front of the fuzzed one,
 * so that the fuzzer gets past the note; bit 1 reads the note name from
 * .shstrtab as the provider does, else from the input's first note name;
 * bit 4 builds a kernel module's file instead of a vmlinux's; bit 5 adds
 * a fifth field, a module's static-call trampolines.  Whatever
 * is built must pass symprov_verify_kind() for that kind.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dip_symfile.h"
#include "symprov.h"
#include "symprov_verify.h"

static const unsigned char id[20] = { 0x5e, 0x1f, 0xf0, 0x22, 1, 2, 3 };

static size_t take(const uint8_t **p, size_t *left, const uint8_t **out)
{
	size_t n;

	if (*left < 2) {
		*out = *p;
		return 0;
	}
	n = (size_t)(*p)[0] | (size_t)(*p)[1] << 8;
	*p += 2;
	*left -= 2;
	if (n > *left)
		n = *left;
	*out = *p;
	*p += n;
	*left -= n;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { ".note.gnu.build-id", ".notes",
					     ".note" };
	const uint8_t *p = data, *shstrtab, *note, *symtab, *strtab;
	struct dip_tables t = { 0 };
	unsigned char *with_id = NULL;
	size_t left = size, guessed;
	const char *why = NULL;
	unsigned flags;
	int fd;

	if (!size)
		return 0;
	flags = *p++;
	left--;
	t.module = flags & 16;
	t.shstrtab_len = take(&p, &left, &shstrtab);
	t.note_len = take(&p, &left, &note);
	t.symtab_len = take(&p, &left, &symtab);
	t.strtab_len = take(&p, &left, &strtab);
	t.shstrtab = shstrtab;
	t.symtab = symtab;
	t.strtab = strtab;
	t.note = note;
	if (flags & 32) {
		const uint8_t *trampolines;

		t.trampolines_len = take(&p, &left, &trampolines);
		t.trampolines = trampolines;
		t.trampolines_name = ".static_call.text";
	}
	if (flags & 1) {
		/* namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU", the ID */
		with_id = malloc(36 + t.note_len);
		if (!with_id)
			return 0;
		memcpy(with_id, "\4\0\0\0\24\0\0\0\3\0\0\0GNU", 16);
		memcpy(with_id + 16, id, sizeof(id));
		memcpy(with_id + 36, note, t.note_len);
		t.note = with_id;
		t.note_len += 36;
	}
	if (flags & 2)
		t.note_name =
			dip_layout_note_name(t.shstrtab, t.shstrtab_len, &why);
	else
		t.note_name = names[(flags >> 2) % 3];
	fd = memfd_create("fuzz-symbols", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	why = NULL;
	if (dip_symfile_build(&t, id, sizeof(id), fd, &guessed, &why)) {
		if (!why)
			abort(); /* every failure says why */
	} else if (symprov_verify_kind(fd,
				       t.module ? SYMPROV_KIND_KERNEL_MODULE :
						  SYMPROV_KIND_KERNEL,
				       id, sizeof(id), &why)) {
		abort(); /* built, but not what was asked for */
	}
	close(fd);
	free(with_id);
	return 0;
}
