// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libsymprov.so as a host sees it: include/libsymprov.h alone, the shared
 * library linked as a host links it, and the test providers
 * (tests/providers/test_provider.c) configured through the session.  The
 * files they find are copies of this test's own executable, linked with
 * the build ID TEST_BUILD_ID (a kernel, an executable, its debug info),
 * and a kernel module look-alike with TEST_MODULE_BUILD_ID (TEST_MODULE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

#include "libsymprov.h"

#define SELF "/proc/self/exe"
#define MAX_PHASES 64
#define MAX_ANSWERS 16

/* A progress callback's view of one call */
struct seen_progress {
	uint32_t phase;
	uint64_t done, total;
	bool many;
	bool has_provider;
	char what[64];
};

/* An answered() call of a prefetch */
struct seen_answer {
	size_t idx;
	uint32_t kind;
	int status;
	int action;
	char path[PATH_MAX];
};

/* What the host saw of its session */
struct host {
	struct symprov_session *s;
	char **lines;
	int *levels;
	int nr_lines;
	/* returned by progress(), by phase */
	int action[SYMPROV_FETCH_END + 1];
	struct seen_progress progress[MAX_PHASES];
	int nr_progress;
	/* raised by progress() during a fetch, or 0 */
	int raise_signal;
	/* answered() comes from the prefetch's threads */
	pthread_mutex_t lock;
	struct seen_answer answers[MAX_ANSWERS];
	int nr_answers;
};

static struct host h;
static const char *tp_dir;
/* the scratch directory and the files in it */
static char scratch[] = "/tmp/test_session.XXXXXX";
static char exe[PATH_MAX]; /* a copy of this executable */
static char cut[PATH_MAX]; /* the same, cut to half its size */
static char gone[PATH_MAX]; /* a copy a test deletes */
static unsigned char self_id[SYMPROV_BUILD_ID_MAX];
static unsigned char module_id[SYMPROV_BUILD_ID_MAX];
static int self_len, module_len;

static void h_log(void *data, int level, const char *provider, const char *msg)
{
	struct host *hh = data;
	char *line;

	if (asprintf(&line, "%s%s%s", provider ? provider : "",
		     provider ? ": " : "", msg) < 0)
		return;
	hh->lines = realloc(hh->lines, (hh->nr_lines + 1) * sizeof(*hh->lines));
	hh->levels =
		realloc(hh->levels, (hh->nr_lines + 1) * sizeof(*hh->levels));
	if (!hh->lines || !hh->levels)
		abort();
	hh->levels[hh->nr_lines] = level;
	hh->lines[hh->nr_lines++] = line;
}

static int h_progress(void *data, const struct symprov_progress *p)
{
	struct host *hh = data;
	struct seen_progress *seen;

	if (hh->nr_progress < MAX_PHASES) {
		seen = &hh->progress[hh->nr_progress++];
		seen->phase = p->phase;
		seen->done = p->done;
		seen->total = p->total;
		seen->many = p->many;
		seen->has_provider = p->provider != NULL;
		snprintf(seen->what, sizeof(seen->what), "%s",
			 p->what ? p->what : "");
	}
	if (p->phase == SYMPROV_FETCH_UPDATE && hh->raise_signal)
		raise(hh->raise_signal);
	return p->phase <= SYMPROV_FETCH_END ? hh->action[p->phase] :
					       SYMPROV_PROGRESS_CONTINUE;
}

static void h_answered(void *data, size_t idx,
		       const struct symprov_find_opts *req,
		       const struct symprov_answer *ans)
{
	struct host *hh = data;
	struct seen_answer *seen;

	pthread_mutex_lock(&hh->lock);
	if (hh->nr_answers < MAX_ANSWERS) {
		seen = &hh->answers[hh->nr_answers++];
		seen->idx = idx;
		seen->kind = req->kind;
		seen->status = ans->status;
		seen->action = ans->action;
		snprintf(seen->path, sizeof(seen->path), "%s",
			 ans->path ? ans->path : "");
	}
	pthread_mutex_unlock(&hh->lock);
}

static int count_lines(int level, const char *needle)
{
	int i, n = 0;

	for (i = 0; i < h.nr_lines; i++)
		if (h.levels[i] == level && strstr(h.lines[i], needle))
			n++;
	return n;
}

static int count_level(int level)
{
	int i, n = 0;

	for (i = 0; i < h.nr_lines; i++)
		n += h.levels[i] == level;
	return n;
}

static void print_lines(void)
{
	int i;

	for (i = 0; i < h.nr_lines; i++)
		print_message("log %d: %s\n", h.levels[i], h.lines[i]);
}

/* @n lines at @level with @needle, else the log and a failure */
static void expect_lines(int level, const char *needle, int n)
{
	if (count_lines(level, needle) != n) {
		print_lines();
		fail_msg("not %d line(s) of level %d with '%s'", n, level,
			 needle);
	}
}

static struct symprov_session_opts opts_of(const char *providers)
{
	return (struct symprov_session_opts){
		.size = sizeof(struct symprov_session_opts),
		.host_name = "test",
		.providers = providers,
		.provider_dirs = tp_dir,
		.data = &h,
		.log = h_log,
		.progress = h_progress,
	};
}

/* A session of @providers (bare names, in tp_dir), not loaded yet */
static struct symprov_session *session_of(const char *providers)
{
	struct symprov_session_opts o = opts_of(providers);

	h.s = symprov_session_new(&o);
	assert_non_null(h.s);
	return h.s;
}

static void set(const char *key, const char *value)
{
	assert_int_equal(symprov_session_set_config(h.s, key, value), 0);
}

/* Provider a (and b, if @b) finds @a_path (and @b_path) */
static struct symprov_session *loaded(const char *a_path, const char *b_path)
{
	struct symprov_session *s =
		session_of(b_path ? "libtp_a.so:libtp_b.so" : "libtp_a.so");

	if (a_path) {
		set("test.a.status", "0");
		set("test.a.path", a_path);
	}
	if (b_path) {
		set("test.b.status", "0");
		set("test.b.path", b_path);
	}
	assert_int_equal(symprov_session_load(s), b_path ? 2 : 1);
	return s;
}

static struct symprov_find_opts req_of(uint32_t kind, const unsigned char *id,
				       int len, const char *name)
{
	return (struct symprov_find_opts){
		.size = sizeof(struct symprov_find_opts),
		.kind = kind,
		.build_id = id,
		.build_id_len = (uint32_t)len,
		.dso_name = name,
	};
}

/* This executable's build ID, with its first byte @first */
static const unsigned char *other_id(unsigned char first)
{
	static unsigned char id[SYMPROV_BUILD_ID_MAX];

	memcpy(id, self_id, sizeof(id));
	id[0] = first;
	return id;
}

static int find(uint32_t kind, const unsigned char *id, int len, uint32_t flags,
		struct symprov_answer *ans)
{
	struct symprov_find_opts req = req_of(kind, id, len, NULL);

	req.flags = flags;
	memset(ans, 0, sizeof(*ans));
	ans->size = sizeof(*ans);
	return symprov_session_find(h.s, &req, ans);
}

/* @prov's find() calls for @kind and @content, from its log */
static int asked(const char *prov, uint32_t kind, uint32_t content)
{
	char line[64];

	snprintf(line, sizeof(line), "%s: find %s kind %u content %u", prov,
		 prov, kind, content);
	return count_lines(SYMPROV_LOG_DEBUG, line);
}

static int asked_any(const char *prov)
{
	char line[64];

	snprintf(line, sizeof(line), "%s: find %s kind", prov, prov);
	return count_lines(SYMPROV_LOG_DEBUG, line);
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

/* @file: a copy of this executable, cut to half its size if @halve */
static int copy_file(const char *file, bool halve)
{
	int in = open(SELF, O_RDONLY | O_CLOEXEC);
	int out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char buf[65536];
	off_t size = 0;
	ssize_t n = -1;

	if (in >= 0 && out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			if (write(out, buf, (size_t)n) != n) {
				n = -1;
				break;
			}
			size += n;
		}
	}
	if (!n && halve && ftruncate(out, size / 2))
		n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n ? -1 : 0;
}

static void copy_self(const char *file)
{
	assert_int_equal(copy_file(file, false), 0);
}

static int setup(void **state)
{
	(void)state;
	memset(&h, 0, sizeof(h));
	pthread_mutex_init(&h.lock, NULL);
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	symprov_session_free(h.s);
	for (i = 0; i < h.nr_lines; i++)
		free(h.lines[i]);
	free(h.lines);
	free(h.levels);
	pthread_mutex_destroy(&h.lock);
	memset(&h, 0, sizeof(h));
	return 0;
}

/*
 * 1. The size-and-zero-tail rule.
 */

/* Options of a newer host: a tail the library does not know */
struct newer_opts {
	struct symprov_session_opts o;
	unsigned char tail[8];
};

static void test_new_refuses_a_nonzero_tail(void **state)
{
	struct newer_opts n = { .o = opts_of("libtp_a.so") };

	(void)state;
	n.o.size = sizeof(n);
	n.tail[3] = 1;
	errno = 0;
	assert_null(symprov_session_new(&n.o));
	assert_int_equal(errno, EINVAL);

	n.o.size = 0;
	errno = 0;
	assert_null(symprov_session_new(&n.o));
	assert_int_equal(errno, EINVAL);
}

static void test_new_accepts_a_zero_tail(void **state)
{
	struct newer_opts n = { .o = opts_of("libtp_a.so") };

	(void)state;
	n.o.size = sizeof(n);
	h.s = symprov_session_new(&n.o);
	assert_non_null(h.s);
	/* and it is read: the list, the directories, the log */
	assert_int_equal(symprov_session_load(h.s), 1);
	expect_lines(SYMPROV_LOG_INFO, "loading symbol providers libtp_a.so",
		     1);
}

/* An older host's options: the fields it does not have are zero */
static void test_new_takes_older_opts(void **state)
{
	struct symprov_session_opts o = opts_of("libtp_a.so");

	(void)state;
	o.size = offsetof(struct symprov_session_opts, log);
	h.s = symprov_session_new(&o);
	assert_non_null(h.s);
	assert_int_equal(symprov_session_load(h.s), 1);
	/* no log in an options struct that ends before it */
	assert_int_equal(h.nr_lines, 0);
}

static void test_bad_sizes_are_einval(void **state)
{
	struct {
		struct symprov_find_opts r;
		unsigned char tail[8];
	} newer;
	struct symprov_find_opts req;
	struct symprov_answer ans;
	struct symprov_prefetch_result res = { .size = 4 };
	struct symprov_prefetch_opts po = { .size = 0 };
	struct symprov_object obj = { SYMPROV_KIND_EXECUTABLE,
				      (uint32_t)self_len, self_id, NULL };

	(void)state;
	loaded(exe, NULL);
	req = req_of(SYMPROV_KIND_EXECUTABLE, self_id, self_len, NULL);

	/* the request */
	req.size = 0;
	ans = (struct symprov_answer){ .size = sizeof(ans) };
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -EINVAL);
	assert_null(ans.path);
	memset(&newer, 0, sizeof(newer));
	newer.r = req_of(SYMPROV_KIND_EXECUTABLE, self_id, self_len, NULL);
	newer.r.size = sizeof(newer);
	newer.tail[0] = 1;
	assert_int_equal(symprov_session_find(h.s, &newer.r, &ans), -EINVAL);
	assert_int_equal(symprov_session_known(h.s, &newer.r, &ans), -EINVAL);
	assert_int_equal(asked_any("a"), 0);
	/* ... a zero tail is a request like any */
	newer.tail[0] = 0;
	assert_int_equal(symprov_session_find(h.s, &newer.r, &ans), 0);
	assert_string_equal(ans.path, exe);
	symprov_answer_fini(&ans);

	/* the answer */
	req.size = sizeof(req);
	ans = (struct symprov_answer){ .size = 0 };
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -EINVAL);
	assert_null(ans.path);
	ans.size = sizeof(ans) - 1;
	assert_int_equal(symprov_session_known(h.s, &req, &ans), -EINVAL);
	assert_int_equal(symprov_session_find(h.s, &req, NULL), -EINVAL);

	/* a prefetch's options and result */
	assert_int_equal(symprov_session_prefetch(h.s, &obj, 1, &po, NULL),
			 -EINVAL);
	assert_int_equal(symprov_session_prefetch(h.s, &obj, 1, NULL, &res),
			 -EINVAL);
	assert_int_equal(symprov_session_prefetch(h.s, NULL, 1, NULL, NULL),
			 -EINVAL);
}

