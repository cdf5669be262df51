// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One query through libdebuginfod: it does the HTTP, the server list, the
 * retries, the limits (DEBUGINFOD_TIMEOUT, _MAXTIME, _MAXSIZE) and the
 * client cache; this adds the check of what came back, a miss told from a
 * failure (a negative errno, dip_fetch.h) and the host's progress and
 * cancellation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_fetch.h"
#include "dip_lock.h"
#include "dip_log.h"
#include "dip_miss.h"
#include "dip_pool.h"
#include "symprov_verify.h"
#include "symprov_buildid.h"

const char *dip_type_str(enum dip_type type)
{
	return type == DIP_TYPE_DEBUGINFO ? "debuginfo" : "executable";
}

const char *dip_kind_str(uint32_t kind)
{
	switch (kind) {
	case SYMPROV_KIND_KERNEL:
		return "vmlinux";
	case SYMPROV_KIND_KERNEL_MODULE:
		return "module";
	case SYMPROV_KIND_DEBUGINFO:
		return "debug info";
	case SYMPROV_KIND_EXECUTABLE:
		return "executable";
	default:
		return "file";
	}
}

struct dip_query {
	const struct symprov_host *host;
	const struct symprov_request *req;
	const struct dip_target *target;
	bool cancelled;
	int limit; /* -EFBIG: cancelled by us, over DEBUGINFOD_MAXSIZE */
	long maxsize;
	int vfd; /* the verbose log, or -1 */
	bool whole; /* cancelled by us: a section query turned into a file's */
	long long length; /* the body's Content-Length, or -1 */
	bool setup; /* holds dip_setup_lock */
};

/*
 * libdebuginfod 0.188 closes a file twice at the start of every query
 * (debuginfod_config_cache(): fclose() of an fdopen()ed descriptor, then
 * close() of it): a file another thread opened in between loses its
 * descriptor, and a download fails or, worse, goes to the wrong file.  A
 * query opens its files (the cache's, the download's, the sockets) before
 * its transfer starts: until then one query of this process at a time,
 * the transfers side by side.  The lock goes at the first progress call
 * of the query, or when it returns.
 */
static pthread_mutex_t dip_setup_lock = PTHREAD_MUTEX_INITIALIZER;

static void dip_setup_done(struct dip_query *q)
{
	if (q->setup) {
		q->setup = false;
		pthread_mutex_unlock(&dip_setup_lock);
	}
}

static int dip_progressfn(debuginfod_client *client, long done, long total)
{
	struct dip_query *q = debuginfod_get_user_data(client);
	int action;

	dip_setup_done(q);
	/*
	 * debuginfod_find_section() of 0.188 downloads the whole debuginfo
	 * when a server answers 503 (no section support): the caller decides
	 * that, verified and said, not this query, whatever its size: a
	 * section's bound is not the file's.
	 */
	if (q->target->section && q->vfd >= 0 &&
	    dip_miss_log_says_whole_file(q->vfd)) {
		q->whole = true;
		return 1;
	}
	/*
	 * libdebuginfod checks DEBUGINFOD_MAXSIZE against Content-Length
	 * only; without one, count the bytes.  (Before a server sends, @done
	 * counts loops, far under any sensible size.)
	 */
	if (q->maxsize > 0 && total <= 0 && done > q->maxsize) {
		q->limit = -EFBIG;
		return 1;
	}
	/* libdebuginfod passes the winning server's Content-Length */
	if (total > 0)
		q->length = total;
	if (q->target->max &&
	    (total > q->target->max || done > q->target->max)) {
		q->limit = -EFBIG;
		return 1;
	}
	if (!q->host->progress)
		return 0;
	action = q->host->progress(q->host->data, q->req,
				   done > 0 ? (uint64_t)done : 0,
				   total > 0 ? (uint64_t)total : 0);
	if (action != SYMPROV_PROGRESS_CONTINUE)
		q->cancelled = true;
	return q->cancelled;
}

