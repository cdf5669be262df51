/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Write a kernel's symbols-only ELF file. */
#ifndef DIP_SYMFILE_H
#define DIP_SYMFILE_H

#include <stddef.h>

#include "dip_layout.h"

/*
 * Write the ELF file @l describes to @fd (open for reading and writing,
 * empty), then check it as a fetched file is checked: it must carry
 * @build_id.  Returns 0, -EINVAL (*why says why: the tables do not make
 * the file certain, or the result failed its check), or another -errno
 * (*why too) when writing failed.  *guessed: sections sized by their
 * symbols (dip_layout).
 */
int dip_symfile_build(const struct dip_tables *t, const unsigned char *build_id,
		      size_t build_id_len, int fd, size_t *guessed,
		      const char **why);

#endif /* DIP_SYMFILE_H */
