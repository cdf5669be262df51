/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * In-process memory of answers by build ID, and single-flight: while one
 * thread asks for a build ID, the others asking for it wait for its answer
 * instead of asking again.  Used by the loader for the host's session and
 * by the debuginfod provider for its downloads.
 */
#ifndef SYMPROV_MEMO_H
#define SYMPROV_MEMO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libsymprov.h"

#define SYMPROV_MEMO_BUCKETS 64

struct symprov_memo_key {
	uint32_t kind;
	uint32_t content; /* enum symprov_content asked for */
	uint32_t len;
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
};

struct symprov_memo_entry;

struct symprov_memo {
	unsigned int keep; /* SYMPROV_MEMO_KEEP() of the statuses to keep */
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct symprov_memo_entry *buckets[SYMPROV_MEMO_BUCKETS];
};

enum symprov_memo_verdict {
	SYMPROV_MEMO_LEADER, /* nobody knows: fetch it, then symprov_memo_end() */
	SYMPROV_MEMO_ANSWER, /* *status and *path hold a known answer */
	SYMPROV_MEMO_GAVE_UP, /* @wait_cb asked to stop waiting */
	SYMPROV_MEMO_ALONE, /* no memory to remember: fetch, no _end() */
};

#define SYMPROV_MEMO_KEEP(status) (1U << (status))

/* The key of the answer to @req: its kind and build ID, and @content. */
void symprov_memo_key_of(struct symprov_memo_key *key,
			 const struct symprov_request *req, uint32_t content);

/* @keep: the statuses to remember, others are forgotten once answered. */
int symprov_memo_init(struct symprov_memo *memo, unsigned int keep);
void symprov_memo_fini(struct symprov_memo *memo);

/*
 * Look up @key.  A remembered answer is copied to *@ans (ans->path a
 * malloc()ed copy), a FOUND only while its file is still readable.  While
 * another thread is fetching @key, wait for it, calling @wait_cb(@arg)
 * about once a second; a non-zero return gives up.  *@ans is zeroed first.
 */
int symprov_memo_begin(struct symprov_memo *memo,
		       const struct symprov_memo_key *key,
		       int (*wait_cb)(void *arg), void *arg,
		       struct symprov_answer *ans);

/*
 * A remembered SYMPROV_FOUND for @key, copied to *@ans as by
 * symprov_memo_begin(), without waiting or becoming the leader: true if
 * there is one.
 */
bool symprov_memo_peek_found(struct symprov_memo *memo,
			     const struct symprov_memo_key *key,
			     struct symprov_answer *ans);

/*
 * The leader's answer for @key: remembered if its status is one to keep,
 * else forgotten, so that the next caller asks again.  @ans is copied.
 */
void symprov_memo_end(struct symprov_memo *memo,
		      const struct symprov_memo_key *key,
		      const struct symprov_answer *ans);

#endif /* SYMPROV_MEMO_H */