/*
 * 2. The configuration.
 */

static void test_config_is_read_by_providers(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	assert_int_equal(symprov_session_load(h.s), 1);
	assert_int_equal(
		find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0, &ans), 0);
	assert_string_equal(ans.path, exe);
	symprov_answer_fini(&ans);
}

static void test_config_after_load_is_ebusy(void **state)
{
	(void)state;
	session_of("libtp_a.so");
	assert_int_equal(symprov_session_load(h.s), 1);
	assert_int_equal(symprov_session_set_config(h.s, "test.a.status", "0"),
			 -EBUSY);
	assert_int_equal(symprov_session_set_config(h.s, "new.key", "1"),
			 -EBUSY);
}

/* A find loads the providers: the configuration is frozen from then on */
static void test_config_after_find_is_ebusy(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ENOENT);
	assert_int_equal(symprov_session_set_config(h.s, "test.a.status", "0"),
			 -EBUSY);
}

static void test_config_set_twice_takes_the_later(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "1");
	set("test.a.path", "/nonexistent");
	set("test.a.status", "0");
	set("test.a.path", exe);
	assert_int_equal(symprov_session_set_config(h.s, NULL, "x"), -EINVAL);
	assert_int_equal(symprov_session_set_config(h.s, "x", NULL), -EINVAL);
	assert_int_equal(
		find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0, &ans), 0);
	assert_string_equal(ans.path, exe);
	symprov_answer_fini(&ans);
}

/* The library's own key: the list, without options or the variable */
static void test_config_providers_key(void **state)
{
	(void)state;
	session_of(NULL);
	set(SYMPROV_CONFIG_PROVIDERS, "libtp_a.so:libtp_b.so");
	assert_int_equal(symprov_session_load(h.s), 2);
	assert_string_equal(symprov_session_entry(h.s, 1)->name, "b");
}

/*
 * 3. Loading.
 */

static void test_load_counts_and_names_bad_entries(void **state)
{
	const struct symprov_entry_info *e;

	(void)state;
	session_of("libtp_a.so:libnothere.so:libtp_b.so");
	assert_int_equal(symprov_session_load(h.s), 2);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	expect_lines(SYMPROV_LOG_WARN,
		     "symbol provider 'libnothere.so' skipped", 1);
	assert_int_equal(symprov_session_nr_entries(h.s), 3);
	e = symprov_session_entry(h.s, 1);
	assert_non_null(e);
	assert_non_null(e->error);
	assert_null(e->name);
	assert_string_equal(symprov_session_entry(h.s, 2)->name, "b");
	assert_null(symprov_session_entry(h.s, 3));
	assert_true(symprov_session_active(h.s));
	/* once: nothing is loaded or said again */
	assert_int_equal(symprov_session_load(h.s), 2);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
}

/* active() loads, and a list with no provider that loads is not active */
static void test_active_loads(void **state)
{
	(void)state;
	session_of("libtp_a.so");
	assert_true(symprov_session_active(h.s));
	assert_int_equal(symprov_session_nr_entries(h.s), 1);
	teardown(NULL);
	setup(NULL);

	session_of("libnothere.so");
	assert_false(symprov_session_active(h.s));
	assert_int_equal(symprov_session_load(h.s), 0);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	teardown(NULL);
	setup(NULL);

	session_of("");
	assert_int_equal(symprov_session_load(h.s), 0);
	assert_false(symprov_session_active(h.s));
	assert_int_equal(symprov_session_nr_entries(h.s), 0);
}

