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
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dip_apart.h"
#include "dip_cache.h"
#include "dip_env.h"
#include "dip_compat.h"
#include "dip_fetch.h"
#include "dip_lock.h"
#include "dip_host.h"
#include "dip_miss.h"
#include "dip_pool.h"
#include "dip_servers.h"
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
	const struct symprov_request *req; /* the host's, for its progress() */
	const struct dip_target *target;
	const char *hex; /* the build ID */
	bool cancelled;
	int limit; /* -EFBIG: cancelled by us, over DEBUGINFOD_MAXSIZE */
	long maxsize;
	bool verbose; /* DEBUGINFOD_VERBOSE: the user reads the log */
	bool cached; /* the cache holds the file: no log */
	int vfd; /* the verbose log, or -1 */
	off_t vfd_read; /* the log before this said nothing of a whole file */
	off_t vfd_body; /* the log before this said no body came */
	bool body_came; /* a server began to send the file */
	/* CLOCK_MONOTONIC second past which it is cancelled, or 0 */
	time_t deadline;
	bool whole; /* cancelled by us: a section query turned into a file's */
	/* cancelled by us: a server it asks is down, the others are asked */
	bool regroup;
	unsigned long epoch; /* of the servers down, dip_servers_begin()'s */
	bool transient; /* a miss that is a server's failure */
	long long length; /* the body's Content-Length, or -1 */
#if DIP_DOUBLE_CLOSE
	bool apart; /* in a thread with a file table of its own */
	bool setup; /* holds dip_setup_lock */
#endif
	/* once the client is back in the pool: */
	struct dip_retries retries; /* libdebuginfod's own, from the log */
	long long size; /* the size the body must have, or -1 */
	char server[512]; /* the server that sent it, or "" */
};

#if DIP_DOUBLE_CLOSE
/*
 * libdebuginfod closes a file twice at the start of every query
 * (DIP_DOUBLE_CLOSE).  A query runs in a thread with a file table of its
 * own (dip_apart.c); where the kernel refuses that, the queries of this
 * process at least keep out of each other's way: a query opens its files
 * (the cache's, the download's, the sockets) before its transfer starts,
 * so until then one query at a time, the transfers side by side.  The
 * lock goes at the first progress call of the query, or when it returns.
 */
static pthread_mutex_t dip_setup_lock = PTHREAD_MUTEX_INITIALIZER;

static void dip_setup_begin(struct dip_query *q)
{
	if (q->apart)
		return;
	pthread_mutex_lock(&dip_setup_lock);
	q->setup = true;
}

static void dip_setup_done(struct dip_query *q)
{
	if (q->setup) {
		q->setup = false;
		pthread_mutex_unlock(&dip_setup_lock);
	}
}
#else
static void dip_setup_begin(struct dip_query *q)
{
	(void)q;
}

static void dip_setup_done(struct dip_query *q)
{
	(void)q;
}
#endif

/*
 * libdebuginfod's progress callback: 1 stops the query, and its struct
 * dip_query says why (cancelled, limit, whole).
 */
static int dip_progressfn(debuginfod_client *client, long done, long total)
{
	struct dip_query *q = debuginfod_get_user_data(client);

	dip_setup_done(q);
	/* DEBUGINFOD_MAXTIME, for the whole fetch (dip_fetch_alone()) */
	if (q->deadline && dip_now() > q->deadline) {
		q->limit = -ETIME;
		return 1;
	}
	/*
	 * debuginfod_find_section() downloads the whole debuginfo when a
	 * server answers 503 (no section support): the caller decides that,
	 * verified and said, not this query, whatever its size: a section's
	 * bound is not the file's.
	 */
	if (q->target->section && q->vfd >= 0 &&
	    dip_miss_log_says_whole_file(q->vfd, &q->vfd_read)) {
		q->whole = true;
		return 1;
	}
	/*
	 * libdebuginfod checks DEBUGINFOD_MAXSIZE against Content-Length
	 * only (0.188 to 0.196); without one, count the bytes.  (Before a
	 * server sends, @done counts loops, far under any sensible size.)
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
	/*
	 * Until a body comes, @done counts libdebuginfod's loops: the host
	 * is told 0 of 0 bytes, the server preparing the file (a debuginfod
	 * extracts it from a package first, which may take minutes).
	 */
	if (!q->body_came)
		q->body_came =
			q->vfd < 0 ||
			dip_miss_log_says_body_came(q->vfd, &q->vfd_body);
	if (!q->body_came)
		done = total = 0;
	/*
	 * A server down, found in this query's log (libdebuginfod retries
	 * it) or by another query: asked again without it, unless a body
	 * is coming.
	 */
	if (!q->body_came && q->vfd >= 0 &&
	    (dip_servers_note_log(q->host, q->vfd) ||
	     dip_servers_down_since(q->epoch))) {
		q->regroup = true;
		return 1;
	}
	if (dip_host_says_stop(q->host, q->req, done > 0 ? (uint64_t)done : 0,
			       total > 0 ? (uint64_t)total : 0))
		q->cancelled = true;
	return q->cancelled;
}

