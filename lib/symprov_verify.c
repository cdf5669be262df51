// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod trusts the server: it does not check that the file it
 * returns carries the build ID it asked for.  Loading a vmlinux of another
 * kernel would put every sample on a wrong symbol, so check it here.
 */
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "symprov_verify.h"

static pthread_once_t symprov_elf_once = PTHREAD_ONCE_INIT;

static void symprov_elf_init(void)
{
	elf_version(EV_CURRENT);
}

/* @len bytes at @off are inside a file of @size bytes. */
static int symprov_inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * A file cut short can keep its build ID note: a body that ended with its
 * connection (no Content-Length), a copy in the cache truncated later.
 * Everything the ELF headers place in the file must be in it.
 */
static int symprov_elf_complete(Elf *elf, int fd)
{
	struct stat st;
	GElf_Ehdr ehdr;
	Elf_Scn *scn = NULL;
	size_t i, n;
	uint64_t size;

	if (fstat(fd, &st) || !gelf_getehdr(elf, &ehdr))
		return -1;
	size = (uint64_t)st.st_size;
	if (elf_getshdrnum(elf, &n))
		return -1;
	if (n &&
	    !symprov_inside(ehdr.e_shoff, (uint64_t)n * ehdr.e_shentsize, size))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			return -1;
		if (shdr.sh_type != SHT_NOBITS &&
		    !symprov_inside(shdr.sh_offset, shdr.sh_size, size))
			return -1;
	}
	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr) ||
		    !symprov_inside(phdr.p_offset, phdr.p_filesz, size))
			return -1;
	}
	return 0;
}

int symprov_verify_build_id(int fd, const unsigned char *build_id, size_t len,
			    const char **why)
{
	const void *found;
	ssize_t found_len;
	Elf *elf;
	int ret = -1;

	pthread_once(&symprov_elf_once, symprov_elf_init);
	/*
	 * Only the headers and the notes are read: pread() them.  Mapping
	 * a 340 MB vmlinux to read a few pages costs four times as much.
	 */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		*why = "not an ELF file";
		goto out;
	}
	found_len = dwelf_elf_gnu_build_id(elf, &found);
	if (found_len <= 0)
		*why = "no build ID note";
	else if ((size_t)found_len != len || memcmp(found, build_id, len) != 0)
		*why = "build ID differs from the one asked for";
	else if (symprov_elf_complete(elf, fd))
		*why = "file is truncated";
	else
		ret = 0;
out:
	elf_end(elf);
	return ret;
}
