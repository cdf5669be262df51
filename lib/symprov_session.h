/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside a session (libsymprov.h): what symprov_session.c and the
 * side-by-side fetch, symprov_batch.c, share.
 */
#ifndef SYMPROV_SESSION_H
#define SYMPROV_SESSION_H

#include <pthread.h>
#include <signal.h>

#include "libsymprov.h"
#include "symprov_loader.h"

struct symprov_batch;
struct symprov_note;

struct symprov_config_item {
	char *key;
	char *value;
};

/* An answer of the session, kept for symprov_session_known() */
struct symprov_told {
	uint32_t kind;
	uint32_t content; /* asked for */
	uint32_t build_id_len;
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	char *path; /* the file found, or NULL */
	uint32_t found_content; /* what it holds */
};

struct symprov_session {
	struct symprov_session_opts opts; /* its strings are ours */
	/* one fetch at a time, taken before lock */
	pthread_mutex_t fetch_lock;
	/* the rest, and the host's callbacks: one at a time */
	pthread_mutex_t lock;
	struct symprov_config_item *config;
	size_t nr_config;
	bool config_frozen; /* the providers are loading or loaded */
	bool loaded; /* atomic */
	struct symprov_loader *loader;
	struct symprov_told *told;
	size_t nr_told;
	bool skip_objects; /* a prefetch was skipped */
	bool skip_kernel; /* ... and it held a kernel */
	bool warned_content; /* atomic: symprov.content is not known */
	/* atomic: symprov_session_cancel() may come from any thread */
	volatile sig_atomic_t cancelled;
	/* the fetch being shown, with fetch_lock held */
	const char *what;
	int action; /* the first key pressed during it; with lock held */
	struct symprov_batch *batch; /* a prefetch, or NULL */
	/* symprov_session_read_keys(): atomic, -1 for none */
	int keys_fd;
	bool keys_on; /* this fetch reads them; with lock held */
	/* symprov_session_request(): not shown; with fetch_lock held */
	bool quiet;
	/* symprov_session_note() (symprov_notes.c); taken alone */
	pthread_mutex_t notes_lock;
	struct symprov_note *notes;
	size_t nr_notes;
};

static inline bool session_cancelled(const struct symprov_session *s)
{
	return __atomic_load_n(&s->cancelled, __ATOMIC_RELAXED);
}

/* Load the providers if not yet done; with fetch_lock held */
int session_load(struct symprov_session *s);

/* A usable request of @req, into @fo and @req_out; or -EINVAL */
int session_request(const struct symprov_find_opts *req,
		    struct symprov_find_opts *fo,
		    struct symprov_request *req_out, uint32_t content);

/* What to ask of @kind: its symbols only where it may, unless told otherwise */
uint32_t session_content(struct symprov_session *s, uint32_t kind,
			 uint32_t flags);

/* "vmlinux", "module xfs.ko": what a request is for, in the messages */
void session_noun(char *buf, size_t size, uint32_t kind, const char *name);

/* Remember @ans to @req; true the first time */
bool session_tell_once(struct symprov_session *s,
		       const struct symprov_request *req,
		       const struct symprov_answer *ans);

/*
 * The key that cancelled an answer, @action that of its fetch: STOP once
 * the session is stopped; else one cancelled by an earlier key (its build
 * ID or, after a prefetch, its kind skipped) was skipped
 */
int session_cancel_action(struct symprov_session *s, int action);

/* The host's progress callback, serialized; returns its action */
int session_progress(struct symprov_session *s, uint32_t phase,
		     const char *what, const char *provider, uint64_t done,
		     uint64_t total);

/* A configuration value, or NULL */
const char *session_config_value(struct symprov_session *s, const char *key);

/*
 * Ask for @req (@fo as the host gave it), shown as one fetch of its own;
 * with fetch_lock held
 */
void session_ask(struct symprov_session *s, const struct symprov_find_opts *fo,
		 const struct symprov_request *req, struct symprov_answer *ans);

/* Ask the loader for @req, @ans zeroed first; with fetch_lock held */
int session_loader_find(struct symprov_session *s,
			const struct symprov_request *req,
			struct symprov_answer *ans);

/* The progress of a prefetch, from a provider (symprov_batch.c) */
int batch_progress(struct symprov_session *s, struct symprov_batch *b,
		   const char *provider, const struct symprov_request *req,
		   uint64_t done, uint64_t total);

/* Free the notes of symprov_session_note() */
void session_notes_free(struct symprov_session *s);

#endif /* SYMPROV_SESSION_H */
