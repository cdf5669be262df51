/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Build IDs as text: what users type and what logs show. */
#ifndef SYMPROV_BUILDID_H
#define SYMPROV_BUILDID_H

#include <stddef.h>

#include "symprov.h"

/* Room for the hex form of the longest build ID and its NUL. */
#define SYMPROV_BUILD_ID_HEX_MAX (2 * SYMPROV_BUILD_ID_MAX + 1)

/*
 * Parse @hex, 2 to 2 * SYMPROV_BUILD_ID_MAX hex digits, an even number of
 * them, into @out.  Returns the number of bytes, or -1 with *why set.
 */
int symprov_build_id_parse(const char *hex, unsigned char *out,
			   const char **why);

/* Lowercase hex of @len bytes into @buf (SYMPROV_BUILD_ID_HEX_MAX). */
char *symprov_build_id_hex(const unsigned char *id, size_t len, char *buf);

#endif /* SYMPROV_BUILDID_H */