static void test_active_until_cancelled(void **state)
{
	(void)state;
	loaded(exe, NULL);
	assert_true(symprov_session_active(h.s));
	symprov_session_cancel(h.s);
	assert_false(symprov_session_active(h.s));
}

/*
 * 4. Find.
 */

static void test_find_found(void **state)
{
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	assert_int_equal(
		find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0, &ans), 0);
	assert_int_equal(ans.status, SYMPROV_FOUND);
	assert_string_equal(ans.path, exe);
	assert_string_equal(ans.source, "a");
	assert_int_equal(ans.content, SYMPROV_CONTENT_FULL);
	assert_int_equal(ans.err, 0);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_CONTINUE);
	assert_true(ans.first);
	symprov_answer_fini(&ans);
	assert_null(ans.path);
}

static void test_find_not_found(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "1");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ENOENT);
	assert_int_equal(ans.status, SYMPROV_NOT_FOUND);
	assert_null(ans.path);
	assert_string_equal(ans.source, "a");
	/* of a miss, what was asked for */
	assert_int_equal(ans.content, SYMPROV_CONTENT_SYMBOLS);
	assert_true(ans.first);
}

static void test_find_unavailable_is_eio(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "2");
	set("test.a.error", "110"); /* ETIMEDOUT */
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -EIO);
	assert_int_equal(ans.status, SYMPROV_UNAVAILABLE);
	assert_int_equal(ans.err, -ETIMEDOUT);
}

static void test_find_no_provider_is_enodev(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ENODEV);
	assert_int_equal(ans.status, SYMPROV_DISABLED);
	assert_null(ans.path);
	teardown(NULL);
	setup(NULL);

	/* every provider disabled is none */
	session_of("libtp_a.so");
	set("test.a.status", "3");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ENODEV);
	assert_int_equal(ans.status, SYMPROV_DISABLED);
}

/* Asked again: the same answer, not the first, and nobody asked */
static void test_find_first_then_not(void **state)
{
	struct symprov_answer ans;
	int i;

	(void)state;
	loaded(exe, NULL);
	for (i = 0; i < 3; i++) {
		assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id,
				      self_len, 0, &ans),
				 0);
		assert_string_equal(ans.path, exe);
		assert_int_equal(ans.first, i == 0);
		symprov_answer_fini(&ans);
	}
	assert_int_equal(
		asked("a", SYMPROV_KIND_EXECUTABLE, SYMPROV_CONTENT_FULL), 1);
	/* a miss as well */
	for (i = 0; i < 2; i++) {
		assert_int_equal(find(SYMPROV_KIND_KERNEL_MODULE, self_id,
				      self_len, 0, &ans),
				 -EIO);
		assert_int_equal(ans.first, i == 0);
	}
	/* a module, as a kernel, is asked for its symbols only */
	assert_int_equal(asked("a", SYMPROV_KIND_KERNEL_MODULE,
			       SYMPROV_CONTENT_SYMBOLS),
			 1);
	/* another kind of the same build ID is another question */
	assert_int_equal(
		find(SYMPROV_KIND_DEBUGINFO, self_id, self_len, 0, &ans), 0);
	assert_true(ans.first);
	symprov_answer_fini(&ans);
}

/* A file the provider gets wrong is refused, with the check's reason */
static void test_find_refuses_a_damaged_file(void **state)
{
	struct symprov_answer ans;

	(void)state;
	loaded(cut, NULL);
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -EIO);
	assert_int_equal(ans.status, SYMPROV_UNAVAILABLE);
	assert_int_equal(ans.err, -EBADMSG);
	assert_null(ans.path);
	expect_lines(SYMPROV_LOG_WARN, "rejected (file is truncated", 1);
}

/*
 * 5. What is asked of a kernel: symprov.content.
 */

static void test_kernel_symbols_by_default(void **state)
{
	char line[256];
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.content", "1");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	assert_int_equal(ans.content, SYMPROV_CONTENT_SYMBOLS);
	symprov_answer_fini(&ans);
	assert_int_equal(
		asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_SYMBOLS), 1);
	snprintf(line, sizeof(line),
		 "asking for the symbols of the vmlinux with build ID %s",
		 TEST_BUILD_ID);
	expect_lines(SYMPROV_LOG_INFO, line, 1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 0);
	/* any other kind: the whole file */
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -EIO); /* content 1 of an executable is refused */
	assert_int_equal(
		asked("a", SYMPROV_KIND_EXECUTABLE, SYMPROV_CONTENT_FULL), 1);
}

static void test_kernel_whole_when_asked(void **state)
{
	char line[256];
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len,
			      SYMPROV_FIND_WHOLE, &ans),
			 0);
	assert_int_equal(ans.content, SYMPROV_CONTENT_FULL);
	symprov_answer_fini(&ans);
	assert_int_equal(asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_FULL),
			 1);
	snprintf(line, sizeof(line),
		 "asking for the whole file of the vmlinux with build ID %s",
		 TEST_BUILD_ID);
	expect_lines(SYMPROV_LOG_INFO, line, 1);
	/* the whole file serves a later need of the symbols: not asked */
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 1);
}

static void test_content_full(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set(SYMPROV_CONFIG_CONTENT, "full");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ENOENT);
	assert_int_equal(ans.content, SYMPROV_CONTENT_FULL);
	assert_int_equal(asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_FULL),
			 1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 0);
}

static void test_content_unknown_warns_once(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set(SYMPROV_CONFIG_CONTENT, "dwarf");
	find(SYMPROV_KIND_KERNEL, other_id(1), self_len, 0, &ans);
	find(SYMPROV_KIND_KERNEL, other_id(2), self_len, 0, &ans);
	assert_int_equal(asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_FULL),
			 2);
	assert_int_equal(
		asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_SYMBOLS), 0);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	expect_lines(SYMPROV_LOG_WARN,
		     SYMPROV_CONFIG_CONTENT "=dwarf is not 'symbols' or 'full'",
		     1);
}

/*
 * 6. What the session knows.
 */

static void test_known_without_asking(void **state)
{
	struct symprov_find_opts req =
		req_of(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	struct symprov_answer ans = { .size = sizeof(ans) };

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.content", "1");
	assert_int_equal(symprov_session_known(h.s, &req, &ans), -ENOENT);
	assert_null(ans.path);
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	assert_int_equal(symprov_session_known(h.s, &req, &ans), 0);
	assert_int_equal(ans.status, SYMPROV_FOUND);
	assert_string_equal(ans.path, exe);
	assert_int_equal(ans.content, SYMPROV_CONTENT_SYMBOLS);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 1);
	/* another kind was not found */
	req.kind = SYMPROV_KIND_EXECUTABLE;
	assert_int_equal(symprov_session_known(h.s, &req, &ans), -ENOENT);
}

static void test_known_file_deleted_since(void **state)
{
	struct symprov_find_opts req =
		req_of(SYMPROV_KIND_EXECUTABLE, self_id, self_len, NULL);
	struct symprov_answer ans = { .size = sizeof(ans) };

	(void)state;
	copy_self(gone);
	loaded(gone, NULL);
	assert_int_equal(
		find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0, &ans), 0);
	symprov_answer_fini(&ans);
	assert_int_equal(symprov_session_known(h.s, &req, &ans), 0);
	symprov_answer_fini(&ans);
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(symprov_session_known(h.s, &req, &ans), -ENOENT);
	assert_null(ans.path);
	assert_int_equal(asked_any("a"), 1);
}

