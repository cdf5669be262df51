// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A host's session with the symbol providers (libsymprov.h): the list
 * chosen, the configuration the providers read, one fetch at a time shown
 * through the host's progress callback, and the answers kept for the
 * session.  The loader (symprov_loader.c) loads, asks and checks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprov_keys.h"
#include "symprov_request.h"
#include "symprov_session.h"

#define SYMPROV_MIB (1024.0 * 1024.0)

static char *session_strdup(const char *s, int *err)
{
	char *copy;

	if (!s)
		return NULL;
	copy = strdup(s);
	if (!copy)
		*err = -ENOMEM;
	return copy;
}

struct symprov_session *
symprov_session_new(const struct symprov_session_opts *opts)
{
	struct symprov_session *s = calloc(1, sizeof(*s));
	int err = 0;

	if (!s)
		return NULL;
	if (opts && symprov_copy_struct(&s->opts, sizeof(s->opts), opts,
					opts->size)) {
		err = -EINVAL;
		goto out;
	}
	s->opts.size = sizeof(s->opts);
	s->keys_fd = -1;
	s->opts.host_name = session_strdup(s->opts.host_name, &err);
	s->opts.providers = session_strdup(s->opts.providers, &err);
	s->opts.provider_dirs = session_strdup(s->opts.provider_dirs, &err);
	if (err)
		goto out;
	err = -pthread_mutex_init(&s->fetch_lock, NULL);
	if (err)
		goto out;
	err = -pthread_mutex_init(&s->lock, NULL);
	if (!err) {
		err = -pthread_mutex_init(&s->notes_lock, NULL);
		if (err)
			pthread_mutex_destroy(&s->lock);
	}
	if (err)
		pthread_mutex_destroy(&s->fetch_lock);
out:
	if (err) {
		free((char *)s->opts.host_name);
		free((char *)s->opts.providers);
		free((char *)s->opts.provider_dirs);
		free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

void symprov_session_free(struct symprov_session *s)
{
	size_t i;

	if (!s)
		return;
	symprov_loader_delete(s->loader);
	for (i = 0; i < s->nr_config; i++) {
		free(s->config[i].key);
		free(s->config[i].value);
	}
	free(s->config);
	for (i = 0; i < s->nr_told; i++)
		free(s->told[i].path);
	free(s->told);
	session_notes_free(s);
	free((char *)s->opts.host_name);
	free((char *)s->opts.providers);
	free((char *)s->opts.provider_dirs);
	pthread_mutex_destroy(&s->notes_lock);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->fetch_lock);
	free(s);
}

const char *session_config_value(struct symprov_session *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->nr_config; i++) {
		if (!strcmp(s->config[i].key, key))
			return s->config[i].value;
	}
	return NULL;
}

/* The providers' config(): read-only once they load, so without a lock */
static const char *session_config(void *data, const char *key)
{
	return session_config_value(data, key);
}

int symprov_session_set_config(struct symprov_session *s, const char *key,
			       const char *value)
{
	struct symprov_config_item *items;
	char *k = NULL, *v = NULL;
	int err = -EINVAL;
	size_t i;

	if (!key || !value)
		return err;
	pthread_mutex_lock(&s->lock);
	err = -EBUSY; /* the providers read it when they load */
	if (s->config_frozen)
		goto out;
	err = -ENOMEM;
	v = strdup(value);
	if (!v)
		goto out;
	for (i = 0; i < s->nr_config; i++) {
		if (!strcmp(s->config[i].key, key)) {
			free(s->config[i].value);
			s->config[i].value = v;
			v = NULL;
			err = 0;
			goto out;
		}
	}
	k = strdup(key);
	items = realloc(s->config, (s->nr_config + 1) * sizeof(*items));
	if (!k || !items) {
		if (items)
			s->config = items;
		goto out;
	}
	items[s->nr_config++] = (struct symprov_config_item){ k, v };
	s->config = items;
	k = v = NULL;
	err = 0;
out:
	pthread_mutex_unlock(&s->lock);
	free(k);
	free(v);
	return err;
}

static void session_log(void *data, int level, const char *provider,
			const char *msg)
{
	struct symprov_session *s = data;

	if (!s->opts.log)
		return;
	pthread_mutex_lock(&s->lock);
	s->opts.log(s->opts.data, level, provider, msg);
	pthread_mutex_unlock(&s->lock);
}

__attribute__((format(printf, 3, 4))) static void
session_logf(struct symprov_session *s, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	session_log(s, level, NULL, msg);
}

