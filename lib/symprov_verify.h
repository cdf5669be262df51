/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Check that a file a server sent is what was asked for. */
#ifndef SYMPROV_VERIFY_H
#define SYMPROV_VERIFY_H

#include <stddef.h>

/*
 * 0 when @fd is an ELF file whose GNU build ID note is exactly @build_id
 * (@len bytes); otherwise -1 and *why says what is wrong.
 */
int symprov_verify_build_id(int fd, const unsigned char *build_id, size_t len,
			    const char **why);

#endif /* SYMPROV_VERIFY_H */