static void test_content_of(void **state)
{
	struct symprov_answer ans;
	char mod[PATH_MAX];

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	loaded(exe, mod);
	assert_int_equal(symprov_session_content_of(h.s, exe), -ENOENT);
	assert_int_equal(find(SYMPROV_KIND_KERNEL_MODULE, module_id, module_len,
			      0, &ans),
			 0);
	assert_string_equal(ans.path, mod);
	assert_string_equal(ans.source, "b");
	symprov_answer_fini(&ans);
	assert_int_equal(symprov_session_content_of(h.s, mod),
			 SYMPROV_CONTENT_FULL);
	assert_int_equal(symprov_session_content_of(h.s, exe), -ENOENT);
	assert_int_equal(symprov_session_content_of(h.s, "/nonexistent"),
			 -ENOENT);
}

/*
 * 7. Prefetch.
 */

/* A kernel, a module, an executable of a profile */
static void profile_of(struct symprov_object objs[3])
{
	objs[0] = (struct symprov_object){ SYMPROV_KIND_KERNEL,
					   (uint32_t)self_len, self_id,
					   "[kernel.kallsyms]" };
	objs[1] = (struct symprov_object){ SYMPROV_KIND_KERNEL_MODULE,
					   (uint32_t)module_len, module_id,
					   "/lib/modules/6.12/kernel/xfs.ko" };
	objs[2] = (struct symprov_object){ SYMPROV_KIND_EXECUTABLE,
					   (uint32_t)self_len, self_id,
					   "/usr/bin/prog" };
}

static const struct seen_answer *answer_of(size_t idx, uint32_t kind)
{
	const struct seen_answer *found = NULL;
	int i, n = 0;

	for (i = 0; i < h.nr_answers; i++) {
		if (h.answers[i].idx == idx && h.answers[i].kind == kind) {
			found = &h.answers[i];
			n++;
		}
	}
	if (n != 1)
		fail_msg("%d answers to object %zu, kind %u", n, idx, kind);
	return found;
}

/* Prefetch options whose answers the host records, @jobs at once */
static struct symprov_prefetch_opts recorded(uint32_t jobs)
{
	return (struct symprov_prefetch_opts){
		.size = sizeof(struct symprov_prefetch_opts),
		.jobs = jobs,
		.answered = h_answered,
		.data = &h,
	};
}

static void test_prefetch_side_by_side(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = recorded(2);
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_answer ans;
	char mod[PATH_MAX];

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	profile_of(objs);
	loaded(exe, mod);
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, &po, &res), 0);
	/* the executable's debug info follows it */
	assert_int_equal(h.nr_answers, 4);
	assert_string_equal(answer_of(0, SYMPROV_KIND_KERNEL)->path, exe);
	assert_string_equal(answer_of(1, SYMPROV_KIND_KERNEL_MODULE)->path,
			    mod);
	assert_string_equal(answer_of(2, SYMPROV_KIND_EXECUTABLE)->path, exe);
	assert_string_equal(answer_of(2, SYMPROV_KIND_DEBUGINFO)->path, exe);
	assert_int_equal(res.size, sizeof(res));
	assert_int_equal(res.action, SYMPROV_PROGRESS_CONTINUE);
	assert_int_equal(res.files, 4);
	assert_int_equal(res.found, 4);
	assert_int_equal(res.bytes, 3 * size_of(exe) + size_of(mod));
	/* the kernel's and the module's symbols, the rest whole */
	assert_int_equal(
		asked("a", SYMPROV_KIND_KERNEL, SYMPROV_CONTENT_SYMBOLS), 1);
	assert_int_equal(asked("b", SYMPROV_KIND_KERNEL_MODULE,
			       SYMPROV_CONTENT_SYMBOLS),
			 1);
	/* remembered: a find is answered at once, and not the first */
	assert_int_equal(
		find(SYMPROV_KIND_DEBUGINFO, self_id, self_len, 0, &ans), 0);
	assert_false(ans.first);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 4);
}

static void test_prefetch_as_listed(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = {
		.size = sizeof(po),
		.flags = SYMPROV_PREFETCH_AS_LISTED,
		.jobs = 2,
		.answered = h_answered,
		.data = &h,
	};
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	char mod[PATH_MAX];
	int i;

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	profile_of(objs);
	loaded(exe, mod);
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, &po, &res), 0);
	assert_int_equal(h.nr_answers, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(answer_of((size_t)i, objs[i].kind)->status,
				 SYMPROV_FOUND);
	assert_int_equal(res.files, 3);
	assert_int_equal(res.found, 3);
	assert_int_equal(res.bytes, 2 * size_of(exe) + size_of(mod));
	assert_int_equal(
		asked("a", SYMPROV_KIND_DEBUGINFO, SYMPROV_CONTENT_FULL), 0);
}

/* A miss is answered too, and counted as asked for, not found */
static void test_prefetch_counts_misses(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = recorded(2);
	struct symprov_prefetch_result res = { .size = sizeof(res) };

	(void)state;
	profile_of(objs);
	loaded(exe, NULL); /* nobody has the module */
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, &po, &res), 0);
	assert_int_equal(h.nr_answers, 4);
	assert_int_equal(answer_of(1, SYMPROV_KIND_KERNEL_MODULE)->status,
			 SYMPROV_UNAVAILABLE);
	assert_int_equal(res.files, 4);
	assert_int_equal(res.found, 3);
	assert_int_equal(res.bytes, 3 * size_of(exe));
}

/* No debug info is asked for of an executable not found */
static void test_prefetch_no_debuginfo_without_executable(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = recorded(0);
	struct symprov_prefetch_result res = { .size = sizeof(res) };

	(void)state;
	profile_of(objs);
	session_of("libtp_a.so"); /* a finds nothing */
	assert_int_equal(symprov_session_prefetch(h.s, objs + 2, 1, &po, &res),
			 0);
	assert_int_equal(h.nr_answers, 1);
	assert_int_equal(answer_of(0, SYMPROV_KIND_EXECUTABLE)->status,
			 SYMPROV_NOT_FOUND);
	assert_int_equal(res.files, 1);
	assert_int_equal(res.found, 0);
	assert_int_equal(asked_any("a"), 1);
}

static void test_prefetch_progress_phases(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = { .size = sizeof(po), .jobs = 2 };
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	char mod[PATH_MAX];
	int i, updates = 0;

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	profile_of(objs);
	session_of("libtp_a.so:libtp_b.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	set("test.b.status", "0");
	set("test.b.path", mod);
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, &po, &res), 0);
	assert_int_equal(res.found, 4);

	assert_true(h.nr_progress >= 3);
	assert_int_equal(h.progress[0].phase, SYMPROV_FETCH_BEGIN);
	assert_string_equal(h.progress[0].what, "0 of 3 objects");
	assert_false(h.progress[0].has_provider);
	assert_int_equal(h.progress[h.nr_progress - 1].phase,
			 SYMPROV_FETCH_END);
	assert_false(h.progress[h.nr_progress - 1].has_provider);
	for (i = 0; i < h.nr_progress; i++) {
		const struct seen_progress *p = &h.progress[i];
		unsigned int n, m;
		char rest;

		assert_true(p->many);
		if (i == 0 || i == h.nr_progress - 1)
			continue;
		assert_int_equal(p->phase, SYMPROV_FETCH_UPDATE);
		assert_true(p->has_provider);
		assert_int_equal(sscanf(p->what, "%u of %u objects%c", &n, &m,
					&rest),
				 2);
		assert_int_equal(m, 3);
		assert_in_range(n, 1, 3);
		updates++;
	}
	/* a reports once a request: the kernel, the module, the program
	 * and its debug info */
	assert_int_equal(updates, 4);
}

/* One find: one fetch of its own, not many */
static void test_find_progress_phases(void **state)
{
	struct symprov_answer ans;
	char what[64];
	int i;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.progress", "1");
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ENOENT);
	snprintf(what, sizeof(what), "symbols of vmlinux %.12s", TEST_BUILD_ID);
	assert_int_equal(h.nr_progress, 3);
	assert_int_equal(h.progress[0].phase, SYMPROV_FETCH_BEGIN);
	assert_int_equal(h.progress[1].phase, SYMPROV_FETCH_UPDATE);
	assert_true(h.progress[1].has_provider);
	assert_int_equal(h.progress[2].phase, SYMPROV_FETCH_END);
	for (i = 0; i < 3; i++) {
		assert_false(h.progress[i].many);
		assert_string_equal(h.progress[i].what, what);
	}
}

