/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One libdebuginfod query, verified, with cancellation. */
#ifndef DIP_FETCH_H
#define DIP_FETCH_H

#include <stddef.h>

#include "dip_pool.h"
#include "symprov.h"

enum dip_type {
	DIP_TYPE_DEBUGINFO,
	DIP_TYPE_EXECUTABLE,
};

const char *dip_type_str(enum dip_type type);

/*
 * Ask the servers for @type of @req's build ID.  Returns an enum
 * symprov_status; on SYMPROV_FOUND *path is malloc()ed and names a file
 * that is ELF with exactly that build ID.  *err gets a positive errno
 * detail of a failure.  A file that fails the check is logged and
 * removed from the client cache.  @req is the provider's own copy;
 * @host_req, as the host passed it, goes back to host->progress().
 */
int dip_fetch(struct dip_client_pool *pool, const struct symprov_host *host,
	      const struct symprov_request *req,
	      const struct symprov_request *host_req, enum dip_type type,
	      char **path, int *err);

#endif /* DIP_FETCH_H */
