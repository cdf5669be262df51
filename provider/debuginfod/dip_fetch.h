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
 * Ask the servers for @type of @req's build ID.  Returns 0 when found,
 * with *path malloc()ed, naming a file that is ELF with exactly that
 * build ID, of the kind @req asks for (symprov_verify_kind()); else a
 * negative errno, as libdebuginfod's:
 *   -ENOENT      no server has it (a 404): a miss to trust
 *   -ENOSYS      no server configured
 *   -ECANCELED   host->progress() said to stop
 *   -EFBIG       over DEBUGINFOD_MAXSIZE or the target's bound
 *   -EBADMSG     it failed the check (logged, and out of the client cache)
 *   -EAGAIN      a server failed where libdebuginfod saw a miss
 *   -EOPNOTSUPP  a section only: the servers serve no sections
 * or another one of a failure that may pass.  @req is the provider's own
 * copy; @host_req, as the host passed it, goes back to host->progress().
 */
int dip_fetch(struct dip_client_pool *pool, const struct symprov_host *host,
	      const struct symprov_request *req,
	      const struct symprov_request *host_req, enum dip_type type,
	      char **path);

/*
 * The same for @t.  A section is not checked (it is no ELF file): only
 * its size against the one announced and t->max.  A server that serves
 * no sections (libdebuginfod then starts to download the whole file:
 * stopped here) is -EOPNOTSUPP; a section over t->max is -EFBIG.  With
 * @fdp, *fdp gets the file open for reading (close it) when found.  A
 * process fetching @t meanwhile is waited for (dip_lock), and the cache
 * then answers; -ECANCELED when the host stopped the wait.
 */
int dip_fetch_target(struct dip_client_pool *pool,
		     const struct symprov_host *host,
		     const struct symprov_request *req,
		     const struct symprov_request *host_req,
		     const struct dip_target *t, char **path, int *fdp);

#endif /* DIP_FETCH_H */