/* The bytes of a provider of ABI 1.0, which gets a copy of the request */
static void test_prefetch_progress_of_an_abi_1_0_provider(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = { .size = sizeof(po), .jobs = 1 };
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	int i, updates = 0;

	(void)state;
	profile_of(objs);
	/* two objects, the kernel and the program: shown as one fetch */
	objs[1] = objs[2];
	session_of("libtp_abi10.so");
	set("test.old.status", "0");
	set("test.old.path", exe);
	set("test.old.progress", "1");
	assert_int_equal(symprov_session_prefetch(h.s, objs, 2, &po, &res), 0);
	/* the kernel, the executable, then its debug file */
	assert_int_equal(res.found, 3);
	/* the provider said 1 of 2 bytes of the first: the fetch shows them */
	for (i = 0; i < h.nr_progress; i++)
		updates += h.progress[i].phase == SYMPROV_FETCH_UPDATE &&
			   h.progress[i].done == 1 && h.progress[i].total == 2;
	assert_int_equal(updates, 1);
}

/* @kind of build ID @id noted; symprov_session_note()'s return */
static int note(uint32_t kind, const unsigned char *id, int len,
		const char *name)
{
	struct symprov_find_opts req = req_of(kind, id, len, name);

	return symprov_session_note(h.s, &req);
}

/* @kind of build ID @id noted, to be asked for */
static void to_ask(uint32_t kind, const unsigned char *id, int len,
		   const char *name)
{
	assert_int_equal(note(kind, id, len, name), 1);
}

/* The notes of build ID @id asked for, recorded */
static void ask_noted_of(const unsigned char *id, int len,
			 struct symprov_prefetch_result *res)
{
	struct symprov_prefetch_opts po = recorded(0);

	assert_int_equal(symprov_session_ask_noted(h.s, id, (uint32_t)len, &po,
						   res),
			 0);
}

/*
 * What a host noted is asked for by nobody until it asks for the notes:
 * side by side, an executable's debug file after it and once, and never
 * again
 */
static void test_notes_asked_side_by_side_once(void **state)
{
	struct symprov_prefetch_opts po = recorded(2);
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	char mod[PATH_MAX];

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	loaded(exe, mod);
	to_ask(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	to_ask(SYMPROV_KIND_KERNEL_MODULE, module_id, module_len, "xfs.ko");
	to_ask(SYMPROV_KIND_EXECUTABLE, self_id, self_len, "/usr/bin/prog");
	to_ask(SYMPROV_KIND_DEBUGINFO, self_id, self_len, "/usr/bin/prog");
	/* noted again before it is asked for: still to be asked */
	to_ask(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	assert_int_equal(asked_any("a") + asked_any("b"), 0);
	assert_int_equal(h.nr_progress, 0);

	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res), 0);
	assert_int_equal(res.files, 4);
	assert_int_equal(res.found, 4);
	assert_int_equal(h.nr_answers, 4);
	assert_int_equal(
		asked("a", SYMPROV_KIND_DEBUGINFO, SYMPROV_CONTENT_FULL), 1);
	assert_int_equal(asked("b", SYMPROV_KIND_KERNEL_MODULE,
			       SYMPROV_CONTENT_SYMBOLS),
			 1);
	assert_true(h.progress[0].many);
	assert_string_equal(h.progress[0].what, "0 of 3 objects");

	/* asked for: a note says so, and nothing is asked again */
	assert_int_equal(note(SYMPROV_KIND_EXECUTABLE, self_id, self_len,
			      "/usr/bin/prog"),
			 0);
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res), 0);
	assert_int_equal(res.files, 0);
	/* a is asked for each of the four (its module is no module), once */
	assert_int_equal(asked_any("a"), 4);
}

/* The notes of one build ID: that object's own fetch; the rest wait */
static void test_notes_of_one_object(void **state)
{
	struct symprov_prefetch_opts po = recorded(0);
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	char mod[PATH_MAX], what[64];

	(void)state;
	snprintf(mod, sizeof(mod), "%s", TEST_MODULE);
	loaded(exe, mod);
	to_ask(SYMPROV_KIND_KERNEL_MODULE, module_id, module_len,
	       "/lib/modules/6.12/kernel/xfs.ko");
	to_ask(SYMPROV_KIND_DEBUGINFO, self_id, self_len, "/usr/bin/prog");
	ask_noted_of(module_id, module_len, &res);
	assert_int_equal(res.files, 1);
	assert_int_equal(res.found, 1);
	assert_int_equal(h.nr_answers, 1);
	assert_int_equal(h.answers[0].kind, SYMPROV_KIND_KERNEL_MODULE);
	assert_false(h.progress[0].many);
	snprintf(what, sizeof(what), "symbols of module xfs.ko %.12s",
		 TEST_MODULE_BUILD_ID);
	assert_string_equal(h.progress[0].what, what);
	/* a first, whose module is no module, then b */
	assert_int_equal(asked_any("a"), 1);
	assert_int_equal(asked_any("b"), 1);

	/* a debug file noted alone (a stripped program here) is asked alone */
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res), 0);
	assert_int_equal(res.files, 1);
	assert_int_equal(h.nr_answers, 2);
	assert_int_equal(h.answers[1].kind, SYMPROV_KIND_DEBUGINFO);
	assert_int_equal(
		asked("a", SYMPROV_KIND_EXECUTABLE, SYMPROV_CONTENT_FULL), 0);
}

#define NOTE_THREADS 4
#define NOTES_EACH 16

/* A host's threads noting what they miss, under locks of their own */
static void *note_many(void *arg)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	int i, bad = 0;

	memcpy(id, self_id, sizeof(id));
	for (i = 0; i < NOTES_EACH; i++) {
		struct symprov_find_opts req =
			req_of(SYMPROV_KIND_EXECUTABLE, id, self_len, "prog");

		id[0] = (unsigned char)(*(int *)arg * NOTES_EACH + i);
		/* 1 until asked for, then 0; never an error */
		bad += symprov_session_note(h.s, &req) < 0;
	}
	return bad ? (void *)1 : NULL;
}

/* Noted from several threads while the notes are asked for: each once */
static void test_notes_from_threads(void **state)
{
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	int nr[NOTE_THREADS], i, asked = 0;
	pthread_t threads[NOTE_THREADS];
	void *bad;

	(void)state;
	loaded(cut, NULL); /* a damaged file: every answer a miss */
	for (i = 0; i < NOTE_THREADS; i++) {
		nr[i] = i;
		assert_int_equal(pthread_create(&threads[i], NULL, note_many,
						&nr[i]),
				 0);
	}
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, NULL, &res),
			 0);
	asked += (int)res.files;
	for (i = 0; i < NOTE_THREADS; i++) {
		assert_int_equal(pthread_join(threads[i], &bad), 0);
		assert_null(bad);
	}
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, NULL, &res), 0);
	asked += (int)res.files;
	assert_int_equal(asked, NOTE_THREADS * NOTES_EACH);
	assert_int_equal(asked_any("a"), NOTE_THREADS * NOTES_EACH);
}

/* A debug file noted before its executable is still asked for after it */
static void test_notes_debug_file_noted_first(void **state)
{
	struct symprov_prefetch_result res = { .size = sizeof(res) };

	(void)state;
	loaded(exe, NULL);
	to_ask(SYMPROV_KIND_DEBUGINFO, self_id, self_len, "/usr/bin/prog");
	to_ask(SYMPROV_KIND_EXECUTABLE, self_id, self_len, "/usr/bin/prog");
	ask_noted_of(self_id, self_len, &res);
	assert_int_equal(res.files, 2);
	assert_int_equal(h.nr_answers, 2);
	assert_int_equal(h.answers[0].kind, SYMPROV_KIND_EXECUTABLE);
	assert_int_equal(h.answers[1].kind, SYMPROV_KIND_DEBUGINFO);
	assert_int_equal(asked_any("a"), 2);
}