/* The body's size, as the debuginfod server announced it, or -1. */
static long long dip_announced_size(debuginfod_client *client)
{
	const char *h = debuginfod_get_headers(client);
	static const char name[] = "x-debuginfod-size:";

	for (; h && *h; h = strchr(h, '\n') ? strchr(h, '\n') + 1 : "") {
		if (!strncasecmp(h, name, sizeof(name) - 1))
			return strtoll(h + sizeof(name) - 1, NULL, 10);
	}
	return -1;
}

static int dip_query_once(debuginfod_client *client, const struct dip_target *t,
			  const struct symprov_request *req, char **file)
{
	struct dip_query *q = debuginfod_get_user_data(client);
	int fd;

	pthread_mutex_lock(&dip_setup_lock);
	q->setup = true;
	if (t->section)
		fd = debuginfod_find_section(client, req->build_id,
					     (int)req->build_id_len, t->section,
					     file);
	else if (t->type == DIP_TYPE_DEBUGINFO)
		fd = debuginfod_find_debuginfo(client, req->build_id,
					       (int)req->build_id_len, file);
	else
		fd = debuginfod_find_executable(client, req->build_id,
						(int)req->build_id_len, file);
	dip_setup_done(q);
	return fd;
}

int dip_fetch(struct dip_client_pool *pool, const struct symprov_host *host,
	      const struct symprov_request *req,
	      const struct symprov_request *host_req, enum dip_type type,
	      char **path)
{
	struct dip_target t = { .type = type, .what = dip_type_str(type) };

	return dip_fetch_target(pool, host, req, host_req, &t, path, NULL);
}

