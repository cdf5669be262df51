// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbols-only file: an ELF header, the sections dip_layout rebuilt,
 * the data of the note and of the three tables as the server sent them.
 * Sections without data are SHT_NOBITS at the end of the file, so that
 * whoever reads their bytes by file offset reads nothing; a module's
 * .text keeps its offset (dip_layout), where perf maps its code, and its
 * static-call trampolines theirs, with their bytes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate */
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dip_symfile.h"
#include "symprov.h"
#include "symprov_verify.h"

static uint64_t dip_align(uint64_t off, uint64_t align)
{
	return align > 1 ? (off + align - 1) / align * align : off;
}

/* Section @s at @off of @e: 0, or -1 when libelf fails. */
static int dip_add_section(Elf *e, const struct dip_section *s, uint64_t off)
{
	Elf_Scn *scn = elf_newscn(e);
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return -1;
	shdr.sh_name = s->name;
	shdr.sh_type = s->type;
	shdr.sh_flags = s->flags;
	shdr.sh_addr = s->addr;
	shdr.sh_offset = off;
	shdr.sh_size = s->size;
	shdr.sh_link = s->link;
	shdr.sh_info = s->info;
	shdr.sh_addralign = s->align;
	shdr.sh_entsize = s->entsize;
	if (s->data) {
		Elf_Data *d = elf_newdata(scn);

		if (!d)
			return -1;
		/* bytes as sent, in the file's byte order: not converted */
		d->d_buf = (void *)s->data;
		d->d_type = ELF_T_BYTE;
		d->d_size = s->size;
		d->d_align = s->align;
		d->d_version = EV_CURRENT;
	}
	return gelf_update_shdr(scn, &shdr) ? 0 : -1;
}

/*
 * Where the data of the sections placed in order begins: after the ELF
 * header and the data of those that must be at an offset of their own.
 * @first: the lowest such offset, or 0.
 */
static uint64_t dip_data_start(const struct dip_layout *l, size_t ehdr_size,
			       uint64_t *first)
{
	uint64_t start = ehdr_size;
	size_t i;

	*first = 0;
	for (i = 1; i < l->nr; i++) {
		const struct dip_section *s = &l->sec[i];

		if (!s->data || !s->offset)
			continue;
		if (s->offset + s->size > start)
			start = s->offset + s->size;
		if (!*first || s->offset < *first)
			*first = s->offset;
	}
	return start;
}

/*
 * libelf writes zeros between the ELF header and data placed further on
 * (a module's trampolines, after where .text's code would be): give the
 * blocks back where the file system can.
 */
static void dip_punch_gap(int fd, uint64_t from, uint64_t to)
{
	struct stat st;
	uint64_t blk;

	if (to <= from || fstat(fd, &st) || st.st_blksize <= 0)
		return;
	blk = (uint64_t)st.st_blksize;
	from = dip_align(from, blk);
	to = to / blk * blk;
	if (to > from)
		fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)from, (off_t)(to - from));
}

/*
 * The file @l describes, into @fd: 0, or a negative errno (-EIO when
 * libelf failed without one; elf_errmsg() says why).
 */
static int dip_write(const struct dip_layout *l, int fd)
{
	size_t ehdr_size, shdr_size, i;
	uint64_t off, shoff, end, start, first;
	GElf_Ehdr ehdr;
	int ret = -1;
	Elf *e;

	errno = 0;
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !gelf_newehdr(e, l->elfclass) || !gelf_getehdr(e, &ehdr))
		goto out;
	ehdr_size = gelf_fsize(e, ELF_T_EHDR, 1, EV_CURRENT);
	shdr_size = gelf_fsize(e, ELF_T_SHDR, 1, EV_CURRENT);
	/*
	 * The data of sections with an offset of their own, then that of
	 * the others, then the section headers; NOBITS at the end.
	 */
	start = dip_data_start(l, ehdr_size, &first);
	if (first && first < ehdr_size) {
		errno = EINVAL;
		goto out;
	}
	off = start;
	for (i = 1; i < l->nr; i++) {
		if (l->sec[i].data && !l->sec[i].offset)
			off = dip_align(off, l->sec[i].align) + l->sec[i].size;
	}
	shoff = dip_align(off, 8);
	end = shoff + l->nr * shdr_size;
	off = start;
	for (i = 1; i < l->nr; i++) {
		const struct dip_section *s = &l->sec[i];
		uint64_t at = s->offset ? s->offset : end;

		if (s->data && !s->offset) {
			off = dip_align(off, s->align);
			at = off;
			off += s->size;
		}
		if (dip_add_section(e, s, at))
			goto out;
	}
	ehdr.e_ident[EI_DATA] = l->elfdata;
	ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	ehdr.e_type = l->type;
	ehdr.e_machine = l->machine;
	ehdr.e_version = EV_CURRENT;
	ehdr.e_shoff = shoff;
	ehdr.e_shstrndx = (GElf_Half)l->shstrndx;
	if (!gelf_update_ehdr(e, &ehdr))
		goto out;
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	if (elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	dip_punch_gap(fd, ehdr_size, first);
	ret = 0;
out:
	elf_end(e);
	return ret ? (errno ? -errno : -EIO) : 0;
}

int dip_symfile_build(const struct dip_tables *t, const unsigned char *build_id,
		      size_t build_id_len, int fd, size_t *guessed,
		      const char **why)
{
	struct dip_layout l;
	int err;

	symprov_elf_init();
	err = dip_layout_make(t, build_id, build_id_len, &l, why);
	if (err)
		return err;
	*guessed = l.nr_sized_by_symbols;
	err = dip_write(&l, fd);
	if (err) {
		*why = elf_errmsg(-1);
	} else if (symprov_verify_kind(fd,
				       t->module ? SYMPROV_KIND_KERNEL_MODULE :
						   SYMPROV_KIND_KERNEL,
				       build_id, build_id_len, why)) {
		err = -EINVAL;
	}
	dip_layout_free(&l);
	return err;
}