/* As listed: the debug file noted with its executable asked for itself */
static void test_notes_as_listed(void **state)
{
	struct symprov_prefetch_opts po = recorded(0);
	struct symprov_prefetch_result res = { .size = sizeof(res) };

	(void)state;
	loaded(exe, NULL);
	to_ask(SYMPROV_KIND_EXECUTABLE, self_id, self_len, "/usr/bin/prog");
	to_ask(SYMPROV_KIND_DEBUGINFO, self_id, self_len, "/usr/bin/prog");
	po.flags = SYMPROV_PREFETCH_AS_LISTED;
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res), 0);
	assert_int_equal(res.files, 2);
	assert_int_equal(asked("a", SYMPROV_KIND_DEBUGINFO,
			       SYMPROV_CONTENT_FULL),
			 1);
}

/* Options the prefetch refuses: nothing asked, the notes still to ask */
static void test_notes_kept_when_refused(void **state)
{
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_prefetch_opts po = recorded(0);

	(void)state;
	loaded(exe, NULL);
	to_ask(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	res.size = 4; /* shorter than any result the library knows */
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res),
			 -EINVAL);
	assert_int_equal(asked_any("a"), 0);
	to_ask(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	res.size = sizeof(res);
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, &po, &res), 0);
	assert_int_equal(res.files, 1);
}

static void test_notes_refuse_bad_requests(void **state)
{
	(void)state;
	loaded(exe, NULL);
	assert_int_equal(note(SYMPROV_KIND_KERNEL, NULL, self_len, NULL),
			 -EINVAL);
	assert_int_equal(note(SYMPROV_KIND_KERNEL, self_id, 0, NULL), -EINVAL);
	assert_int_equal(note(99, self_id, self_len, NULL), -EINVAL);
	assert_int_equal(symprov_session_note(h.s, NULL), -EINVAL);
	assert_int_equal(symprov_session_ask_noted(h.s, self_id, 0, NULL, NULL),
			 -EINVAL);
	/* nothing noted: nothing asked, nothing shown */
	assert_int_equal(symprov_session_ask_noted(h.s, NULL, 0, NULL, NULL), 0);
	assert_int_equal(asked_any("a"), 0);
	assert_int_equal(h.nr_progress, 0);
}

/*
 * A prefetch of @objs, one request at a time, that the person skips at
 * its first update; then the progress goes on as usual.
 */
static void prefetch_skipped(const struct symprov_object *objs, size_t n,
			     struct symprov_prefetch_result *res)
{
	struct symprov_prefetch_opts po = recorded(1);

	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(symprov_session_prefetch(h.s, objs, n, &po, res), 0);
	assert_int_equal(res->action, SYMPROV_PROGRESS_SKIP);
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_CONTINUE;
}

/* Skipped, a prefetch leaves the objects other than kernels alone */
static void test_prefetch_skipped(void **state)
{
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_object objs[3];
	struct symprov_answer ans;

	(void)state;
	profile_of(objs);
	/* the module and the program */
	prefetch_skipped(objs + 1, 2, &res);
	assert_int_equal(res.files, 1);
	assert_int_equal(res.found, 0);
	assert_int_equal(h.nr_answers, 1);
	assert_int_equal(h.answers[0].status, SYMPROV_CANCELLED);
	assert_int_equal(h.answers[0].action, SYMPROV_PROGRESS_SKIP);

	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	assert_int_equal(asked_any("a"), 1);
	/* a kernel is still asked for */
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 2);
}

/*
 * 8. Cancelled.
 */

static void test_cancel_then_find(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	symprov_session_cancel(h.s);
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.status, SYMPROV_CANCELLED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_null(ans.path);
	profile_of(objs);
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, NULL, &res), 0);
	assert_int_equal(res.files, 0);
	assert_int_equal(asked_any("a"), 0);
}

static void test_skip_cancels_that_find(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, other_id(1), self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.status, SYMPROV_CANCELLED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	assert_true(ans.first);
	/* another build ID is asked for */
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	assert_string_equal(ans.path, exe);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_CONTINUE);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 2);
	assert_true(symprov_session_active(h.s));
}

static void test_stop_cancels_later_finds(void **state)
{
	struct symprov_answer ans;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_STOP;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, other_id(1), self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ECANCELED);
	assert_int_equal(ans.status, SYMPROV_CANCELLED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_null(ans.path);
	assert_int_equal(asked_any("a"), 1);
	assert_false(symprov_session_active(h.s));
}

/* A key at BEGIN: nobody is asked */
static void test_stop_at_begin_asks_nobody(void **state)
{
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_STOP;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_int_equal(asked_any("a"), 0);
	assert_false(symprov_session_active(h.s));
}

static void test_skip_at_begin_skips_that_find(void **state)
{
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, other_id(1), self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	assert_int_equal(asked_any("a"), 0);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	assert_int_equal(asked_any("a"), 1);
}

/* STOP at END: this file came, later ones do not */
static void test_stop_at_end_cancels_later_finds(void **state)
{
	struct symprov_answer ans;

	(void)state;
	loaded(exe, NULL);
	h.action[SYMPROV_FETCH_END] = SYMPROV_PROGRESS_STOP;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	h.action[SYMPROV_FETCH_END] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_int_equal(asked_any("a"), 1);
}

/*
 * A prefetch of the kernel and objects skipped before the kernel was asked
 * for: the kernel is not asked later either (the person skipped what the
 * fetch showed, all of it).
 */
static void test_prefetch_skipped_with_the_kernel(void **state)
{
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_object objs[3], order[3];
	struct symprov_answer ans;

	(void)state;
	profile_of(objs);
	/* the kernel last, as a profile's objects may list it */
	order[0] = objs[1];
	order[1] = objs[2];
	order[2] = objs[0];
	prefetch_skipped(order, 3, &res);
	assert_int_equal(asked_any("a"), 1);

	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	assert_int_equal(asked_any("a"), 1);
}

/* A prefetch skipped at BEGIN asks for nothing, and leaves the objects */
static void test_prefetch_skipped_at_begin(void **state)
{
	struct symprov_object objs[3];
	struct symprov_prefetch_opts po = recorded(0);
	struct symprov_prefetch_result res = { .size = sizeof(res) };
	struct symprov_answer ans;

	(void)state;
	profile_of(objs);
	loaded(exe, NULL);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(symprov_session_prefetch(h.s, objs, 3, &po, &res), 0);
	assert_int_equal(res.action, SYMPROV_PROGRESS_SKIP);
	assert_int_equal(res.files, 0);
	assert_int_equal(h.nr_answers, 0);
	assert_int_equal(asked_any("a"), 0);
	h.action[SYMPROV_FETCH_BEGIN] = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(SYMPROV_KIND_EXECUTABLE, self_id, self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	assert_true(symprov_session_active(h.s));
}

/*
 * 9. The line for a person.
 */

static void expect_line(const struct symprov_find_opts *req,
			const struct symprov_answer *ans, const char *line)
{
	char buf[512], small[8];
	int n = symprov_answer_describe(buf, sizeof(buf), req, ans);

	assert_string_equal(buf, line);
	assert_int_equal(n, strlen(line));
	/* as snprintf(): the length it needs, what fits */
	assert_int_equal(
		symprov_answer_describe(small, sizeof(small), req, ans), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static const char *mib_of(const char *path)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%.1f MiB",
		 (double)size_of(path) / (1024.0 * 1024.0));
	return buf;
}

static void test_describe_found(void **state)
{
	struct symprov_find_opts req = req_of(SYMPROV_KIND_KERNEL, self_id,
					      self_len, "[kernel.kallsyms]");
	struct symprov_answer ans = { .size = sizeof(ans) };
	char line[512];

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.content", "1");
	assert_int_equal(symprov_session_find(h.s, &req, &ans), 0);
	snprintf(
		line, sizeof(line),
		"a supplied the symbols only (%s) of the vmlinux with build ID %s",
		mib_of(exe), TEST_BUILD_ID);
	expect_line(&req, &ans, line);
	symprov_answer_fini(&ans);
	teardown(NULL);
	setup(NULL);

	loaded(exe, NULL);
	req = req_of(SYMPROV_KIND_DEBUGINFO, self_id, self_len,
		     "/usr/bin/prog");
	assert_int_equal(symprov_session_find(h.s, &req, &ans), 0);
	snprintf(
		line, sizeof(line),
		"a supplied the whole file (%s) of the debug info of prog with build ID %s",
		mib_of(exe), TEST_BUILD_ID);
	expect_line(&req, &ans, line);
	symprov_answer_fini(&ans);
}

static void test_describe_not_found(void **state)
{
	struct symprov_find_opts req = req_of(SYMPROV_KIND_KERNEL, self_id,
					      self_len, "[kernel.kallsyms]");
	struct symprov_answer ans = { .size = sizeof(ans) };
	char line[512];

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "1");
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -ENOENT);
	snprintf(line, sizeof(line),
		 "no provider supplied the vmlinux (a: not found), build ID %s",
		 TEST_BUILD_ID);
	expect_line(&req, &ans, line);

	req.flags = SYMPROV_FIND_WHOLE;
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -ENOENT);
	snprintf(
		line, sizeof(line),
		"no provider supplied the whole vmlinux (a: not found), build ID %s",
		TEST_BUILD_ID);
	expect_line(&req, &ans, line);
}