/*
 * The body's size, as the debuginfod server announced it, or -1: also
 * for a value that is not a number of bytes (the Content-Length checks
 * the body then).
 */
static long long dip_announced_size(debuginfod_client *client)
{
	const char *h = debuginfod_get_headers(client);
	static const char name[] = "x-debuginfod-size:";
	long long size;
	char *end;

	for (; h && *h; h = strchr(h, '\n') ? strchr(h, '\n') + 1 : "") {
		if (strncasecmp(h, name, sizeof(name) - 1) != 0)
			continue;
		h += sizeof(name) - 1;
		h += strspn(h, " \t");
		errno = 0;
		size = strtoll(h, &end, 10);
		if (end == h || errno || size < 0 || !strchr("\r\n", *end))
			return -1;
		return size;
	}
	return -1;
}

/* One query of @q's target: a descriptor, or libdebuginfod's -errno. */
static int dip_query_once(debuginfod_client *client,
			  const struct symprov_request *req, char **file)
{
	struct dip_query *q = debuginfod_get_user_data(client);
	const struct dip_target *t = q->target;
	int fd;

	dip_setup_begin(q);
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

/* Hand @q to @client: its progress callback and, for a query, the log. */
static void dip_query_start(struct dip_query *q, debuginfod_client *client)
{
	const char *env = getenv(DEBUGINFOD_VERBOSE_ENV_VAR);

	q->maxsize = dip_env_long(DEBUGINFOD_MAXSIZE_ENV_VAR, 0);
	q->verbose = env && *env;
	/*
	 * The log tells a 5xx from a 404 (dip_miss.c); a user who asked
	 * for it (DEBUGINFOD_VERBOSE) still gets it, after the query.  A
	 * file in the cache asks no server: writing the log would be a
	 * quarter of the lookup, and a miss now would be no 404 to trust.
	 */
	q->cached = !q->verbose &&
		    dip_cache_entry(q->hex, q->target->what) == DIP_ENTRY_FILE;
	if (!q->cached)
		q->vfd = memfd_create("dip-verbose", MFD_CLOEXEC);
	if (q->vfd >= 0)
		debuginfod_set_verbose_fd(client, q->vfd);
	debuginfod_set_user_data(client, q);
	debuginfod_set_progressfn(client, dip_progressfn);
}

/*
 * The query, and once more when it missed while a download of another
 * process was landing: a descriptor, or libdebuginfod's -errno.
 */
static int dip_query_run(struct dip_query *q, debuginfod_client *client,
			 const struct symprov_request *req, char **file)
{
	int fd = dip_query_once(client, req, file);

	if (fd != -ENOENT || q->cancelled || q->whole)
		return fd;
	q->transient = q->cached ||
		       (q->vfd >= 0 && dip_miss_log_says_transient(q->vfd));
	if (q->transient ||
	    !dip_miss_wait_landing(q->host, q->req, q->hex, q->target->what))
		return fd;
	/* served from the cache now */
	q->length = -1;
	return dip_query_once(client, req, file);
}

/*
 * Take what @client knows of the query that gave @fd before it goes back
 * to the pool: the size the body must have, the server a warning names.
 * The log goes.
 */
static void dip_query_end(struct dip_query *q, debuginfod_client *client,
			  int fd)
{
	long long announced = fd >= 0 ? dip_announced_size(client) : -1;
	const char *url = fd >= 0 ? debuginfod_get_url(client) : NULL;

	/*
	 * A section's size is its Content-Length: debuginfod 0.188 announces
	 * the whole file's (X-DEBUGINFOD-SIZE) for a section of a file it
	 * has just extracted from an archive.
	 */
	q->size = q->target->section || announced < 0 ? q->length : announced;
	if (url) {
		char *cut;

		snprintf(q->server, sizeof(q->server), "%s", url);
		cut = strstr(q->server, "/buildid/");
		if (cut)
			*cut = '\0';
	}
	if (q->vfd >= 0) {
		debuginfod_set_verbose_fd(client, -1);
		dip_servers_note_log(q->host, q->vfd);
		dip_miss_log_retries(q->vfd, &q->retries);
		if (q->verbose)
			dip_miss_log_copy(q->vfd, STDERR_FILENO);
		close(q->vfd);
		q->vfd = -1;
	}
	debuginfod_set_user_data(client, NULL);
}

/*
 * The miss a query we cancelled left in the cache for @what, gone
 * (DIP_CANCEL_CACHES_MISS): true when there was one.
 */
static bool dip_forget_cancelled(const char *hex, const char *what)
{
#if DIP_CANCEL_CACHES_MISS
	return dip_cache_forget_miss(hex, what);
#else
	(void)hex;
	(void)what;
	return false;
#endif
}

/*
 * What the query that gave @fd came to, its file not looked at yet: 0,
 * or a negative errno (dip_fetch()).  The misses libdebuginfod cached
 * for what was no miss go.
 */
static int dip_query_outcome(const struct dip_query *q, int fd)
{
	const struct symprov_host *host = q->host;
	const char *hex = q->hex, *what = q->target->what;

	if (q->whole) {
		/* the cancelled download left misses for the whole file */
		dip_forget_cancelled(hex, "debuginfo");
		dip_forget_cancelled(hex, "executable");
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: the server serves no sections", hex, what);
		return -EOPNOTSUPP;
	}
	if (q->regroup) {
		dip_forget_cancelled(hex, what);
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: a server is down: asking the others", hex,
			what);
		return -EAGAIN;
	}
	if (q->limit && !q->cancelled) {
		dip_forget_cancelled(hex, what);
		return q->limit;
	}
	if (q->transient) {
		/* Not a statement that the file does not exist: forget it. */
		dip_cache_forget_miss(hex, what);
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: server error, not a miss", hex, what);
		return -EAGAIN;
	}
	if (q->cancelled) {
		if (dip_forget_cancelled(hex, what))
			dip_log(host, SYMPROV_LOG_DEBUG,
				"%s %s: cancelled, dropped the miss libdebuginfod cached for it",
				hex, what);
		return -ECANCELED;
	}
	if (fd < 0)
		dip_log(host, SYMPROV_LOG_DEBUG, "%s %s: %s", hex, what,
			strerror(-fd));
	return fd < 0 ? fd : 0;
}