int session_progress(struct symprov_session *s, uint32_t phase,
		     const char *what, const char *provider, uint64_t done,
		     uint64_t total)
{
	struct symprov_progress p = {
		.size = sizeof(p),
		.phase = phase,
		.provider = provider,
		.what = what ? what : s->what,
		.done = done,
		.total = total,
		.many = s->batch != NULL,
	};
	int action = SYMPROV_PROGRESS_CONTINUE, key;

	/* the jobs of a prefetch report from their threads */
	pthread_mutex_lock(&s->lock);
	if (phase == SYMPROV_FETCH_BEGIN)
		s->keys_on = symprov_keys_begin(
			__atomic_load_n(&s->keys_fd, __ATOMIC_RELAXED));
	if (s->opts.progress)
		action = s->opts.progress(s->opts.data, &p);
	if (s->keys_on && (key = symprov_keys_poll()) > action)
		action = key;
	if (phase == SYMPROV_FETCH_END && s->keys_on) {
		symprov_keys_end();
		s->keys_on = false;
	}
	if (session_cancelled(s))
		action = SYMPROV_PROGRESS_STOP;
	if (action != SYMPROV_PROGRESS_CONTINUE &&
	    action != SYMPROV_PROGRESS_STOP)
		action = SYMPROV_PROGRESS_SKIP;
	/* at any phase: as symprov_session_cancel() */
	if (action == SYMPROV_PROGRESS_STOP)
		symprov_session_cancel(s);
	if (action && !s->action)
		s->action = action;
	pthread_mutex_unlock(&s->lock);
	return action;
}

static int session_loader_progress(void *data, const char *provider,
				   const struct symprov_request *req,
				   uint64_t done, uint64_t total)
{
	struct symprov_session *s = data;

	if (s->quiet)
		return session_cancelled(s) ? SYMPROV_PROGRESS_STOP :
					      SYMPROV_PROGRESS_CONTINUE;
	if (s->batch)
		return batch_progress(s, s->batch, provider, req, done, total);
	return session_progress(s, SYMPROV_FETCH_UPDATE, NULL, provider, done,
				total);
}

/*
 * The list: the session's, else $PERF_SYMBOL_PROVIDERS (set to "", none),
 * else the symprov.providers key.
 */
static const char *session_list(struct symprov_session *s,
				const struct symprov_loader_host *host)
{
	bool secure = getauxval(AT_SECURE) != 0;
	const char *list;

	if (s->opts.providers)
		return s->opts.providers;
	list = symprov_list_from_env(SYMPROV_LIST_ENV, secure, host);
	if (list)
		return list;
	if (!secure && getenv(SYMPROV_LIST_ENV))
		return NULL;
	list = session_config_value(s, SYMPROV_CONFIG_PROVIDERS);
	return list && *list ? list : NULL;
}

int session_load(struct symprov_session *s)
{
	struct symprov_loader_host host = {
		.name = s->opts.host_name,
		.flags = s->opts.host_flags,
		.data = s,
		.log = session_log,
		.config = session_config,
		.progress = session_loader_progress,
	};
	const char *list;
	int err = 0;

	if (__atomic_load_n(&s->loaded, __ATOMIC_ACQUIRE))
		goto out;
	/* the providers read the configuration from now on */
	pthread_mutex_lock(&s->lock);
	s->config_frozen = true;
	pthread_mutex_unlock(&s->lock);
	list = session_list(s, &host);
	if (list) {
		session_logf(s, SYMPROV_LOG_INFO,
			     "loading symbol providers %s", list);
		s->loader = symprov_loader_new(list, s->opts.provider_dirs,
					       &host);
		if (!s->loader)
			err = -ENOMEM;
	}
	__atomic_store_n(&s->loaded, true, __ATOMIC_RELEASE);
out:
	if (err)
		return err;
	return s->loader ? (int)symprov_loader_nr_providers(s->loader) : 0;
}

int symprov_session_load(struct symprov_session *s)
{
	int ret;

	pthread_mutex_lock(&s->fetch_lock);
	ret = session_load(s);
	pthread_mutex_unlock(&s->fetch_lock);
	return ret;
}

bool symprov_session_active(struct symprov_session *s)
{
	/* not behind another thread's fetch once loaded */
	if (!__atomic_load_n(&s->loaded, __ATOMIC_ACQUIRE) &&
	    symprov_session_load(s) <= 0)
		return false;
	return s->loader && symprov_loader_nr_providers(s->loader) &&
	       !session_cancelled(s) && !symprov_loader_stopped(s->loader);
}

