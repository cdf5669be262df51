// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfodprov.so: a symbol provider that fetches files by build ID
 * from the debuginfod servers in $DEBUGINFOD_URLS.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dip_compat.h"
#include "dip_fetch.h"
#include "dip_host.h"
#include "dip_servers.h"
#include "dip_symbols.h"
#include "symprov_buildid.h"
#include "symprov_memo.h"
#include "symprov_request.h"
#include "symprov.h"

#ifndef DIP_VERSION
#define DIP_VERSION "0"
#endif

struct dip_state {
	const struct symprov_host *host;
	struct dip_client_pool pool;
	struct symprov_memo memo;
	bool servers; /* dip_servers_get() */
};

/* The host's opt-outs, which leave even DEBUGINFOD_URLS as it is */
static const char *dip_host_opted_out(const struct symprov_host *host)
{
	if (host->flags & SYMPROV_HOST_NO_DEBUGINFOD)
		return "debuginfod disabled by the user";
	if (host->flags & SYMPROV_HOST_NO_BUILDID_CACHE)
		return "build-id cache disabled by the user";
	/* libdebuginfod takes its URLs and cache from the environment */
	if (host->flags & SYMPROV_HOST_SECURE)
		return "not used with elevated privileges: libdebuginfod is configured by the environment";
	return NULL;
}