/* dip_fetch_target() of @hex, req's build ID, once no other process does. */
static int dip_fetch_alone(struct dip_client_pool *pool,
			   const struct symprov_host *host,
			   const struct symprov_request *req,
			   const struct symprov_request *host_req,
			   const struct dip_target *t, const char *hex,
			   char **path, int *fdp)
{
	struct dip_query q = { .host = host,
			       .req = host_req,
			       .target = t,
			       .vfd = -1,
			       .length = -1 };
	debuginfod_client *client;
	const char *why, *env, *url;
	char *file = NULL, server[512] = "";
	long long announced, size;
	bool transient = false;
	struct stat st;
	int fd, vfd = -1;
	bool cached;

	env = getenv("DEBUGINFOD_MAXSIZE");
	q.maxsize = env ? strtol(env, NULL, 10) : 0;
	env = getenv("DEBUGINFOD_VERBOSE");
	client = dip_client_get(pool);
	if (!client)
		return -ENOMEM;
	/*
	 * The log tells a 5xx from a 404 (dip_miss.c); a user who asked
	 * for it (DEBUGINFOD_VERBOSE) still gets it, after the query.  A
	 * file in the cache asks no server: writing the log would be a
	 * quarter of the lookup, and a miss now would be no 404 to trust.
	 */
	cached = !(env && *env) &&
		 dip_cache_entry(hex, t->what) == DIP_ENTRY_FILE;
	if (!cached)
		vfd = memfd_create("dip-verbose", MFD_CLOEXEC);
	if (vfd >= 0)
		debuginfod_set_verbose_fd(client, vfd);
	q.vfd = vfd;
	debuginfod_set_user_data(client, &q);
	debuginfod_set_progressfn(client, dip_progressfn);
	fd = dip_query_once(client, t, req, &file);
	if (fd == -ENOENT && !q.cancelled && !q.whole)
		transient = cached ||
			    (vfd >= 0 && dip_miss_log_says_transient(vfd));
	if (fd == -ENOENT && !q.cancelled && !q.whole && !transient &&
	    dip_miss_wait_landing(host, host_req, hex, t->what)) {
		/* served from the cache now */
		q.length = -1;
		fd = dip_query_once(client, t, req, &file);
	}
	/*
	 * The size the body must have.  A section's is its Content-Length:
	 * debuginfod 0.188 announces the whole file's (X-DEBUGINFOD-SIZE)
	 * for a section of a file it has just extracted from an archive.
	 */
	announced = fd >= 0 ? dip_announced_size(client) : -1;
	size = t->section || announced < 0 ? q.length : announced;
	/* the client goes back to the pool: keep the server a warning names */
	url = fd >= 0 ? debuginfod_get_url(client) : NULL;
	if (url) {
		char *cut;

		snprintf(server, sizeof(server), "%s", url);
		cut = strstr(server, "/buildid/");
		if (cut)
			*cut = '\0';
	}
	if (vfd >= 0) {
		debuginfod_set_verbose_fd(client, -1);
		if (env && *env)
			dip_miss_log_copy(vfd, STDERR_FILENO);
		close(vfd);
	}
	debuginfod_set_user_data(client, NULL);
	dip_client_put(pool, client);

	if (q.whole) {
		if (fd >= 0)
			close(fd);
		free(file);
		/* the cancelled download left misses for the whole file */
		dip_cache_forget_miss(hex, "debuginfo");
		dip_cache_forget_miss(hex, "executable");
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: the server serves no sections", hex, t->what);
		return -EOPNOTSUPP;
	}
	if (q.limit && !q.cancelled) {
		if (fd >= 0)
			close(fd);
		free(file);
		dip_cache_forget_miss(hex, t->what);
		return q.limit;
	}
	if (transient) {
		/* Not a statement that the file does not exist: forget it. */
		dip_cache_forget_miss(hex, t->what);
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: server error, not a miss", hex, t->what);
		return -EAGAIN;
	}
	if (q.cancelled) {
		if (fd >= 0)
			close(fd);
		free(file);
		if (dip_cache_forget_miss(hex, t->what))
			dip_log(host, SYMPROV_LOG_DEBUG,
				"%s %s: cancelled, dropped the miss libdebuginfod cached for it",
				hex, t->what);
		return -ECANCELED;
	}
	if (fd < 0) {
		dip_log(host, SYMPROV_LOG_DEBUG, "%s %s: %s", hex, t->what,
			strerror(-fd));
		return fd;
	}

	/*
	 * libdebuginfod 0.188 retries a failed transfer into the same file,
	 * after what the failed one wrote: check the size the server gave.
	 */
	if (size >= 0 && (fstat(fd, &st) || st.st_size != size))
		why = "size differs from the one the server announced";
	else if (!t->section &&
		 symprov_verify_kind(fd, req->kind, req->build_id,
				     req->build_id_len, &why))
		;
	else
		why = NULL;
	if (why) {
		close(fd);
		/* no URL: libdebuginfod found it in its cache */
		dip_log(host, SYMPROV_LOG_WARN,
			"build ID %s: %s from %s rejected: %s; removed from the cache",
			hex, t->what, *server ? server : "the client cache",
			why);
		/* Served from the cache next time otherwise. */
		if (file)
			unlink(file);
		free(file);
		return -EBADMSG;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	*path = file;
	return 0;
}

int dip_fetch_target(struct dip_client_pool *pool,
		     const struct symprov_host *host,
		     const struct symprov_request *req,
		     const struct symprov_request *host_req,
		     const struct dip_target *t, char **path, int *fdp)
{
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	struct dip_lock lock = { .fd = -1 };
	int err = -ECANCELED;

	*path = NULL;
	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	/*
	 * Another process fetching the same: wait for it, the cache then
	 * answers.  Held until the file is checked: a waiter never sees one
	 * that is about to be removed.
	 */
	if (dip_cache_entry(hex, t->what) == DIP_ENTRY_FILE ||
	    !dip_lock_take(&lock, host, host_req, hex, t->what))
		err = dip_fetch_alone(pool, host, req, host_req, t, hex, path,
				      fdp);
	dip_lock_release(&lock);
	return err;
}
