/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One libdebuginfod query, verified, with cancellation. */
#ifndef DIP_FETCH_H
#define DIP_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "dip_pool.h"
#include "symprov.h"

enum dip_type {
	DIP_TYPE_DEBUGINFO,
	DIP_TYPE_EXECUTABLE,
};

const char *dip_type_str(enum dip_type type);

/* enum symprov_kind in a log line: "vmlinux", "module"... */
const char *dip_kind_str(uint32_t kind);

/* What one query asks for: a file, or one section of the file. */
struct dip_target {
	enum dip_type type; /* of a file */
	/* a section by name ([A-Za-z0-9._-]), or NULL for the file */
	const char *section;
	/* libdebuginfod's cache entry: "debuginfo", "section-.symtab" */
	const char *what;
	/* most bytes accepted, 0 for no bound beyond DEBUGINFOD_MAXSIZE */
	long long max;
};

/*
 * Ask the servers for @type of @req's build ID.  Returns an enum
 * symprov_status; on SYMPROV_FOUND *path is malloc()ed and names a file
 * that is ELF with exactly that build ID, of the kind @req asks for
 * (symprov_verify_kind()).  *err gets a positive errno detail of a
 * failure.  A file that fails the check is logged and removed from the
 * client cache.  @req is the provider's own copy; @host_req, as the host
 * passed it, goes back to host->progress().
 */
int dip_fetch(struct dip_client_pool *pool, const struct symprov_host *host,
	      const struct symprov_request *req,
	      const struct symprov_request *host_req, enum dip_type type,
	      char **path, int *err);

/*
 * The same for @t.  A section is not checked (it is no ELF file): only
 * its size against the one announced and t->max.  A server that serves
 * no sections (libdebuginfod 0.188 then starts to download the whole
 * file: stopped here) is SYMPROV_NOT_FOUND with *err EOPNOTSUPP; a
 * section over t->max is SYMPROV_UNAVAILABLE with *err EFBIG.  With
 * @fdp, *fdp gets the file open for reading (close it) on SYMPROV_FOUND.
 * A process fetching @t meanwhile is waited for (dip_lock), and the cache
 * then answers; SYMPROV_CANCELLED when the host stopped the wait.
 */
int dip_fetch_target(struct dip_client_pool *pool,
		     const struct symprov_host *host,
		     const struct symprov_request *req,
		     const struct symprov_request *host_req,
		     const struct dip_target *t, char **path, int *fdp,
		     int *err);

#endif /* DIP_FETCH_H */
