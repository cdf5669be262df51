// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod clients for concurrent queries: a client serves one
 * thread at a time, and making one sets up curl handles, so idle ones are
 * kept for the next query.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* reallocarray */
#endif
#include <stdlib.h>

#include "dip_pool.h"

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

debuginfod_client *dip_client_get(struct dip_client_pool *pool)
{
	debuginfod_client *client = NULL;

	pthread_mutex_lock(&pool->lock);
	if (pool->nr_idle)
		client = pool->idle[--pool->nr_idle];
	pthread_mutex_unlock(&pool->lock);
	return client ?: debuginfod_begin();
}

void dip_client_put(struct dip_client_pool *pool, debuginfod_client *client)
{
	pthread_mutex_lock(&pool->lock);
	if (pool->nr_idle == pool->max_idle) {
		size_t max = pool->max_idle ? 2 * pool->max_idle : 4;
		debuginfod_client **idle = reallocarray(
			pool->idle, max, sizeof(void *)); /* pointers */

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
