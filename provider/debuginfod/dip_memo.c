// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Answers memo and single-flight of the debuginfod provider.  The
 * cross-process memory of misses is libdebuginfod's own cache; this one
 * only spares a process asking twice, and paying a timeout twice.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dip_memo.h"

struct dip_memo_entry {
	struct dip_memo_entry *next;
	struct dip_memo_key key;
	bool in_flight;
	int status;
	char *path;
};

static unsigned int dip_memo_hash(const struct dip_memo_key *key)
{
	unsigned int h = key->kind * 31 + key->len;
	uint32_t i;

	for (i = 0; i < key->len; i++)
		h = h * 31 + key->build_id[i];
	return h % DIP_MEMO_BUCKETS;
}

static bool dip_memo_key_eq(const struct dip_memo_key *a,
			    const struct dip_memo_key *b)
{
	return a->kind == b->kind && a->len == b->len &&
	       !memcmp(a->build_id, b->build_id, a->len);
}

static struct dip_memo_entry **dip_memo_slot(struct dip_memo *memo,
					     const struct dip_memo_key *key)
{
	struct dip_memo_entry **pos = &memo->buckets[dip_memo_hash(key)];

	while (*pos && !dip_memo_key_eq(&(*pos)->key, key))
		pos = &(*pos)->next;
	return pos;
}

int dip_memo_init(struct dip_memo *memo)
{
	pthread_condattr_t attr;
	int err;

	memset(memo->buckets, 0, sizeof(memo->buckets));
	err = pthread_mutex_init(&memo->lock, NULL);
	if (err)
		return -err;
	/* Waits are timed on CLOCK_MONOTONIC: immune to clock changes. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	err = pthread_cond_init(&memo->done, &attr);
	pthread_condattr_destroy(&attr);
	if (err) {
		pthread_mutex_destroy(&memo->lock);
		return -err;
	}
	return 0;
}

void dip_memo_fini(struct dip_memo *memo)
{
	int i;

	for (i = 0; i < DIP_MEMO_BUCKETS; i++) {
		struct dip_memo_entry *e = memo->buckets[i];

		while (e) {
			struct dip_memo_entry *next = e->next;

			free(e->path);
			free(e);
			e = next;
		}
	}
	pthread_cond_destroy(&memo->done);
	pthread_mutex_destroy(&memo->lock);
}

/* A known answer for @e, or false to fetch it again. */
static bool dip_memo_answer(struct dip_memo_entry *e, int *status, char **path)
{
	if (e->status != SYMPROV_FOUND) {
		*status = e->status;
		return true;
	}
	/* The cached file may have been cleaned away since. */
	if (access(e->path, R_OK))
		return false;
	*path = strdup(e->path);
	if (!*path)
		return false;
	*status = SYMPROV_FOUND;
	return true;
}

int dip_memo_begin(struct dip_memo *memo, const struct dip_memo_key *key,
		   int (*wait_cb)(void *arg), void *arg, int *status,
		   char **path)
{
	struct dip_memo_entry **pos, *e;
	int verdict = DIP_MEMO_LEADER;

	*path = NULL;
	pthread_mutex_lock(&memo->lock);
	for (;;) {
		struct timespec deadline;

		pos = dip_memo_slot(memo, key);
		e = *pos;
		if (!e || !e->in_flight)
			break;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec++;
		if (pthread_cond_timedwait(&memo->done, &memo->lock,
					   &deadline) == ETIMEDOUT &&
		    wait_cb && wait_cb(arg)) {
			verdict = DIP_MEMO_GAVE_UP;
			goto out;
		}
	}

	if (e && dip_memo_answer(e, status, path)) {
		verdict = DIP_MEMO_ANSWER;
		goto out;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			/* No memory to remember: fetch without single-flight. */
			goto out;
		}
		e->key = *key;
		*pos = e;
	}
	free(e->path);
	e->path = NULL;
	e->in_flight = true;
out:
	pthread_mutex_unlock(&memo->lock);
	return verdict;
}

void dip_memo_end(struct dip_memo *memo, const struct dip_memo_key *key,
		  int status, const char *path)
{
	struct dip_memo_entry **pos, *e;

	pthread_mutex_lock(&memo->lock);
	pos = dip_memo_slot(memo, key);
	e = *pos;
	if (!e)
		goto out;
	e->in_flight = false;
	e->status = status;
	if (status == SYMPROV_FOUND && path)
		e->path = strdup(path);
	/* A cancel or an opt-out says nothing of the file: forget it. */
	if (status == SYMPROV_CANCELLED || status == SYMPROV_DISABLED ||
	    (status == SYMPROV_FOUND && !e->path)) {
		*pos = e->next;
		free(e);
	}
out:
	pthread_cond_broadcast(&memo->done);
	pthread_mutex_unlock(&memo->lock);
}