static void test_describe_unavailable(void **state)
{
	struct symprov_find_opts req =
		req_of(SYMPROV_KIND_KERNEL_MODULE, module_id, module_len,
		       "/lib/modules/6.12/kernel/fs/xfs/xfs.ko");
	struct symprov_answer ans = { .size = sizeof(ans) };
	char line[512];

	(void)state;
	session_of("libtp_a.so:libtp_b.so");
	set("test.a.status", "1");
	set("test.b.status", "2");
	set("test.b.error", "110");
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -EIO);
	snprintf(
		line, sizeof(line),
		"no provider supplied the module xfs.ko (b: unavailable, %s), build ID %s",
		strerror(110), TEST_MODULE_BUILD_ID);
	expect_line(&req, &ans, line);
}

static void test_describe_skipped(void **state)
{
	struct symprov_find_opts req =
		req_of(SYMPROV_KIND_KERNEL_MODULE, module_id, module_len,
		       "/lib/modules/6.12/kernel/fs/xfs/xfs.ko");
	struct symprov_answer ans = { .size = sizeof(ans) };
	char line[512];

	(void)state;
	session_of("libtp_a.so");
	set("test.a.progress", "1");
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -ECANCELED);
	snprintf(line, sizeof(line),
		 "skipped the module xfs.ko with build ID %s",
		 TEST_MODULE_BUILD_ID);
	expect_line(&req, &ans, line);
}

static void test_describe_stopped(void **state)
{
	struct symprov_find_opts req =
		req_of(SYMPROV_KIND_KERNEL, self_id, self_len, NULL);
	struct symprov_answer ans = { .size = sizeof(ans) };

	(void)state;
	session_of("libtp_a.so");
	set("test.a.progress", "1");
	h.action[SYMPROV_FETCH_UPDATE] = SYMPROV_PROGRESS_STOP;
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -ECANCELED);
	expect_line(&req, &ans, "providers disabled for this session");
	/* and so is every later one */
	req.build_id = other_id(1);
	assert_int_equal(symprov_session_find(h.s, &req, &ans), -ECANCELED);
	expect_line(&req, &ans, "providers disabled for this session");
}

/*
 * 10. The helpers.
 */

static void test_status_str(void **state)
{
	(void)state;
	assert_string_equal(symprov_status_str(SYMPROV_FOUND), "found");
	assert_string_equal(symprov_status_str(SYMPROV_NOT_FOUND), "not found");
	assert_string_equal(symprov_status_str(SYMPROV_UNAVAILABLE),
			    "unavailable");
	assert_string_equal(symprov_status_str(SYMPROV_DISABLED), "disabled");
	assert_string_equal(symprov_status_str(SYMPROV_CANCELLED), "cancelled");
	assert_string_equal(symprov_status_str(5), "invalid status");
	assert_string_equal(symprov_status_str(-1), "invalid status");
}

static void expect_bad_id(const char *hex, const char *why_part)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	const char *why = NULL;

	assert_int_equal(symprov_build_id_parse(hex, id, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("'%s': '%s' lacks '%s'", hex, why, why_part);
}

static void test_build_id_parse(void **state)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	char hex[SYMPROV_BUILD_ID_HEX_MAX],
		longest[2 * SYMPROV_BUILD_ID_MAX + 3];
	const char *why = NULL;

	(void)state;
	assert_int_equal(symprov_build_id_parse("0aFf", id, &why), 2);
	assert_int_equal(id[0], 0x0a);
	assert_int_equal(id[1], 0xff);
	assert_string_equal(symprov_build_id_hex(id, 2, hex), "0aff");
	assert_int_equal(symprov_build_id_parse(TEST_BUILD_ID, id, &why), 20);
	assert_string_equal(symprov_build_id_hex(id, 20, hex), TEST_BUILD_ID);

	memset(longest, 'a', 2 * SYMPROV_BUILD_ID_MAX);
	longest[2 * SYMPROV_BUILD_ID_MAX] = '\0';
	assert_int_equal(symprov_build_id_parse(longest, id, &why),
			 SYMPROV_BUILD_ID_MAX);
	strcat(longest, "aa");
	expect_bad_id(longest, "too long");
	expect_bad_id("", "too short");
	expect_bad_id("a", "too short");
	expect_bad_id("abc", "odd number of hex digits");
	expect_bad_id("0g", "not a hex digit");
	expect_bad_id("12 4", "not a hex digit");
}

static int verify(const char *path, uint32_t kind, const unsigned char *id,
		  int len, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	assert_true(fd >= 0);
	*why = NULL;
	ret = symprov_verify_file(fd, kind, id, (size_t)len, why);
	close(fd);
	return ret;
}

static void test_verify_file(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(verify(exe, SYMPROV_KIND_EXECUTABLE, self_id, self_len,
				&why),
			 0);
	assert_int_equal(
		verify(exe, SYMPROV_KIND_KERNEL, self_id, self_len, &why), 0);
	assert_int_equal(verify(TEST_MODULE, SYMPROV_KIND_KERNEL_MODULE,
				module_id, module_len, &why),
			 0);
	assert_int_equal(verify(cut, SYMPROV_KIND_EXECUTABLE, self_id, self_len,
				&why),
			 -EBADMSG);
	assert_string_equal(
		why, "file is truncated: section header table past its end");
	assert_int_equal(verify(exe, SYMPROV_KIND_EXECUTABLE, other_id(1),
				self_len, &why),
			 -EBADMSG);
	assert_string_equal(why, "build ID differs from the one asked for");
	/* of the right build ID, not of the kind asked for */
	assert_int_equal(verify(exe, SYMPROV_KIND_KERNEL_MODULE, self_id,
				self_len, &why),
			 -EBADMSG);
	assert_non_null(why);
}

/* request(): a symprov_request as it is, checked as any file */
static void test_request_as_it_is(void **state)
{
	struct {
		struct symprov_request r;
		unsigned char tail[8];
	} newer;
	struct symprov_answer ans = { .size = sizeof(ans) };

	(void)state;
	loaded(exe, NULL);
	memset(&newer, 0, sizeof(newer));
	newer.r.size = sizeof(newer);
	newer.r.kind = SYMPROV_KIND_EXECUTABLE;
	newer.r.build_id = self_id;
	newer.r.build_id_len = (uint32_t)self_len;
	assert_int_equal(symprov_session_request(h.s, &newer.r, &ans), 0);
	assert_string_equal(ans.path, exe);
	symprov_answer_fini(&ans);
	/* not shown as a fetch */
	assert_int_equal(h.nr_progress, 0);
	newer.r.kind = SYMPROV_KIND_KERNEL_MODULE;
	assert_int_equal(symprov_session_request(h.s, &newer.r, &ans), -EIO);
	assert_int_equal(ans.err, -EBADMSG);
}

