// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbuildiddirprov.so: a symbol provider that finds files by build ID in
 * local build-id trees: installed debug packages (/usr/lib/debug), a
 * shared symbol store on NFS, a mirror of a debuginfod server.  No
 * network: the debuginfod opt-outs do not concern it.
 *
 * The trees: the host's config key symprov.buildiddir.dirs, else
 * $SYMPROV_BUILDIDDIR_DIRS (not in a privileged host), else
 * /usr/lib/debug; a ':'-separated list, searched in order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bdd.h"
#include "symprov_list.h"
#include "symprov_request.h"

#ifndef BDD_VERSION
#define BDD_VERSION "0"
#endif

void bdd_log(const struct symprov_host *host, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	host->log(host->data, level, "%s", msg);
}

struct bdd_dirs_parse {
	struct bdd_state *st;
	const char *from; /* where the list came from, for the log */
	int err;
};

static void bdd_add_dir(const char *entry, size_t len, int verdict, void *arg)
{
	struct bdd_dirs_parse *p = arg;
	struct bdd_state *st = p->st;

	if (verdict == SYMPROV_ENTRY_EMPTY || p->err)
		return;
	if (verdict != SYMPROV_ENTRY_OK) {
		bdd_log(st->host, SYMPROV_LOG_WARN,
			"%s: directory %zu ignored: %s", p->from,
			st->nr_dirs + 1, symprov_list_verdict_str(verdict));
		return;
	}
	st->dirs[st->nr_dirs] = strndup(entry, len);
	if (!st->dirs[st->nr_dirs])
		p->err = -ENOMEM;
	else
		st->nr_dirs++;
}

static void bdd_count(const char *entry, size_t len, int verdict, void *arg)
{
	(void)entry;
	(void)len;
	(void)verdict;
	++*(size_t *)arg;
}

/* The config key, the environment (unless privileged), the default. */
static const char *bdd_dirs_setting(const struct symprov_host *host,
				    const char **from)
{
	const char *dirs =
		host->config ? host->config(host->data, BDD_CONFIG_DIRS) : NULL;

	*from = BDD_CONFIG_DIRS;
	if (!dirs && !(host->flags & SYMPROV_HOST_SECURE)) {
		dirs = secure_getenv(BDD_ENV_DIRS);
		*from = BDD_ENV_DIRS;
	}
	if (!dirs || !*dirs) {
		dirs = BDD_DEFAULT_DIRS;
		*from = "default";
	}
	return dirs;
}

static void bdd_fini(void *data)
{
	struct bdd_state *st = data;
	size_t i;

	for (i = 0; st->dirs && i < st->nr_dirs; i++)
		free(st->dirs[i]);
	free(st->dirs);
	bdd_index_fini(&st->index);
	free(st);
}

static int bdd_init(const struct symprov_host *host, void **data)
{
	struct bdd_state *st = calloc(1, sizeof(*st));
	struct bdd_dirs_parse parse = { .st = st };
	const char *dirs;
	size_t n = 0;

	if (!st)
		return -ENOMEM;
	st->host = host;
	bdd_index_init(&st->index);
	dirs = bdd_dirs_setting(host, &parse.from);
	symprov_list_split(dirs, ':', bdd_count, &n);
	st->dirs = calloc(n ? n : 1, sizeof(*st->dirs));
	if (!st->dirs) {
		parse.err = -ENOMEM;
		goto err;
	}
	symprov_list_split(dirs, ':', bdd_add_dir, &parse);
	if (parse.err)
		goto err;
	bdd_log(host, SYMPROV_LOG_DEBUG, "trees (%s): %s", parse.from, dirs);
	*data = st;
	return 0;

err:
	bdd_fini(st);
	return parse.err;
}

static int bdd_find(void *data, const struct symprov_request *host_req,
		    struct symprov_result *res)
{
	struct bdd_state *st = data;
	struct bdd_answer ans = { 0 };
	struct symprov_request req;
	int err;

	if (symprov_request_check(host_req, &req) || !SYMPROV_HAS(res, path)) {
		bdd_log(st->host, SYMPROV_LOG_ERROR, "invalid request");
		return SYMPROV_UNAVAILABLE;
	}
	err = bdd_lookup(st, &req, &ans);
	if (!err) {
		res->path = ans.path;
		return SYMPROV_FOUND;
	}
	if (err == -EOPNOTSUPP) /* a kind not served */
		return SYMPROV_DISABLED;
	if (err == -ENOMEM)
		ans.error = ENOMEM;
	if (ans.error && SYMPROV_HAS(res, error))
		res->error = ans.error;
	/* -EBADMSG: only bad files where it was looked for */
	return err == -ENOENT ? SYMPROV_NOT_FOUND : SYMPROV_UNAVAILABLE;
}

static const struct symprov_provider bdd_provider = {
	.size = sizeof(struct symprov_provider),
	.abi_major = SYMPROV_ABI_MAJOR,
	.abi_minor = SYMPROV_ABI_MINOR,
	.name = "buildiddir",
	.version = BDD_VERSION,
	.description =
		"files by build ID in local build-id trees (/usr/lib/debug)",
	.init = bdd_init,
	.find = bdd_find,
	.fini = bdd_fini,
};

SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void)
{
	return &bdd_provider;
}
