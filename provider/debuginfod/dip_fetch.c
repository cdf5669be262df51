// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One query through libdebuginfod: it does the HTTP, the server list, the
 * retries, the limits (DEBUGINFOD_TIMEOUT, _MAXTIME, _MAXSIZE) and the
 * client cache; this adds the check of what came back, the mapping of
 * errors onto symprov statuses and the host's progress and cancellation.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_fetch.h"
#include "dip_verify.h"
#include "symprov_buildid.h"

#define dip_log(host, level, ...)                                      \
	do {                                                           \
		if ((host)->log)                                       \
			(host)->log((host)->data, level, __VA_ARGS__); \
	} while (0)

int dip_client_pool_init(struct dip_client_pool *pool)
{
	pool->idle = NULL;
	pool->nr_idle = 0;
	pool->max_idle = 0;
	return -pthread_mutex_init(&pool->lock, NULL);
}

void dip_client_pool_fini(struct dip_client_pool *pool)
{
	size_t i;

	for (i = 0; i < pool->nr_idle; i++)
		debuginfod_end(pool->idle[i]);
	free(pool->idle);
	pthread_mutex_destroy(&pool->lock);
}

static debuginfod_client *dip_client_get(struct dip_client_pool *pool)
{
	debuginfod_client *client = NULL;

	pthread_mutex_lock(&pool->lock);
	if (pool->nr_idle)
		client = pool->idle[--pool->nr_idle];
	pthread_mutex_unlock(&pool->lock);
	return client ?: debuginfod_begin();
}

static void dip_client_put(struct dip_client_pool *pool,
			   debuginfod_client *client)
{
	pthread_mutex_lock(&pool->lock);
	if (pool->nr_idle == pool->max_idle) {
		size_t max = pool->max_idle ? 2 * pool->max_idle : 4;
		void **idle = realloc(pool->idle, max * sizeof(*idle));

		if (!idle) {
			pthread_mutex_unlock(&pool->lock);
			debuginfod_end(client);
			return;
		}
		pool->idle = idle;
		pool->max_idle = max;
	}
	pool->idle[pool->nr_idle++] = client;
	pthread_mutex_unlock(&pool->lock);
}

const char *dip_type_str(enum dip_type type)
{
	return type == DIP_TYPE_DEBUGINFO ? "debuginfo" : "executable";
}

struct dip_query {
	const struct symprov_host *host;
	const struct symprov_request *req;
	bool cancelled;
};

static int dip_progressfn(debuginfod_client *client, long done, long total)
{
	struct dip_query *q = debuginfod_get_user_data(client);
	int action;

	if (!q->host->progress)
		return 0;
	action = q->host->progress(q->host->data, q->req,
				   done > 0 ? (uint64_t)done : 0,
				   total > 0 ? (uint64_t)total : 0);
	if (action != SYMPROV_PROGRESS_CONTINUE)
		q->cancelled = true;
	return q->cancelled;
}

/* Not found is authoritative only when a server said so (404). */
static int dip_status_of(int rc)
{
	switch (rc) {
	case -ENOENT:
		return SYMPROV_NOT_FOUND;
	case -ENOSYS: /* no server configured */
		return SYMPROV_DISABLED;
	default:
		return SYMPROV_UNAVAILABLE;
	}
}

int dip_fetch(struct dip_client_pool *pool, const struct symprov_host *host,
	      const struct symprov_request *req,
	      const struct symprov_request *host_req, enum dip_type type,
	      char **path, int *err)
{
	struct dip_query q = { .host = host, .req = host_req };
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	debuginfod_client *client;
	const char *why;
	char *file = NULL;
	int fd;

	*path = NULL;
	*err = 0;
	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	client = dip_client_get(pool);
	if (!client) {
		*err = ENOMEM;
		return SYMPROV_UNAVAILABLE;
	}
	debuginfod_set_user_data(client, &q);
	debuginfod_set_progressfn(client, dip_progressfn);
	if (type == DIP_TYPE_DEBUGINFO)
		fd = debuginfod_find_debuginfo(client, req->build_id,
					       (int)req->build_id_len, &file);
	else
		fd = debuginfod_find_executable(client, req->build_id,
						(int)req->build_id_len, &file);
	debuginfod_set_user_data(client, NULL);
	dip_client_put(pool, client);

	if (q.cancelled) {
		if (fd >= 0)
			close(fd);
		free(file);
		if (dip_cache_forget_miss(hex, dip_type_str(type)) > 0)
			dip_log(host, SYMPROV_LOG_DEBUG,
				"%s %s: cancelled, dropped the miss libdebuginfod cached for it",
				hex, dip_type_str(type));
		return SYMPROV_CANCELLED;
	}
	if (fd < 0) {
		*err = -fd;
		dip_log(host, SYMPROV_LOG_DEBUG, "%s %s: %s", hex,
			dip_type_str(type), strerror(-fd));
		return dip_status_of(fd);
	}

	if (dip_verify_build_id(fd, req->build_id, req->build_id_len, &why)) {
		close(fd);
		dip_log(host, SYMPROV_LOG_WARN,
			"%s from the debuginfod server for build ID %s rejected: %s; removed from the cache",
			file, hex, why);
		/* Served from the cache next time otherwise. */
		if (file)
			unlink(file);
		free(file);
		*err = EBADMSG;
		return SYMPROV_UNAVAILABLE;
	}
	close(fd);
	*path = file;
	return SYMPROV_FOUND;
}
