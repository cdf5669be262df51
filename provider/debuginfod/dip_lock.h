/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One download of a file for the processes that want it at once. */
#ifndef DIP_LOCK_H
#define DIP_LOCK_H

#include <limits.h>

#include "symprov.h"

struct dip_lock {
	int fd; /* -1: not held */
	char path[PATH_MAX];
};

/*
 * Take the lock on @what ("debuginfo", "section-.symtab", "symbols") of
 * the build ID @hex, an flock() on ROOT/@hex/source-symprov-lock-@what in
 * libdebuginfod's cache, waiting while another process holds it and
 * calling host->progress() meanwhile.  0, also when there is no lock to
 * be had (no cache, a cache that cannot be written: l->fd is -1) or the
 * holder has written nothing to the cache for DEBUGINFOD_TIMEOUT seconds;
 * -ECANCELED when host->progress() said to stop.  @req goes to
 * host->progress().  Release it with dip_lock_release() in any case.
 */
int dip_lock_take(struct dip_lock *l, const struct symprov_host *host,
		  const struct symprov_request *req, const char *hex,
		  const char *what);

/* Release it, and remove its file. */
void dip_lock_release(struct dip_lock *l);

#endif /* DIP_LOCK_H */