static int dip_init(const struct symprov_host *host, void **data)
{
	struct dip_state *st = calloc(1, sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	st->host = host;
	err = dip_client_pool_init(&st->pool);
	if (err)
		goto out_free;
	/* A cancel or an opt-out says nothing of the file: not kept. */
	err = symprov_memo_init(&st->memo,
				SYMPROV_MEMO_KEEP(SYMPROV_FOUND) |
					SYMPROV_MEMO_KEEP(SYMPROV_NOT_FOUND) |
					SYMPROV_MEMO_KEEP(SYMPROV_UNAVAILABLE));
	if (err)
		goto out_pool;
	st->servers = !dip_host_opted_out(host);
	if (st->servers)
		dip_servers_get(host);
	*data = st;
	return 0;

out_pool:
	dip_client_pool_fini(&st->pool);
out_free:
	free(st);
	return err;
}

static void dip_fini(void *data)
{
	struct dip_state *st = data;

	if (st->servers)
		dip_servers_put();
	symprov_memo_fini(&st->memo);
	dip_client_pool_fini(&st->pool);
	free(st);
}

/* Every opt-out, checked before anything touches the network. */
static const char *dip_opted_out(const struct dip_state *st)
{
	const char *why = dip_host_opted_out(st->host);

	/* the user's: the servers down are not in the variable */
	if (!why && !dip_servers_configured())
		why = "DEBUGINFOD_URLS is not set";
	return why;
}

/* What to ask the servers for, in order, for each kind. */
static int dip_types_of(uint32_t kind, enum dip_type types[2])
{
	switch (kind) {
	case SYMPROV_KIND_KERNEL:
		/* DWARF also serves data-type profiling: prefer it. */
		types[0] = DIP_TYPE_DEBUGINFO;
		types[1] = DIP_TYPE_EXECUTABLE;
		return 2;
	case SYMPROV_KIND_KERNEL_MODULE:
		/* debuginfod serves no ET_REL file as an executable */
	case SYMPROV_KIND_DEBUGINFO:
		types[0] = DIP_TYPE_DEBUGINFO;
		return 1;
	case SYMPROV_KIND_EXECUTABLE:
		types[0] = DIP_TYPE_EXECUTABLE;
		return 1;
	default:
		return 0; /* not served here */
	}
}

struct dip_wait {
	const struct dip_state *st;
	const struct symprov_request *req;
};

/* While another thread downloads: keep the user's keys working. */
static int dip_wait_cb(void *arg)
{
	const struct dip_wait *w = arg;

	return dip_host_says_stop(w->st->host, w->req, 0, 0);
}

/* The file of @req's kind: 0 and *path, or a negative errno (dip_fetch()). */
static int dip_fetch_kind(struct dip_state *st,
			  const struct symprov_request *req,
			  const struct symprov_request *host_req, char **path)
{
	enum dip_type types[2];
	int i, n = dip_types_of(req->kind, types);
	int err = -ENOENT, bad = 0;

	for (i = 0; i < n; i++) {
		err = dip_fetch(&st->pool, st->host, req, host_req, types[i],
				path);
		/*
		 * A bad or too large file says nothing of the other type;
		 * down or slow servers: don't pay that twice.
		 */
		if (err == -EBADMSG || err == -EFBIG)
			bad = err;
		else if (err != -ENOENT)
			return err;
	}
	/* a miss of the other type does not make a bad file one */
	return err == -ENOENT && bad ? bad : err;
}

/*
 * -v: the whole file was supplied, and its size; for the symbols only of
 * what is neither a kernel nor a module, why (dip_symbols says it for
 * those).
 */
static void dip_say_whole(const struct dip_state *st,
			  const struct symprov_request *req, const char *path)
{
	const char *why = "";
	struct stat sb;

	if (req->content == SYMPROV_CONTENT_SYMBOLS &&
	    !symprov_kind_has_symbols_only(req->kind))
		why = ": only the sections of a kernel or a module make a certain symbols-only file";
	if (!stat(path, &sb)) {
		char hex[SYMPROV_BUILD_ID_HEX_MAX];
		const char *id = symprov_build_id_hex(req->build_id,
						      req->build_id_len, hex);

		dip_log(st->host, SYMPROV_LOG_INFO,
			"%s %s: the whole file, %lld bytes%s",
			dip_kind_str(req->kind), id, (long long)sb.st_size,
			why);
	}
}

/*
 * The symbols-only file when that will do and can be had (a kernel's, a
 * module's), else the whole: 0 and *path, or a negative errno
 * (dip_fetch()).
 */
static int dip_fetch_content(struct dip_state *st,
			     const struct symprov_request *req,
			     const struct symprov_request *host_req,
			     char **path, uint32_t *content)
{
	int err = -EOPNOTSUPP;

	*content = SYMPROV_CONTENT_FULL;
	if (symprov_kind_has_symbols_only(req->kind) &&
	    req->content == SYMPROV_CONTENT_SYMBOLS) {
		err = dip_symbols_fetch(&st->pool, st->host, req, host_req,
					path);
		if (!err)
			*content = SYMPROV_CONTENT_SYMBOLS;
	}
	if (err != -EOPNOTSUPP)
		return err;
	err = dip_fetch_kind(st, req, host_req, path);
	if (!err) {
		dip_say_whole(st, req, *path);
		if (symprov_kind_has_symbols_only(req->kind))
			dip_symbols_superseded(req);
	}
	return err;
}

/* The ABI's status for @err, what the fetches return. */
static int dip_status_of(int err)
{
	switch (err) {
	case 0:
		return SYMPROV_FOUND;
	case -ENOENT: /* a server said so (404) */
		return SYMPROV_NOT_FOUND;
	case -ENOSYS: /* no server configured */
		return SYMPROV_DISABLED;
	case -ECANCELED:
		return SYMPROV_CANCELLED;
	default:
		return SYMPROV_UNAVAILABLE;
	}
}

/* Fetch what @req asks for, into *@ans as the host gets it. */
static void dip_answer(struct dip_state *st, const struct symprov_request *req,
		       const struct symprov_request *host_req,
		       struct symprov_answer *ans)
{
	int err;

	err = dip_fetch_content(st, req, host_req, &ans->path, &ans->content);
	ans->status = dip_status_of(err);
	/* the detail of a failure; a cancel has none */
	ans->err = ans->status == SYMPROV_CANCELLED ? 0 : err;
}

static int dip_find(void *data, const struct symprov_request *host_req,
		    struct symprov_result *res)
{
	struct dip_state *st = data;
	struct dip_wait wait = { .st = st, .req = host_req };
	struct symprov_memo_key key;
	struct symprov_answer ans;
	struct symprov_request req;
	enum dip_type types[2];
	const char *why;

	if (symprov_request_check(host_req, &req) || !SYMPROV_HAS(res, path)) {
		dip_log(st->host, SYMPROV_LOG_ERROR, "invalid request");
		return SYMPROV_UNAVAILABLE;
	}
	why = dip_opted_out(st);
	if (why) {
		dip_log(st->host, SYMPROV_LOG_DEBUG, "%s", why);
		return SYMPROV_DISABLED;
	}
	if (!dip_types_of(req.kind, types)) /* a kind not served here */
		return SYMPROV_DISABLED;

	symprov_memo_key_of(&key, &req, req.content);
	switch (symprov_memo_begin(&st->memo, &key, dip_wait_cb, &wait, &ans)) {
	case SYMPROV_MEMO_GAVE_UP:
		return SYMPROV_CANCELLED;
	case SYMPROV_MEMO_ANSWER:
		break;
	case SYMPROV_MEMO_ALONE:
		dip_answer(st, &req, host_req, &ans);
		break;
	default:
		dip_answer(st, &req, host_req, &ans);
		symprov_memo_end(&st->memo, &key, &ans);
		break;
	}

	if (ans.status == SYMPROV_FOUND) {
		res->path = ans.path;
		if (SYMPROV_HAS(res, content))
			res->content = ans.content;
	} else {
		free(ans.path);
	}
	/* the ABI's detail is a positive errno */
	if (ans.err && SYMPROV_HAS(res, error))
		res->error = -ans.err;
	return ans.status;
}

static const struct symprov_provider dip_provider = {
	.size = sizeof(struct symprov_provider),
	.abi_major = SYMPROV_ABI_MAJOR,
	.abi_minor = SYMPROV_ABI_MINOR,
	.name = "debuginfod",
	.version = DIP_VERSION,
	.description = "files by build ID from the servers in DEBUGINFOD_URLS",
	.init = dip_init,
	.find = dip_find,
	.fini = dip_fini,
};

SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void)
{
	return &dip_provider;
}