/*
 * 9. The user's keys, from a terminal (symprov_session_read_keys()).
 */

static int pty_master = -1, pty_slave = -1;
static volatile sig_atomic_t host_sigints;

static void host_on_sigint(int sig)
{
	(void)sig;
	host_sigints++;
}

/* A session that finds this executable, reading the keys of a pty */
static void keys_session(void)
{
	assert_int_equal(openpty(&pty_master, &pty_slave, NULL, NULL, NULL), 0);
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	assert_int_equal(symprov_session_read_keys(h.s, pty_slave), 0);
}

static void keys_done(void)
{
	struct termios term;

	/* the terminal as it was: canonical, with echo */
	assert_int_equal(tcgetattr(pty_slave, &term), 0);
	assert_true(term.c_lflag & ICANON);
	assert_true(term.c_lflag & ECHO);
	close(pty_master);
	close(pty_slave);
	pty_master = pty_slave = -1;
}

static void test_keys_s_skips_that_find(void **state)
{
	struct symprov_answer ans;

	(void)state;
	keys_session();
	assert_int_equal(write(pty_master, "s", 1), 1);
	assert_int_equal(find(SYMPROV_KIND_KERNEL, other_id(1), self_len, 0,
			      &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_SKIP);
	/* the key was for that fetch: the next one goes on */
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	assert_true(symprov_session_active(h.s));
	keys_done();
}

static void test_keys_d_stops_the_session(void **state)
{
	struct symprov_answer ans;

	(void)state;
	keys_session();
	assert_int_equal(write(pty_master, "xd", 2), 2);
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_false(symprov_session_active(h.s));
	keys_done();
}

static void test_keys_sigint_stops_then_calls_the_host(void **state)
{
	struct sigaction sa = { .sa_handler = host_on_sigint }, old, now;
	struct symprov_answer ans;

	(void)state;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGINT, &sa, &old), 0);
	host_sigints = 0;
	keys_session();
	h.raise_signal = SIGINT;
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 -ECANCELED);
	assert_int_equal(ans.action, SYMPROV_PROGRESS_STOP);
	assert_int_equal(host_sigints, 1);
	/* the host's handler is back after the fetch */
	assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, host_on_sigint);
	sigaction(SIGINT, &old, NULL);
	keys_done();
}

static void test_keys_not_from_a_pipe(void **state)
{
	struct symprov_answer ans;
	int fds[2];
	char c;

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(symprov_session_read_keys(h.s, fds[0]), 0);
	assert_int_equal(write(fds[1], "d", 1), 1);
	assert_int_equal(find(SYMPROV_KIND_KERNEL, self_id, self_len, 0, &ans),
			 0);
	symprov_answer_fini(&ans);
	/* not read: still there */
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(c, 'd');
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(symprov_session_read_keys(h.s, -2), -EINVAL);
	assert_int_equal(symprov_session_read_keys(h.s, -1), 0);
}

/* ... not even when the provider reports progress */
static void test_request_not_shown(void **state)
{
	struct symprov_request r = {
		.size = sizeof(r),
		.kind = SYMPROV_KIND_EXECUTABLE,
		.build_id = self_id,
		.build_id_len = (uint32_t)self_len,
	};
	struct symprov_answer ans = { .size = sizeof(ans) };

	(void)state;
	session_of("libtp_a.so");
	set("test.a.status", "0");
	set("test.a.path", exe);
	set("test.a.progress", "1");
	assert_int_equal(symprov_session_request(h.s, &r, &ans), 0);
	symprov_answer_fini(&ans);
	assert_int_equal(h.nr_progress, 0);
	assert_true(symprov_session_active(h.s));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new_refuses_a_nonzero_tail),
		T(test_new_accepts_a_zero_tail),
		T(test_new_takes_older_opts),
		T(test_bad_sizes_are_einval),
		T(test_config_is_read_by_providers),
		T(test_config_after_load_is_ebusy),
		T(test_config_after_find_is_ebusy),
		T(test_config_set_twice_takes_the_later),
		T(test_config_providers_key),
		T(test_load_counts_and_names_bad_entries),
		T(test_active_loads),
		T(test_active_until_cancelled),
		T(test_find_found),
		T(test_find_not_found),
		T(test_find_unavailable_is_eio),
		T(test_find_no_provider_is_enodev),
		T(test_find_first_then_not),
		T(test_find_refuses_a_damaged_file),
		T(test_kernel_symbols_by_default),
		T(test_kernel_whole_when_asked),
		T(test_content_full),
		T(test_content_unknown_warns_once),
		T(test_known_without_asking),
		T(test_known_file_deleted_since),
		T(test_content_of),
		T(test_prefetch_side_by_side),
		T(test_prefetch_as_listed),
		T(test_prefetch_counts_misses),
		T(test_prefetch_no_debuginfo_without_executable),
		T(test_prefetch_progress_phases),
		T(test_find_progress_phases),
		T(test_prefetch_skipped),
		T(test_prefetch_progress_of_an_abi_1_0_provider),
		T(test_notes_asked_side_by_side_once),
		T(test_notes_of_one_object),
		T(test_notes_debug_file_noted_first),
		T(test_notes_as_listed),
		T(test_notes_kept_when_refused),
		T(test_notes_refuse_bad_requests),
		T(test_notes_from_threads),
		T(test_cancel_then_find),
		T(test_skip_cancels_that_find),
		T(test_stop_cancels_later_finds),
		T(test_stop_at_begin_asks_nobody),
		T(test_skip_at_begin_skips_that_find),
		T(test_stop_at_end_cancels_later_finds),
		T(test_prefetch_skipped_at_begin),
		T(test_prefetch_skipped_with_the_kernel),
		T(test_keys_s_skips_that_find),
		T(test_keys_d_stops_the_session),
		T(test_keys_sigint_stops_then_calls_the_host),
		T(test_keys_not_from_a_pipe),
		T(test_describe_found),
		T(test_describe_not_found),
		T(test_describe_unavailable),
		T(test_describe_skipped),
		T(test_describe_stopped),
		T(test_status_str),
		T(test_build_id_parse),
		T(test_verify_file),
		T(test_request_as_it_is),
		T(test_request_not_shown),
	};
	const char *why;
	int ret;

	tp_dir = getenv("SYMPROV_TEST_PROVIDERS");
	if (!tp_dir) {
		fprintf(stderr,
			"test_session: SYMPROV_TEST_PROVIDERS is not set\n");
		return 1;
	}
	/* the list is the session's own, never the variable's */
	unsetenv(SYMPROV_LIST_ENV);
	self_len = symprov_build_id_parse(TEST_BUILD_ID, self_id, &why);
	module_len =
		symprov_build_id_parse(TEST_MODULE_BUILD_ID, module_id, &why);
	if (self_len <= 0 || module_len <= 0)
		return 1;
	if (!mkdtemp(scratch)) {
		perror("test_session: mkdtemp");
		return 1;
	}
	/* the files found: copies, for under valgrind SELF is valgrind's */
	snprintf(exe, sizeof(exe), "%s/exe", scratch);
	snprintf(cut, sizeof(cut), "%s/cut", scratch);
	snprintf(gone, sizeof(gone), "%s/gone", scratch);
	if (copy_file(exe, false) || copy_file(cut, true)) {
		perror("test_session: copying " SELF);
		ret = 1;
		goto out;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
out:
	/* the files this made, one by one: no recursive removal */
	unlink(exe);
	unlink(cut);
	unlink(gone);
	rmdir(scratch);
	return ret;
}
