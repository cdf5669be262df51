/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A kernel's symbols without its whole debuginfo: section queries. */
#ifndef DIP_SYMBOLS_H
#define DIP_SYMBOLS_H

#include "dip_pool.h"
#include "symprov.h"

/*
 * The symbols-only file in the client cache: ROOT/BUILDID/<this>.
 * libdebuginfod ages only "debuginfo", "executable" and "source*" there
 * (debuginfod_clean_cache(), 0.188 to 0.196; "hdr*" too from 0.193); its
 * source files are named "source##" and their path, so this one is aged
 * like them and never taken for one.
 */
#define DIP_SYMBOLS_FILE "source-symprov-symbols"

/*
 * The symbols-only file of the kernel @req names: from the client cache,
 * or built from the sections the servers send (.shstrtab, the build-ID
 * note, .symtab, .strtab) and kept there.  Returns 0 with *path
 * malloc()ed; -EOPNOTSUPP when the whole file is the answer: it is in the
 * cache, or the servers or the sections cannot give a certain
 * symbols-only file (said in the log); or a negative errno as
 * dip_fetch()'s.  A process making it meanwhile is waited for (dip_lock).
 * @req and @host_req as for dip_fetch().
 */
int dip_symbols_fetch(struct dip_client_pool *pool,
		      const struct symprov_host *host,
		      const struct symprov_request *req,
		      const struct symprov_request *host_req, char **path);

/*
 * A whole file was found for @req: the symbols-only file goes, and so do
 * the misses of sections libdebuginfod cached.
 */
void dip_symbols_superseded(const struct symprov_request *req);

#endif /* DIP_SYMBOLS_H */
