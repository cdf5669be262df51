// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A call in a thread with a file table of its own.  libdebuginfod before
 * 0.190 closes a descriptor twice at the start of every query
 * (DIP_DOUBLE_CLOSE): the second close() takes whatever file another
 * thread of the process opened in between, the host's as well as ours,
 * and a copy or a check there fails, or writes to the wrong file.  A
 * lock only keeps our own queries apart; a thread that unshared its
 * table closes nothing of anyone else's.  Its client is its own too:
 * curl keeps its connections' descriptors from one query to the next,
 * and they mean nothing in another thread's table.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* unshare */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include "dip_apart.h"

/*
 * ThreadSanitizer keeps one table of descriptors for the process: a number
 * used in a thread's own table and in another looks to it like a race.
 * Under it the queries take the path where unshare is refused.
 */
#if defined(__SANITIZE_THREAD__)
#define DIP_APART_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DIP_APART_TSAN 1
#endif
#endif

#ifdef DIP_APART_TSAN
int dip_run_apart(dip_apart_fn fn, void *arg)
{
	(void)fn;
	(void)arg;
	return -ENOSYS;
}
#else
struct dip_apart {
	dip_apart_fn fn;
	void *arg;
	int err;
};

static void *dip_apart_main(void *data)
{
	struct dip_apart *a = data;
	debuginfod_client *client;

	if (unshare(CLONE_FILES)) {
		a->err = -errno;
		return NULL;
	}
	client = debuginfod_begin();
	if (!client) {
		a->err = -ENOMEM;
		return NULL;
	}
	a->fn(client, a->arg);
	/* its connections go with it; the table goes when the thread does */
	debuginfod_end(client);
	return NULL;
}

int dip_run_apart(dip_apart_fn fn, void *arg)
{
	struct dip_apart a = { .fn = fn, .arg = arg };
	pthread_t thread;
	int err;

	err = pthread_create(&thread, NULL, dip_apart_main, &a);
	if (err)
		return -err;
	pthread_join(thread, NULL);
	return a.err;
}
#endif
