/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What libdebuginfod's verbose log tells: is its "not found" a miss? */
#ifndef DIP_MISS_H
#define DIP_MISS_H

#include <stdbool.h>
#include <sys/types.h>

#include "symprov.h"

/*
 * The verbose log (@vfd, a memfd given to debuginfod_set_verbose_fd())
 * of a query that ended in -ENOENT shows a failure that is not a 404.
 */
bool dip_miss_log_says_transient(int vfd);

/*
 * The log shows that a query for a section went on to download the
 * whole file (debuginfod_find_section() does so when a server has no
 * section support, every release up to 0.196).  It is read from *@from
 * on, which moves past what said nothing: a progress callback that asks
 * at each call reads each line once.
 */
bool dip_miss_log_says_whole_file(int vfd, off_t *from);

/*
 * The log shows that a server's body has begun to come: before that, a
 * server may still be preparing the file.  Read from *@from on, as above.
 */
bool dip_miss_log_says_body_came(int vfd, off_t *from);

/* What the log of a whole query says of libdebuginfod's own retries. */
struct dip_retries {
	int retries; /* "Retry failed query" lines */
	/*
	 * A retry followed an attempt that had written to the file: what
	 * the retry got was written after those bytes (every release up to
	 * 0.196 keeps the file's offset).
	 */
	bool appended;
	bool committed; /* the attempt going on had written (parser state) */
	/* a server answered after the last retry; false: it was dropped */
	bool answered;
};

void dip_miss_log_retries(int vfd, struct dip_retries *r);

/*
 * A server the log shows not answering: @url as the log names it
 * (".../buildid"), @why in words ("sent nothing in 10 s"), @err as
 * libdebuginfod's errno of it (ETIME).
 */
typedef void (*dip_down_fn)(const char *url, const char *why, int err,
			    void *arg);

/*
 * @fn for each server that the log of a query shows down in one of its
 * attempts: a connection refused, reset or closed without a reply, a name
 * that does not resolve, or DEBUGINFOD_TIMEOUT without a byte of the body
 * (a transfer that stalls after its first bytes is a server that
 * answers).
 */
void dip_miss_log_servers_down(int vfd, dip_down_fn fn, void *arg);

/* Copy that log to @to, for a user who asked for it. */
void dip_miss_log_copy(int vfd, int to);

/*
 * The cache holds a fresh miss marker for @type of @hex beside a download
 * that is landing: wait for it (5 s at most, while host->progress lets
 * us).  True when the file is there now.
 */
bool dip_miss_wait_landing(const struct symprov_host *host,
			   const struct symprov_request *req, const char *hex,
			   const char *type);

#endif /* DIP_MISS_H */