/*
 * The file the query gave is whole and what @req asks for: 0, or
 * -EBADMSG, logged, and @file removed: served from the cache next time
 * otherwise.
 */
static int dip_check_file(const struct dip_query *q,
			  const struct symprov_request *req, int fd,
			  const char *file)
{
	const struct dip_target *t = q->target;
	const char *why;
	struct stat st;

	/*
	 * A retry libdebuginfod wrote after a failed transfer's bytes, if
	 * dip_strip_failed_attempts() could not take the body out, or a
	 * body cut short: check the size the server gave.
	 */
	if (q->size >= 0 && (fstat(fd, &st) || st.st_size != q->size))
		why = "size differs from the one the server announced";
	else if (t->section ||
		 !symprov_verify_kind(fd, req->kind, req->build_id,
				      req->build_id_len, &why))
		return 0;
	/* no URL: libdebuginfod found it in its cache */
	dip_log(q->host, SYMPROV_LOG_WARN,
		"build ID %s: %s from %s rejected: %s; removed from the cache",
		q->hex, t->what, *q->server ? q->server : "the client cache",
		why);
	if (file)
		unlink(file);
	return -EBADMSG;
}

/*
 * libdebuginfod (0.188 to 0.196) retries a transfer that failed after its
 * first bytes with the file's offset where they ended: the new body comes
 * after them.  So, of the size the server gave, the body is the file's
 * end: keep only that, in @file's place and *@fd.  0, or -EAGAIN when
 * that size is not known (@file removed: there is no telling where the
 * body begins).
 */