size_t symprov_session_nr_entries(struct symprov_session *s)
{
	return s->loader ? symprov_loader_nr_entries(s->loader) : 0;
}

const struct symprov_entry_info *
symprov_session_entry(struct symprov_session *s, size_t idx)
{
	return s->loader ? symprov_loader_entry(s->loader, idx) : NULL;
}

int symprov_session_read_keys(struct symprov_session *s, int fd)
{
	if (fd < -1)
		return -EINVAL;
	__atomic_store_n(&s->keys_fd, fd, __ATOMIC_RELAXED);
	return 0;
}

void symprov_session_cancel(struct symprov_session *s)
{
	__atomic_store_n(&s->cancelled, 1, __ATOMIC_RELAXED);
}

uint32_t session_content(struct symprov_session *s, uint32_t kind,
			 uint32_t flags)
{
	const char *content = session_config_value(s, SYMPROV_CONFIG_CONTENT);
	if (!symprov_kind_has_symbols_only(kind) ||
	    (flags & SYMPROV_FIND_WHOLE))
		return SYMPROV_CONTENT_FULL;
	if (!content || !strcmp(content, "symbols"))
		return SYMPROV_CONTENT_SYMBOLS;
	if (strcmp(content, "full") != 0 &&
	    !__atomic_exchange_n(&s->warned_content, true, __ATOMIC_RELAXED)) {
		session_logf(s, SYMPROV_LOG_WARN,
			     "%s=%s is not 'symbols' or 'full': asking for the whole file",
			     SYMPROV_CONFIG_CONTENT, content);
	}
	return SYMPROV_CONTENT_FULL;
}

int session_request(const struct symprov_find_opts *req,
		    struct symprov_find_opts *fo,
		    struct symprov_request *req_out, uint32_t content)
{
	if (!req || symprov_copy_struct(fo, sizeof(*fo), req, req->size) ||
	    !fo->build_id || !fo->build_id_len ||
	    fo->build_id_len > SYMPROV_BUILD_ID_MAX || !fo->kind ||
	    fo->kind > SYMPROV_KIND_EXECUTABLE)
		return -EINVAL;
	fo->size = sizeof(*fo);
	*req_out = (struct symprov_request){
		.size = sizeof(*req_out),
		.kind = fo->kind,
		.build_id = fo->build_id,
		.build_id_len = fo->build_id_len,
		.dso_name = fo->dso_name,
		.content = content,
	};
	return 0;
}

void session_noun(char *buf, size_t size, uint32_t kind, const char *name)
{
	static const char *const nouns[] = {
		[SYMPROV_KIND_KERNEL] = "vmlinux",
		[SYMPROV_KIND_KERNEL_MODULE] = "module",
		[SYMPROV_KIND_DEBUGINFO] = "debug info of",
		[SYMPROV_KIND_EXECUTABLE] = "executable",
	};
	const char *base = name ? strrchr(name, '/') : NULL;

	if (kind > SYMPROV_KIND_EXECUTABLE || !nouns[kind])
		kind = SYMPROV_KIND_EXECUTABLE;
	if (kind == SYMPROV_KIND_KERNEL || !name)
		snprintf(buf, size, "%s", kind == SYMPROV_KIND_DEBUGINFO ?
						  "debug info" :
						  nouns[kind]);
	else
		snprintf(buf, size, "%s %s", nouns[kind], base ? base + 1 : name);
}

static struct symprov_told *session_told(struct symprov_session *s,
					 uint32_t kind, const unsigned char *id,
					 uint32_t len, const uint32_t *content)
{
	size_t i;

	for (i = 0; i < s->nr_told; i++) {
		struct symprov_told *t = &s->told[i];

		if (t->kind == kind && t->build_id_len == len &&
		    !memcmp(t->build_id, id, len) &&
		    (content ? t->content == *content : t->path != NULL))
			return t;
	}
	return NULL;
}

