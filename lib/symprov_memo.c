// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Answers by build ID, and single-flight.  Only in memory: a process that
 * asked once does not ask again, and does not pay a timeout twice.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symprov_memo.h"

struct symprov_memo_entry {
	struct symprov_memo_entry *next;
	struct symprov_memo_key key;
	bool in_flight;
	struct symprov_answer ans;
};

static unsigned int symprov_memo_hash(const struct symprov_memo_key *key)
{
	unsigned int h = (key->kind * 31 + key->content) * 31 + key->len;
	uint32_t i;

	for (i = 0; i < key->len; i++)
		h = h * 31 + key->build_id[i];
	return h % SYMPROV_MEMO_BUCKETS;
}

static bool symprov_memo_key_eq(const struct symprov_memo_key *a,
				const struct symprov_memo_key *b)
{
	return a->kind == b->kind && a->content == b->content &&
	       a->len == b->len && !memcmp(a->build_id, b->build_id, a->len);
}

static struct symprov_memo_entry **
symprov_memo_slot(struct symprov_memo *memo, const struct symprov_memo_key *key)
{
	struct symprov_memo_entry **pos =
		&memo->buckets[symprov_memo_hash(key)];

	while (*pos && !symprov_memo_key_eq(&(*pos)->key, key))
		pos = &(*pos)->next;
	return pos;
}

void symprov_memo_key_of(struct symprov_memo_key *key,
			 const struct symprov_request *req, uint32_t content)
{
	memset(key, 0, sizeof(*key));
	key->kind = req->kind;
	key->content = content;
	key->len = req->build_id_len;
	memcpy(key->build_id, req->build_id, req->build_id_len);
}

int symprov_memo_init(struct symprov_memo *memo, unsigned int keep)
{
	pthread_condattr_t attr;
	int err;

	memset(memo->buckets, 0, sizeof(memo->buckets));
	memo->keep = keep;
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

void symprov_memo_fini(struct symprov_memo *memo)
{
	int i;

	for (i = 0; i < SYMPROV_MEMO_BUCKETS; i++) {
		struct symprov_memo_entry *e = memo->buckets[i];

		while (e) {
			struct symprov_memo_entry *next = e->next;

			free(e->ans.path);
			free(e);
			e = next;
		}
	}
	pthread_cond_destroy(&memo->done);
	pthread_mutex_destroy(&memo->lock);
}

/*
 * @e's answer, copied; a FOUND one's file is looked at by the caller, not
 * under the lock: one slow path (NFS) would stall every thread.  False
 * when out of memory.
 */
static bool symprov_memo_copy(const struct symprov_memo_entry *e,
			      struct symprov_answer *ans)
{
	*ans = e->ans;
	ans->path = NULL;
	if (ans->status != SYMPROV_FOUND)
		return true;
	ans->path = strdup(e->ans.path);
	if (!ans->path)
		memset(ans, 0, sizeof(*ans));
	return ans->path != NULL;
}

/* The cached file of a FOUND @ans may have been cleaned away since. */
static bool symprov_memo_still_there(struct symprov_answer *ans)
{
	if (ans->status != SYMPROV_FOUND || !access(ans->path, R_OK))
		return true;
	free(ans->path);
	memset(ans, 0, sizeof(*ans));
	return false;
}

bool symprov_memo_peek_found(struct symprov_memo *memo,
			     const struct symprov_memo_key *key,
			     struct symprov_answer *ans)
{
	const struct symprov_memo_entry *e;
	bool found = false;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&memo->lock);
	e = *symprov_memo_slot(memo, key);
	if (e && !e->in_flight && e->ans.status == SYMPROV_FOUND)
		found = symprov_memo_copy(e, ans);
	pthread_mutex_unlock(&memo->lock);
	return found && symprov_memo_still_there(ans);
}

/* With the lock held: wait while another thread asks for @key */
static int symprov_memo_wait(struct symprov_memo *memo,
			     const struct symprov_memo_key *key,
			     int (*wait_cb)(void *arg), void *arg,
			     struct symprov_memo_entry ***pos)
{
	for (;;) {
		struct timespec deadline;

		*pos = symprov_memo_slot(memo, key);
		if (!**pos || !(**pos)->in_flight)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec++;
		if (pthread_cond_timedwait(&memo->done, &memo->lock,
					   &deadline) == ETIMEDOUT &&
		    wait_cb && wait_cb(arg))
			return -ECANCELED;
	}
}

int symprov_memo_begin(struct symprov_memo *memo,
		       const struct symprov_memo_key *key,
		       int (*wait_cb)(void *arg), void *arg,
		       struct symprov_answer *ans)
{
	struct symprov_memo_entry **pos, *e;
	int verdict = SYMPROV_MEMO_LEADER;
	bool known;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&memo->lock);
	for (;;) {
		if (symprov_memo_wait(memo, key, wait_cb, arg, &pos)) {
			verdict = SYMPROV_MEMO_GAVE_UP;
			goto out;
		}
		e = *pos;
		if (!e || !symprov_memo_copy(e, ans))
			break;
		pthread_mutex_unlock(&memo->lock);
		known = symprov_memo_still_there(ans);
		pthread_mutex_lock(&memo->lock);
		if (known) {
			verdict = SYMPROV_MEMO_ANSWER;
			goto out;
		}
		/* gone: ask again, unless another thread does already */
		pos = symprov_memo_slot(memo, key);
		e = *pos;
		if (!e || !e->in_flight)
			break;
	}
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			verdict = SYMPROV_MEMO_ALONE;
			goto out;
		}
		e->key = *key;
		*pos = e;
	}
	free(e->ans.path);
	memset(&e->ans, 0, sizeof(e->ans));
	e->in_flight = true;
out:
	pthread_mutex_unlock(&memo->lock);
	return verdict;
}

void symprov_memo_end(struct symprov_memo *memo,
		      const struct symprov_memo_key *key,
		      const struct symprov_answer *ans)
{
	struct symprov_memo_entry **pos, *e;
	int status = ans->status;

	pthread_mutex_lock(&memo->lock);
	pos = symprov_memo_slot(memo, key);
	e = *pos;
	if (!e)
		goto out;
	e->in_flight = false;
	e->ans = *ans;
	e->ans.path = NULL;
	if (status == SYMPROV_FOUND && ans->path)
		e->ans.path = strdup(ans->path);
	if (status < 0 || status > 31 ||
	    !(memo->keep & SYMPROV_MEMO_KEEP(status)) ||
	    (status == SYMPROV_FOUND && !e->ans.path)) {
		*pos = e->next;
		free(e);
	}
out:
	pthread_cond_broadcast(&memo->done);
	pthread_mutex_unlock(&memo->lock);
}
