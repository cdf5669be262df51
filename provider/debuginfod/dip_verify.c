// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod trusts the server: it does not check that the file it
 * returns carries the build ID it asked for.  Loading a vmlinux of another
 * kernel would put every sample on a wrong symbol, so check it here.
 */
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <string.h>

#include "dip_verify.h"

static pthread_once_t dip_elf_once = PTHREAD_ONCE_INIT;

static void dip_elf_init(void)
{
	elf_version(EV_CURRENT);
}

int dip_verify_build_id(int fd, const unsigned char *build_id, size_t len,
			const char **why)
{
	const void *found;
	ssize_t found_len;
	Elf *elf;
	int ret = -1;

	pthread_once(&dip_elf_once, dip_elf_init);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		*why = "not an ELF file";
		goto out;
	}
	found_len = dwelf_elf_gnu_build_id(elf, &found);
	if (found_len <= 0)
		*why = "no build ID note";
	else if ((size_t)found_len != len || memcmp(found, build_id, len) != 0)
		*why = "build ID differs from the one asked for";
	else
		ret = 0;
out:
	elf_end(elf);
	return ret;
}
