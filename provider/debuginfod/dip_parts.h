/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Parts of one request fetched side by side, under one progress. */
#ifndef DIP_PARTS_H
#define DIP_PARTS_H

#include <stddef.h>

#include "symprov.h"

/* One part: a section of the file a request asks for. */
struct dip_part {
	const char *name;
	long long max; /* most bytes accepted */
	unsigned char *buf; /* what came, malloc()ed; the caller frees it */
	size_t len;
	int err; /* 0, or a negative errno */
};

/*
 * Fetch @part through @host, which stands for the request's host: its
 * log and config are the host's, its progress is the sum of the parts'.
 * Returns part->err.
 */
typedef int (*dip_part_fn)(const struct symprov_host *host,
			   struct dip_part *part, void *arg);

/*
 * @fn(host, part, @arg) for each of the @n @parts, side by side in
 * threads (one after the other where no thread can be made), for the
 * request @req of @host.  Returns 0 when every part came, else the error
 * of the first part in order that failed.
 */
int dip_parts_get(const struct symprov_host *host,
		  const struct symprov_request *req, struct dip_part *parts,
		  size_t n, dip_part_fn fn, void *arg);

#endif /* DIP_PARTS_H */
