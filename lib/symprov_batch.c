// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The files of a profile's objects, side by side: symprov_session_prefetch().
 * A profile from another machine can miss the files of its kernel, of
 * several modules and of user-space objects; asked one at a time, their
 * waits add up.  Threads take the objects in turn; the progress of all is
 * shown as one fetch, and a key pressed ends all of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symprov_session.h"

#define SYMPROV_JOBS_DEFAULT 4
#define SYMPROV_JOBS_MAX 64

/* A thread of a prefetch, and the request it is on */
struct symprov_job {
	struct symprov_batch *batch;
	pthread_t thread;
	const struct symprov_request *req; /* being asked, or NULL */
	uint64_t done, total;
};

struct symprov_batch {
	struct symprov_session *s;
	const struct symprov_prefetch_opts *opts;
	pthread_mutex_t lock; /* the rest */
	const struct symprov_object *objs;
	size_t nr, next; /* objects, the next one to ask for */
	struct symprov_prefetch_result res;
	struct symprov_job *jobs;
	unsigned int nr_jobs;
	char what[64]; /* at BEGIN */
};

int batch_progress(struct symprov_session *s, struct symprov_batch *b,
		   const char *provider, const struct symprov_request *req,
		   uint64_t done, uint64_t total)
{
	uint64_t all_done, all_total;
	char what[64];
	unsigned int i;
	int action;

	pthread_mutex_lock(&b->lock);
	all_done = all_total = b->res.bytes;
	for (i = 0; i < b->nr_jobs; i++) {
		struct symprov_job *job = &b->jobs[i];

		/* a provider of ABI 1.0 has a copy of the request */
		if (job->req && job->req->kind == req->kind &&
		    job->req->build_id == req->build_id) {
			job->done = done;
			job->total = total;
		}
		if (job->req) {
			all_done += job->done;
			all_total += job->total ? job->total : job->done;
		}
	}
	snprintf(what, sizeof(what), "%zu of %zu objects",
		 b->next < b->nr ? b->next : b->nr, b->nr);
	pthread_mutex_unlock(&b->lock);
	action = session_progress(s, SYMPROV_FETCH_UPDATE, what, provider,
				  all_done, all_total);
	if (action != SYMPROV_PROGRESS_CONTINUE) {
		pthread_mutex_lock(&b->lock);
		if (!b->res.action)
			b->res.action = action;
		pthread_mutex_unlock(&b->lock);
	}
	return action;
}

/* The request for @kind of @obj, in @fo and @req; 0 or -EINVAL */
static int batch_request(struct symprov_batch *b,
			 const struct symprov_object *obj, uint32_t kind,
			 struct symprov_find_opts *fo, struct symprov_request *req)
{
	const struct symprov_find_opts in = {
		.size = sizeof(in),
		.kind = kind,
		.build_id = obj->build_id,
		.build_id_len = obj->build_id_len,
		.flags = b->opts->flags & SYMPROV_FIND_WHOLE,
		.dso_name = obj->name,
	};

	return session_request(&in, fo, req,
			       session_content(b->s, kind, in.flags));
}

/* @ans counted in the result: a file asked for, and its size if found */
static void batch_tally(struct symprov_batch *b, const struct symprov_answer *ans)
{
	struct stat st;

	b->res.files++;
	if (ans->status == SYMPROV_FOUND) {
		b->res.found++;
		if (!stat(ans->path, &st))
			b->res.bytes += (uint64_t)st.st_size;
	}
}

/*
 * After @kind of an object was found: whether its debug file is asked for
 * next (the debug info alone is no runtime file: only then)
 */
static bool batch_debug_next(const struct symprov_batch *b, uint32_t kind)
{
	return kind == SYMPROV_KIND_EXECUTABLE &&
	       !(b->opts->flags & SYMPROV_PREFETCH_AS_LISTED);
}

/* Ask for @kind of @obj in @job's thread; true when found */
static bool batch_ask(struct symprov_job *job, const struct symprov_object *obj,
		      uint32_t kind)
{
	struct symprov_batch *b = job->batch;
	struct symprov_session *s = b->s;
	struct symprov_find_opts fo;
	struct symprov_request req;
	struct symprov_answer ans;

	if (batch_request(b, obj, kind, &fo, &req))
		return false;
	pthread_mutex_lock(&b->lock);
	job->req = &req;
	job->done = job->total = 0;
	pthread_mutex_unlock(&b->lock);
	session_loader_find(s, &req, &ans);

	pthread_mutex_lock(&b->lock);
	job->req = NULL;
	batch_tally(b, &ans);
	if (ans.status != SYMPROV_FOUND)
		ans.content = req.content;
	ans.action = ans.status == SYMPROV_CANCELLED ?
			     session_cancel_action(s, b->res.action) :
			     SYMPROV_PROGRESS_CONTINUE;
	pthread_mutex_unlock(&b->lock);

	ans.first = session_tell_once(s, &req, &ans);
	if (b->opts->answered)
		b->opts->answered(b->opts->data, (size_t)(obj - b->objs), &fo,
				  &ans);
	free(ans.path);
	return ans.status == SYMPROV_FOUND;
}