static int dip_strip_failed_attempts(const struct dip_query *q, int *fd,
				     const char *file)
{
	struct stat st;
	int kept;

	if (!q->retries.appended || !file || fstat(*fd, &st))
		return 0;
	if (q->size < 0) {
		dip_log(q->host, SYMPROV_LOG_DEBUG,
			"%s %s: retried after a partial transfer, of no known size: removed",
			q->hex, q->target->what);
		unlink(file);
		return -EAGAIN;
	}
	if (st.st_size <= q->size)
		return 0;
	/* when this fails, the size check refuses the file */
	kept = dip_cache_keep_tail(*fd, file, q->size);
	if (kept < 0)
		return 0;
	dip_log(q->host, SYMPROV_LOG_DEBUG,
		"%s %s: retried after a partial transfer: kept the last %lld of %lld bytes",
		q->hex, q->target->what, q->size, (long long)st.st_size);
	close(*fd);
	*fd = kept;
	return 0;
}

/* The query on @client, start to end: a descriptor, or -errno. */
static int dip_query_on(struct dip_query *q, debuginfod_client *client,
			const struct symprov_request *req, char **file)
{
	int fd;

	dip_query_start(q, client);
	fd = dip_query_run(q, client, req, file);
	dip_query_end(q, client, fd);
	return fd;
}

#if DIP_DOUBLE_CLOSE
struct dip_query_apart {
	struct dip_query *q;
	const struct symprov_request *req;
	char *file;
	int fd;
};

static void dip_query_apart_fn(debuginfod_client *client, void *arg)
{
	struct dip_query_apart *a = arg;

	a->q->apart = true;
	a->fd = dip_query_on(a->q, client, a->req, &a->file);
	a->q->apart = false;
	/* of the thread's own table: the file is opened again by name */
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = 0;
	}
}

/*
 * The query in a thread with a file table of its own: 0 with *@fd, or
 * -errno; -ENOEXEC when it could not run there.
 */
