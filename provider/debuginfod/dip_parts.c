// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A symbols-only file is made of a few sections, each one query: asked
 * one after the other, each costs a round trip.  Asked side by side, they
 * cost one.  The host sees one request: one progress, the parts' bytes
 * summed, called by one part at a time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dip_parts.h"

struct dip_parts {
	const struct symprov_host *host; /* the request's */
	const struct symprov_request *req;
	pthread_mutex_t lock; /* the sums, and the host's progress() */
	uint64_t *done;
	uint64_t *total;
	size_t n;
	dip_part_fn fn;
	void *arg;
};

/* What one part's fetch sees as its host. */
struct dip_part_run {
	struct symprov_host host;
	struct dip_parts *all;
	struct dip_part *part;
	size_t i;
	pthread_t thread;
	bool started;
};

static void dip_part_log(void *data, int level, const char *fmt, ...)
{
	const struct symprov_host *host =
		((struct dip_part_run *)data)->all->host;
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	host->log(host->data, level, "%s", line);
}

static const char *dip_part_config(void *data, const char *key)
{
	const struct symprov_host *host =
		((struct dip_part_run *)data)->all->host;

	return host->config(host->data, key);
}

/*
 * The parts' bytes summed; their total only once every part knows its
 * own (0: not known), as the host's progress() takes it.
 */
static int dip_part_progress(void *data, const struct symprov_request *req,
			     uint64_t done, uint64_t total)
{
	struct dip_part_run *run = data;
	struct dip_parts *all = run->all;
	uint64_t sum_done = 0, sum_total = 0;
	bool known = true;
	size_t i;
	int ret;

	(void)req;
	pthread_mutex_lock(&all->lock);
	all->done[run->i] = done;
	all->total[run->i] = total;
	for (i = 0; i < all->n; i++) {
		sum_done += all->done[i];
		sum_total += all->total[i];
		known &= all->total[i] > 0;
	}
	ret = all->host->progress(all->host->data, all->req, sum_done,
				  known ? sum_total : 0);
	pthread_mutex_unlock(&all->lock);
	return ret;
}

static void *dip_part_thread(void *arg)
{
	struct dip_part_run *run = arg;
	struct dip_parts *all = run->all;

	run->part->err = all->fn(&run->host, run->part, all->arg);
	return NULL;
}

int dip_parts_get(const struct symprov_host *host,
		  const struct symprov_request *req, struct dip_part *parts,
		  size_t n, dip_part_fn fn, void *arg)
{
	struct dip_parts all = {
		.host = host, .req = req, .n = n, .fn = fn, .arg = arg
	};
	struct dip_part_run *runs;
	int err = -ENOMEM;
	size_t i;

	runs = calloc(n, sizeof(*runs));
	all.done = calloc(n, sizeof(*all.done));
	all.total = calloc(n, sizeof(*all.total));
	if (!runs || !all.done || !all.total)
		goto out;
	pthread_mutex_init(&all.lock, NULL);
	for (i = 0; i < n; i++) {
		struct dip_part_run *run = &runs[i];

		/* a host of an older ABI: its fields, the others 0 */
		memcpy(&run->host, host,
		       host->size < sizeof(run->host) ? host->size :
							sizeof(run->host));
		run->host.size = (uint32_t)sizeof(run->host);
		run->host.data = run;
		run->host.log = host->log ? dip_part_log : NULL;
		run->host.config = host->config ? dip_part_config : NULL;
		run->host.progress = host->progress ? dip_part_progress : NULL;
		run->all = &all;
		run->part = &parts[i];
		run->i = i;
	}
	/* the first part in this thread, meanwhile */
	for (i = 1; i < n; i++)
		runs[i].started = !pthread_create(&runs[i].thread, NULL,
						  dip_part_thread, &runs[i]);
	for (i = 0; i < n; i++) {
		if (runs[i].started)
			pthread_join(runs[i].thread, NULL);
		else
			dip_part_thread(&runs[i]);
	}
	pthread_mutex_destroy(&all.lock);
	err = 0;
	for (i = 0; i < n && !err; i++)
		err = parts[i].err;
out:
	free(runs);
	free(all.done);
	free(all.total);
	return err;
}