bool session_tell_once(struct symprov_session *s,
		       const struct symprov_request *req,
		       const struct symprov_answer *ans)
{
	bool found = ans->status == SYMPROV_FOUND;
	struct symprov_told *t;
	bool first = false;

	pthread_mutex_lock(&s->lock);
	t = session_told(s, req->kind, req->build_id, req->build_id_len,
			 &req->content);
	if (!t) {
		t = realloc(s->told, (s->nr_told + 1) * sizeof(*t));
		first = true;
		if (!t)
			goto out;
		s->told = t;
		t = &s->told[s->nr_told++];
		memset(t, 0, sizeof(*t));
		t->kind = req->kind;
		t->content = req->content;
		t->build_id_len = req->build_id_len;
		memcpy(t->build_id, req->build_id, req->build_id_len);
	}
	/* asked again after a skip, say */
	if (!t->path && found) {
		t->path = strdup(ans->path);
		t->found_content = ans->content;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return first;
}

int session_loader_find(struct symprov_session *s,
			const struct symprov_request *req,
			struct symprov_answer *ans)
{
	memset(ans, 0, sizeof(*ans));
	ans->status = SYMPROV_CANCELLED;
	if (session_cancelled(s) ||
	    (s->skip_objects &&
	     (req->kind != SYMPROV_KIND_KERNEL || s->skip_kernel)))
		return ans->status;
	return symprov_loader_find(s->loader, req, ans);
}

int session_cancel_action(struct symprov_session *s, int action)
{
	if (session_cancelled(s) ||
	    (s->loader && symprov_loader_stopped(s->loader)))
		return SYMPROV_PROGRESS_STOP;
	return action ? action : SYMPROV_PROGRESS_SKIP;
}

/* The negative errno of a status, as the functions of libsymprov.h say */
static int status_err(int status)
{
	switch (status) {
	case SYMPROV_FOUND:
		return 0;
	case SYMPROV_NOT_FOUND:
		return -ENOENT;
	case SYMPROV_DISABLED:
		return -ENODEV;
	case SYMPROV_CANCELLED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

/*
 * @src into the host's @dst, as much of it as the host knows; returns
 * @err, or -EINVAL when @dst cannot take it
 */
static int answer_out(struct symprov_answer *dst, struct symprov_answer *src,
		      int err)
{
	uint32_t size = dst ? dst->size : 0;

	if (size < sizeof(*dst)) {
		free(src->path);
		return -EINVAL;
	}
	*dst = *src;
	dst->size = size;
	return err;
}

void session_ask(struct symprov_session *s,
			const struct symprov_find_opts *fo,
			const struct symprov_request *req,
			struct symprov_answer *ans)
{
	char what[160], noun[64], hex[SYMPROV_BUILD_ID_HEX_MAX];
	bool whole_code = symprov_kind_has_symbols_only(req->kind) &&
			  req->content == SYMPROV_CONTENT_FULL;

	memset(ans, 0, sizeof(*ans));
	ans->status = SYMPROV_DISABLED;
	if (session_load(s) <= 0)
		return;
	session_noun(noun, sizeof(noun), fo->kind, fo->dso_name);
	symprov_build_id_hex(fo->build_id, fo->build_id_len, hex);
	/* a whole vmlinux or module is mostly DWARF and code: say why */
	snprintf(what, sizeof(what), "%s%s %.12s%s",
		 req->content == SYMPROV_CONTENT_SYMBOLS ? "symbols of " : "",
		 noun, hex, whole_code ? ", whole: DWARF, code" : "");
	session_logf(s, SYMPROV_LOG_INFO,
		     "asking for the %s of the %s with build ID %s",
		     req->content == SYMPROV_CONTENT_SYMBOLS ? "symbols" :
							       "whole file",
		     noun, hex);
	s->what = what;
	s->action = SYMPROV_PROGRESS_CONTINUE;
	if (session_progress(s, SYMPROV_FETCH_BEGIN, NULL, NULL, 0, 0) ==
	    SYMPROV_PROGRESS_CONTINUE)
		session_loader_find(s, req, ans);
	else
		ans->status = SYMPROV_CANCELLED;
	session_progress(s, SYMPROV_FETCH_END, NULL, NULL, 0, 0);
	if (ans->status != SYMPROV_FOUND)
		ans->content = req->content; /* what was asked for */
	ans->action = ans->status == SYMPROV_CANCELLED ?
			      session_cancel_action(s, s->action) :
			      SYMPROV_PROGRESS_CONTINUE;
	s->what = NULL;
	ans->first = session_tell_once(s, req, ans);
}

int symprov_session_find(struct symprov_session *s,
			 const struct symprov_find_opts *req,
			 struct symprov_answer *ans_out)
{
	struct symprov_answer ans = { .status = SYMPROV_UNAVAILABLE };
	struct symprov_find_opts fo;
	struct symprov_request r;
	int err = -EINVAL;

	/* nothing asked for a host that cannot take the answer */
	if (!ans_out || ans_out->size < sizeof(*ans_out))
		goto out;
	err = session_request(req, &fo, &r, 0);
	if (err)
		goto out;
	pthread_mutex_lock(&s->fetch_lock);
	/* the configuration is read once the providers load: no longer set */
	session_load(s);
	r.content = session_content(s, fo.kind, fo.flags);
	session_ask(s, &fo, &r, &ans);
	pthread_mutex_unlock(&s->fetch_lock);
	err = status_err(ans.status);
out:
	return answer_out(ans_out, &ans, err);
}

int symprov_session_request(struct symprov_session *s,
			    const struct symprov_request *req,
			    struct symprov_answer *ans_out)
{
	struct symprov_answer ans = { .status = SYMPROV_DISABLED };

	pthread_mutex_lock(&s->fetch_lock);
	if (session_load(s) > 0) {
		s->quiet = true;
		symprov_loader_find(s->loader, req, &ans);
		s->quiet = false;
	}
	pthread_mutex_unlock(&s->fetch_lock);
	return answer_out(ans_out, &ans, status_err(ans.status));
}

int symprov_session_known(struct symprov_session *s,
			  const struct symprov_find_opts *req,
			  struct symprov_answer *ans_out)
{
	struct symprov_answer ans = { .status = SYMPROV_NOT_FOUND };
	struct symprov_find_opts fo;
	struct symprov_request r;
	struct symprov_told *t;
	int err;

	err = session_request(req, &fo, &r, 0);
	if (err)
		goto out;
	err = -ENOENT;
	pthread_mutex_lock(&s->lock);
	t = session_told(s, fo.kind, fo.build_id, fo.build_id_len, NULL);
	if (t) {
		ans.path = strdup(t->path);
		ans.content = t->found_content;
	}
	pthread_mutex_unlock(&s->lock);
	/* the file may have been cleaned away since; not under the lock */
	if (ans.path && !access(ans.path, R_OK)) {
		ans.status = SYMPROV_FOUND;
		err = 0;
	} else {
		free(ans.path);
		ans.path = NULL;
	}
out:
	return answer_out(ans_out, &ans, err);
}

int symprov_session_content_of(struct symprov_session *s, const char *path)
{
	int content = -ENOENT;
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nr_told && content < 0; i++) {
		if (s->told[i].path && !strcmp(s->told[i].path, path))
			content = (int)s->told[i].found_content;
	}
	pthread_mutex_unlock(&s->lock);
	return content;
}

void symprov_answer_fini(struct symprov_answer *ans)
{
	free(ans->path);
	ans->path = NULL;
}

int symprov_answer_describe(char *buf, size_t size,
			    const struct symprov_find_opts *req,
			    const struct symprov_answer *ans)
{
	char noun[64], hex[SYMPROV_BUILD_ID_HEX_MAX], bytes[32] = "";
	const char *whole = "", *source = ans->source ? ans->source : "?";
	const char *detail = ans->err ? strerror(-ans->err) : "";
	struct stat st;

	session_noun(noun, sizeof(noun), req->kind, req->dso_name);
	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	if (symprov_kind_has_symbols_only(req->kind) &&
	    ans->content == SYMPROV_CONTENT_FULL)
		whole = "whole ";
	switch (ans->status) {
	case SYMPROV_FOUND:
		if (ans->path && !stat(ans->path, &st))
			snprintf(bytes, sizeof(bytes), " (%.1f MiB)",
				 st.st_size / SYMPROV_MIB);
		/* what matters first: a TUI's help line cuts what is long */
		return snprintf(buf, size,
				"%s supplied %s%s of the %s with build ID %s",
				source,
				ans->content == SYMPROV_CONTENT_SYMBOLS ?
					"the symbols only" :
					"the whole file",
				bytes, noun, hex);
	case SYMPROV_CANCELLED:
		if (ans->action == SYMPROV_PROGRESS_STOP)
			return snprintf(buf, size,
					"providers disabled for this session");
		return snprintf(buf, size, "skipped the %s%s with build ID %s",
				whole, noun, hex);
	default:
		/* "not found, No such file or directory" says it twice */
		if (ans->status == SYMPROV_NOT_FOUND && ans->err == -ENOENT)
			detail = "";
		return snprintf(buf, size,
				"no provider supplied the %s%s (%s: %s%s%s), build ID %s",
				whole, noun, source,
				symprov_status_str(ans->status),
				*detail ? ", " : "", detail, hex);
	}
}
