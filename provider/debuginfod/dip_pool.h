/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A pool of libdebuginfod clients, one per concurrent query. */
#ifndef DIP_POOL_H
#define DIP_POOL_H

#include <pthread.h>
#include <stddef.h>

#include "dip_compat.h"

struct dip_client_pool {
	pthread_mutex_t lock;
	debuginfod_client **idle;
	size_t nr_idle;
	size_t max_idle;
};

/* An empty pool: 0, or a negative errno. */
int dip_client_pool_init(struct dip_client_pool *pool);
void dip_client_pool_fini(struct dip_client_pool *pool);

/* An idle client, or a new one; NULL when out of memory. */
debuginfod_client *dip_client_get(struct dip_client_pool *pool);
/* Back to the pool, for the next query. */
void dip_client_put(struct dip_client_pool *pool, debuginfod_client *client);

#endif /* DIP_POOL_H */