static int dip_query_apart(struct dip_query *q,
			   const struct symprov_request *req, char **file,
			   int *fd)
{
	struct dip_query_apart a = { .q = q, .req = req, .fd = -ENOMEM };
	int err = dip_run_apart(dip_query_apart_fn, &a);

	if (err) {
		dip_log(q->host, SYMPROV_LOG_DEBUG,
			"%s %s: no thread of its own for the query (%s): side by side with the process's files",
			q->hex, q->target->what, strerror(-err));
		return -ENOEXEC;
	}
	*file = a.file;
	if (a.fd < 0)
		return a.fd;
	*fd = open(a.file, O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}
#endif

/*
 * libdebuginfod's query of @q's target: a descriptor, *@file its name,
 * or libdebuginfod's -errno.
 */
static int dip_query(struct dip_client_pool *pool, struct dip_query *q,
		     const struct symprov_request *req, char **file)
{
	debuginfod_client *client;
	int fd = -1;

#if DIP_DOUBLE_CLOSE
	int err = dip_query_apart(q, req, file, &fd);

	if (err != -ENOEXEC)
		return err ?: fd;
#endif
	client = dip_client_get(pool);
	if (!client)
		return -ENOMEM;
	fd = dip_query_on(q, client, req, file);
	dip_client_put(pool, client);
	return fd;
}

/*
 * One query of @t of @hex, req's build ID, its file checked: 0, *path
 * and maybe *fdp (dip_fetch_target()), or a negative errno; @q says what
 * libdebuginfod's retries did.
 */
static int dip_fetch_query(struct dip_client_pool *pool,
			   const struct symprov_request *req,
			   struct dip_query *q, char **path, int *fdp)
{
	char *file = NULL;
	int fd, err;

	fd = dip_query(pool, q, req, &file);
	err = dip_query_outcome(q, fd);
	if (!err)
		err = dip_strip_failed_attempts(q, &fd, file);
	if (!err)
		err = dip_check_file(q, req, fd, file);
	if (err)
		goto out;
	if (fdp) {
		*fdp = fd;
		fd = -1;
	}
	*path = file;
	file = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(file);
	return err;
}

/*
 * Every server is down: what the client cache holds of @q's target,
 * checked, as libdebuginfod would answer without asking (it answers
 * nothing with no server to ask); else @down, how they failed, at once.
 */
static int dip_fetch_cached(const struct dip_query *q,
			    const struct symprov_request *req, char **path,
			    int *fdp, int down)
{
	char file[PATH_MAX];
	int fd, err;

	dip_log(q->host, SYMPROV_LOG_DEBUG, "%s %s: every server is down",
		q->hex, q->target->what);
	if (dip_cache_entry(q->hex, q->target->what) != DIP_ENTRY_FILE ||
	    dip_cache_path(q->hex, q->target->what, file, sizeof(file)))
		return down;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return down;
	err = dip_check_file(q, req, fd, file);
	if (!err) {
		*path = strdup(file);
		err = *path ? 0 : -ENOMEM;
	}
	if (!err && fdp) {
		*fdp = fd;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/* @err is no answer of a server's, but a failure a server down explains */
static bool dip_fetch_may_regroup(int err)
{
	switch (err) {
	case 0:
	case -ENOENT:
	case -ECANCELED:
	case -EBADMSG:
	case -EFBIG:
	case -EOPNOTSUPP:
	case -ENOMEM:
		return false;
	default:
		return true;
	}
}

/*
 * dip_fetch_target() of @hex, req's build ID, once no other process does.
 *
 * When a transfer that had begun fails, libdebuginfod (0.188 to 0.196)
 * retries it with the failed transfer's curl handle still the one allowed
 * to write: a new handle at the same address writes after the failed
 * bytes (dip_strip_failed_attempts()); one elsewhere is dropped before it
 * asks, and the query ends as a miss.  A new query of ours, into a fresh
 * file, then takes the dropped retry's place, within the user's limits:
 * DEBUGINFOD_RETRY_LIMIT + 1 attempts in all, each under
 * DEBUGINFOD_TIMEOUT as ever, and the whole fetch within
 * DEBUGINFOD_MAXTIME (libdebuginfod gives each attempt that time anew).
 * A query that found a server down is asked again of the others, as a
 * new one: the down server's wait was its only attempt.
 */
static int dip_fetch_alone(struct dip_client_pool *pool,
			   const struct symprov_host *host,
			   const struct symprov_request *req,
			   const struct symprov_request *host_req,
			   const struct dip_target *t, const char *hex,
			   char **path, int *fdp)
{
	/* libdebuginfod's defaults and reading of the variables */
	long attempts = dip_env_long(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, 2) + 1;
	long maxtime = dip_env_long(DEBUGINFOD_MAXTIME_ENV_VAR, 0);
	time_t start = dip_now();
	int err;

	for (;;) {
		struct dip_query q = { .host = host,
				       .req = host_req,
				       .target = t,
				       .hex = hex,
				       .vfd = -1,
				       .length = -1,
				       .size = -1 };
		const struct dip_retries *r = &q.retries;
		bool late;

		err = dip_servers_begin(host, &q.epoch);
		if (err)
			return dip_fetch_cached(&q, req, path, fdp, err);
		/* libdebuginfod's maxtime is each attempt's, not the fetch's */
		if (maxtime > 0)
			q.deadline = start + maxtime;
		err = dip_fetch_query(pool, req, &q, path, fdp);
		late = maxtime > 0 && dip_now() > start + maxtime;
		if (dip_fetch_may_regroup(err) &&
		    dip_servers_down_since(q.epoch) && !late)
			continue;
		/* the real attempts: a dropped retry asked nothing */
		attempts -= r->retries + (r->answered ? 1 : 0);
		if (err != -EAGAIN || !r->retries || attempts <= 0 || late)
			break;
		dip_log(host, SYMPROV_LOG_DEBUG,
			"%s %s: libdebuginfod's retry %s: asking again", hex,
			t->what, r->answered ? "failed" : "was dropped");
	}
	return err;
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
