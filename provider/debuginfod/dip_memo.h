/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * In-process memory of answers, and single-flight: while one thread asks
 * the servers for a build ID, the others asking for it wait for its answer
 * instead of downloading it again.
 */
#ifndef DIP_MEMO_H
#define DIP_MEMO_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "symprov.h"

#define DIP_MEMO_BUCKETS 64

struct dip_memo_key {
	uint32_t kind;
	uint32_t len;
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
};

struct dip_memo_entry;

struct dip_memo {
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct dip_memo_entry *buckets[DIP_MEMO_BUCKETS];
};

enum dip_memo_verdict {
	DIP_MEMO_LEADER, /* nobody knows: fetch it, then dip_memo_end() */
	DIP_MEMO_ANSWER, /* *status and *path hold a known answer */
	DIP_MEMO_GAVE_UP, /* @wait_cb asked to stop waiting */
};

int dip_memo_init(struct dip_memo *memo);
void dip_memo_fini(struct dip_memo *memo);

/*
 * Look up @key.  A remembered NOT_FOUND or UNAVAILABLE is returned as is;
 * a remembered FOUND only while its file is still readable (*path is a
 * malloc()ed copy).  While another thread is fetching @key, wait for it,
 * calling @wait_cb(@arg) about once a second; a non-zero return gives up.
 */
int dip_memo_begin(struct dip_memo *memo, const struct dip_memo_key *key,
		   int (*wait_cb)(void *arg), void *arg, int *status,
		   char **path);

/*
 * The leader's answer for @key.  FOUND, NOT_FOUND and UNAVAILABLE are
 * remembered for the life of the process; anything else (CANCELLED,
 * DISABLED) is forgotten so that the next caller asks again.
 */
void dip_memo_end(struct dip_memo *memo, const struct dip_memo_key *key,
		  int status, const char *path);

#endif /* DIP_MEMO_H */