static void *batch_worker(void *arg)
{
	struct symprov_job *job = arg;
	struct symprov_batch *b = job->batch;

	for (;;) {
		const struct symprov_object *obj = NULL;

		pthread_mutex_lock(&b->lock);
		if (!b->res.action && b->next < b->nr)
			obj = &b->objs[b->next++];
		pthread_mutex_unlock(&b->lock);
		if (!obj || session_cancelled(b->s) ||
		    symprov_loader_stopped(b->s->loader))
			break;
		if (batch_ask(job, obj, obj->kind) &&
		    batch_debug_next(b, obj->kind))
			batch_ask(job, obj, SYMPROV_KIND_DEBUGINFO);
	}
	return NULL;
}

/* symprov.jobs, 1 to SYMPROV_JOBS_MAX, else 4 */
static unsigned int batch_jobs(struct symprov_session *s, unsigned int jobs)
{
	const char *value = session_config_value(s, SYMPROV_CONFIG_JOBS);
	char *end;

	if (!jobs && value) {
		long n;

		errno = 0;
		n = strtol(value, &end, 0);
		if (!errno && end != value && !*end && n > 0)
			jobs = n > SYMPROV_JOBS_MAX ? SYMPROV_JOBS_MAX :
						      (unsigned int)n;
	}
	if (!jobs)
		jobs = SYMPROV_JOBS_DEFAULT;
	return jobs > SYMPROV_JOBS_MAX ? SYMPROV_JOBS_MAX : jobs;
}

/* @kind of the one object, shown as the fetch of its file; true when found */
static bool batch_one_ask(struct symprov_batch *b, uint32_t kind)
{
	struct symprov_find_opts fo;
	struct symprov_request req;
	struct symprov_answer ans;
	bool found;

	if (batch_request(b, b->objs, kind, &fo, &req))
		return false;
	session_ask(b->s, &fo, &req, &ans);
	found = ans.status == SYMPROV_FOUND;
	batch_tally(b, &ans);
	b->res.action = ans.action;
	if (b->opts->answered)
		b->opts->answered(b->opts->data, 0, &fo, &ans);
	free(ans.path);
	return found;
}

/* One object: its own fetch, an executable's debug file after it */
static void batch_one(struct symprov_batch *b)
{
	if (batch_one_ask(b, b->objs->kind) &&
	    batch_debug_next(b, b->objs->kind))
		batch_one_ask(b, SYMPROV_KIND_DEBUGINFO);
}

/* With fetch_lock held and the providers loaded */
static int batch_run(struct symprov_batch *b)
{
	struct symprov_session *s = b->s;
	unsigned int i, started = 0;
	int err;

	b->jobs = calloc(b->nr_jobs, sizeof(*b->jobs));
	if (!b->jobs)
		return -ENOMEM;
	err = -pthread_mutex_init(&b->lock, NULL);
	if (err)
		goto out_free;
	snprintf(b->what, sizeof(b->what), "0 of %zu objects", b->nr);
	s->what = b->what;
	s->batch = b;
	/* a key at once: no object is asked for */
	b->res.action =
		session_progress(s, SYMPROV_FETCH_BEGIN, NULL, NULL, 0, 0);
	for (i = 0; i < b->nr_jobs; i++) {
		b->jobs[i].batch = b;
		if (pthread_create(&b->jobs[i].thread, NULL, batch_worker,
				   &b->jobs[i]))
			break;
		started++;
	}
	/* no thread at all: this one does the work */
	if (!started)
		batch_worker(&b->jobs[0]);
	for (i = 0; i < started; i++)
		pthread_join(b->jobs[i].thread, NULL);
	snprintf(b->what, sizeof(b->what), "%zu of %zu objects", b->next, b->nr);
	session_progress(s, SYMPROV_FETCH_END, NULL, NULL, 0, 0);
	s->batch = NULL;
	s->what = NULL;
	/*
	 * Skipped: the objects not asked for stay so for the session, the
	 * kernel too when the skipped fetch showed it.
	 */
	if (b->res.action == SYMPROV_PROGRESS_SKIP) {
		s->skip_objects = true;
		for (i = 0; i < b->nr; i++)
			if (b->objs[i].kind == SYMPROV_KIND_KERNEL)
				s->skip_kernel = true;
	}
	if (session_cancelled(s))
		b->res.action = SYMPROV_PROGRESS_STOP;
	pthread_mutex_destroy(&b->lock);
out_free:
	free(b->jobs);
	return err;
}

int symprov_session_prefetch(struct symprov_session *s,
			     const struct symprov_object *objs, size_t nr,
			     const struct symprov_prefetch_opts *opts,
			     struct symprov_prefetch_result *res)
{
	struct symprov_prefetch_opts o = { .size = sizeof(o) };
	struct symprov_batch b = { .s = s, .opts = &o, .objs = objs, .nr = nr };
	uint32_t size = res ? res->size : 0;
	int err = -EINVAL;

	if ((opts && symprov_copy_struct(&o, sizeof(o), opts, opts->size)) ||
	    (res && size < sizeof(*res)) || (nr && !objs))
		goto out;
	err = 0;
	pthread_mutex_lock(&s->fetch_lock);
	if (nr && session_load(s) > 0 && !session_cancelled(s) &&
	    !symprov_loader_stopped(s->loader)) {
		b.nr_jobs = batch_jobs(s, o.jobs);
		if (b.nr_jobs > nr)
			b.nr_jobs = (unsigned int)nr;
		if (nr == 1)
			batch_one(&b);
		else
			err = batch_run(&b);
	}
	pthread_mutex_unlock(&s->fetch_lock);
out:
	if (res && size >= sizeof(*res)) {
		*res = b.res;
		res->size = size;
	}
	return err;
}
