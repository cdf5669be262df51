// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The loader against real shared objects: the test providers built in
 * good and broken variants (tests/providers/test_provider.c).  The file
 * they find is this test's own executable, linked with the build ID asked
 * for (TEST_BUILD_ID): the loader checks it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "symprov_buildid.h"
#include "symprov_loader.h"

#define MAX_CONFIG 16

struct test_host {
	/* every line logged: a check reads them all */
	char **lines;
	int *levels;
	int nr_lines;
	const char *keys[MAX_CONFIG];
	const char *values[MAX_CONFIG];
	int nr_config;
	int progress_action;
	int progress_calls;
};

static struct test_host th;
static const char *tp_dir;
static char tp_path_buf[PATH_MAX];

static void th_log(void *data, int level, const char *provider, const char *msg)
{
	struct test_host *h = data;
	size_t n = (size_t)h->nr_lines + 1;
	char *line;

	h->lines = realloc(h->lines, n * sizeof(*h->lines));
	h->levels = realloc(h->levels, n * sizeof(*h->levels));
	assert_non_null(h->lines);
	assert_non_null(h->levels);
	assert_true(asprintf(&line, "%s%s%s", provider ?: "",
			     provider ? ": " : "", msg) >= 0);
	h->levels[h->nr_lines] = level;
	h->lines[h->nr_lines++] = line;
}

static const char *th_config(void *data, const char *key)
{
	struct test_host *h = data;
	int i;

	for (i = 0; i < h->nr_config; i++)
		if (!strcmp(h->keys[i], key))
			return h->values[i];
	return NULL;
}

static int th_progress(void *data, const char *provider,
		       const struct symprov_request *req, uint64_t done,
		       uint64_t total)
{
	struct test_host *h = data;

	(void)provider, (void)req, (void)done, (void)total;
	h->progress_calls++;
	return h->progress_action;
}

static const struct symprov_loader_host host = {
	.name = "test",
	.data = &th,
	.log = th_log,
	.config = th_config,
	.progress = th_progress,
};

static void set_config(const char *key, const char *value)
{
	th.keys[th.nr_config] = key;
	th.values[th.nr_config++] = value;
}

static int count_lines(int level, const char *needle)
{
	int i, n = 0;

	for (i = 0; i < th.nr_lines; i++)
		if (th.levels[i] == level && strstr(th.lines[i], needle))
			n++;
	return n;
}

static int count_level(int level)
{
	int i, n = 0;

	for (i = 0; i < th.nr_lines; i++)
		n += th.levels[i] == level;
	return n;
}

static int setup(void **state)
{
	(void)state;
	memset(&th, 0, sizeof(th));
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < th.nr_lines; i++)
		free(th.lines[i]);
	free(th.lines);
	free(th.levels);
	memset(&th, 0, sizeof(th));
	return 0;
}

static const char *tp(const char *variant)
{
	snprintf(tp_path_buf, sizeof(tp_path_buf), "%s/libtp_%s.so", tp_dir,
		 variant);
	return tp_path_buf;
}

static char *list_of(const char *a, const char *b)
{
	static char buf[2 * PATH_MAX + 2];

	snprintf(buf, sizeof(buf), "%s", tp(a));
	if (b) {
		strcat(buf, ":");
		strcat(buf, tp(b));
	}
	return buf;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* TEST_BUILD_ID, this executable's: a file found for it passes the check */
static unsigned char bid[20];
#define SELF "/proc/self/exe"

/* symprov_loader_find(), for the tests that look at the path only */
static int loader_find(struct symprov_loader *l,
		       const struct symprov_request *req, char **path)
{
	struct symprov_answer ans;

	symprov_loader_find(l, req, &ans);
	*path = ans.path;
	return ans.status;
}

/*
 * @file: a copy of this executable, cut to half its size if @halve.  The
 * size is what was copied: under valgrind, stat() of SELF is valgrind's.
 */
static void copy_self(const char *file, bool halve)
{
	int in = open(SELF, O_RDONLY | O_CLOEXEC);
	int out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char buf[65536];
	off_t size = 0;
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		assert_int_equal(write(out, buf, (size_t)n), n);
		size += n;
	}
	if (halve)
		assert_int_equal(ftruncate(out, size / 2), 0);
	close(in);
	close(out);
}

/* Ask for the build ID that starts with byte @first. */
static int find_id(struct symprov_loader *l, unsigned char first, char **path)
{
	unsigned char id[sizeof(bid)];
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = SYMPROV_KIND_KERNEL,
		.build_id = id,
		.build_id_len = sizeof(id),
		.dso_name = "[kernel.kallsyms]",
	};

	memcpy(id, bid, sizeof(id));
	id[0] = first;
	return loader_find(l, &req, path);
}

static int find(struct symprov_loader *l, char **path)
{
	return find_id(l, bid[0], path);
}

/* Nothing configured: nothing loaded, nothing asked, nothing said. */
static void test_empty_list(void **state)
{
	const char *lists[] = { NULL, "" };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct symprov_loader *l =
			symprov_loader_new(lists[i], tp_dir, &host);
		char *path;

		assert_non_null(l);
		assert_int_equal(symprov_loader_nr_entries(l), 0);
		assert_int_equal(find(l, &path), SYMPROV_DISABLED);
		assert_null(path);
		symprov_loader_delete(l);
	}
	assert_int_equal(th.nr_lines, 0);
}

static void test_good_provider_loads(void **state)
{
	struct symprov_loader *l = symprov_loader_new(tp("a"), NULL, &host);
	const struct symprov_entry_info *e;

	(void)state;
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	e = symprov_loader_entry(l, 0);
	assert_null(e->error);
	assert_string_equal(e->name, "a");
	assert_string_equal(e->version, "9.9");
	assert_int_equal(e->abi_major, SYMPROV_ABI_MAJOR);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 0);
	symprov_loader_delete(l);
	/* fini() was called, through the provider's log */
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: fini"), 1);
}

/* The example in symprov.h's comment is a working provider. */
static void test_header_example(void **state)
{
	struct symprov_loader *l =
		symprov_loader_new(tp("docexample"), NULL, &host);
	const struct symprov_entry_info *e;

	(void)state;
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	e = symprov_loader_entry(l, 0);
	assert_string_equal(e->name, "mine");
	assert_string_equal(e->description, "vmlinux from /srv");
	symprov_loader_delete(l);
}

/* A bare name is looked for in the provider directory. */
static void test_bare_name_in_dir(void **state)
{
	struct symprov_loader *l =
		symprov_loader_new("libtp_b.so", tp_dir, &host);

	(void)state;
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_string_equal(symprov_loader_entry(l, 0)->path, tp("b"));
	symprov_loader_delete(l);
}

/*
 * The host's directories are a ':' list, searched in order: empty ones
 * and ones without the file are passed over.
 */
static void test_bare_name_in_dirs(void **state)
{
	char dirs[2 * PATH_MAX];
	struct symprov_loader *l;

	(void)state;
	snprintf(dirs, sizeof(dirs), "/nonexistent::%s:/", tp_dir);
	l = symprov_loader_new("libtp_b.so", dirs, &host);
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_string_equal(symprov_loader_entry(l, 0)->path, tp("b"));
	symprov_loader_delete(l);
}

/* Each bad entry: one warning naming it and the reason, others load. */
static void check_bad_entry(const char *spec, const char *reason)
{
	char list[3 * PATH_MAX], entry[PATH_MAX];
	struct symprov_loader *l;
	const struct symprov_entry_info *e;
	char *path = NULL;

	memset(&th, 0, sizeof(th));
	snprintf(entry, sizeof(entry), "%s", spec); /* tp() reuses its buffer */
	snprintf(list, sizeof(list), "%s:%s", entry, tp("a"));
	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	l = symprov_loader_new(list, tp_dir, &host);
	assert_non_null(l);
	assert_int_equal(symprov_loader_nr_entries(l), 2);
	if (symprov_loader_nr_providers(l) != 1)
		fail_msg("entry '%s' loaded", entry);
	e = symprov_loader_entry(l, 0);
	assert_non_null(e->error);
	if (!strstr(e->error, reason))
		fail_msg("entry '%s': error '%s' lacks '%s'", entry, e->error,
			 reason);
	if (count_level(SYMPROV_LOG_WARN) != 1) {
		int i;

		for (i = 0; i < th.nr_lines; i++)
			print_message("log: %s\n", th.lines[i]);
		fail_msg("entry '%s': not one warning", entry);
	}
	assert_int_equal(count_lines(SYMPROV_LOG_WARN, entry), 1);
	/* the good provider still answers */
	assert_int_equal(find(l, &path), SYMPROV_FOUND);
	assert_string_equal(path, SELF);
	free(path);
	symprov_loader_delete(l);
	teardown(NULL);
}

/* libtp_a.so relabelled as an AArch64 object (e_machine 183). */
static const char *other_arch(void)
{
	static char path[PATH_MAX];
	static const unsigned char aarch64[2] = { 183, 0 };
	char cmd[3 * PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/libother-arch.so", tp_dir);
	snprintf(cmd, sizeof(cmd), "cp '%s/libtp_a.so' '%s'", tp_dir, path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 18, SEEK_SET), 0);
	assert_int_equal(fwrite(aarch64, 1, 2, f), 2);
	fclose(f);
	return path;
}

static void test_bad_entries(void **state)
{
	char notso[PATH_MAX];
	FILE *f;

	(void)state;
	snprintf(notso, sizeof(notso), "%s/not-a-library.so", tp_dir);
	f = fopen(notso, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n# a script is no provider, whatever its name says,\n# however long it is.\n",
	      f);
	fclose(f);

	check_bad_entry("/nonexistent/libnothere.so", "No such file");
	check_bad_entry("libnothere-at-all.so", "No such file");
	check_bad_entry(notso, "not-a-library.so: invalid ELF header");
	check_bad_entry(other_arch(),
			"ELF file for another machine (e_machine 183");
	check_bad_entry(tp_dir, "Is a directory");
	check_bad_entry(tp("noentry"), "no symprov_provider_entry symbol");
	check_bad_entry(tp("abi2"),
			"ABI version 2." STR(
				SYMPROV_ABI_MINOR) ", this test supports 1.x");
	check_bad_entry(tp("reserved"), "reserved0 is not zero");
	check_bad_entry(tp("initfail"), "init failed: Operation not permitted");
	check_bad_entry(tp("size0"), "size 0 is too small");
	check_bad_entry(tp("sizesmall"), "size 24 is not valid");
	check_bad_entry(tp("sizehuge"), "size 100000 is not valid");
	check_bad_entry(tp("newerdirty"), "fields this host does not know");
	unlink(notso);
	unlink(other_arch());
}

/* A relative path is a path: from the current directory. */
static void test_relative_path(void **state)
{
	struct symprov_loader *l;
	char cwd[PATH_MAX];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tp_dir), 0);
	l = symprov_loader_new("./libtp_b.so", "/nonexistent", &host);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_string_equal(symprov_loader_entry(l, 0)->path, "./libtp_b.so");
	symprov_loader_delete(l);
}

/* A newer provider whose extra fields are zero is fine. */
static void test_newer_zero_tail(void **state)
{
	struct symprov_loader *l = symprov_loader_new(tp("newer"), NULL, &host);

	(void)state;
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 0);
	symprov_loader_delete(l);
}

static void test_duplicate(void **state)
{
	struct symprov_loader *l =
		symprov_loader_new(list_of("a", "a"), NULL, &host);

	(void)state;
	assert_int_equal(symprov_loader_nr_entries(l), 2);
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_non_null(strstr(symprov_loader_entry(l, 1)->error,
			       "same provider as entry 1"));
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	symprov_loader_delete(l);
}

static void test_list_oddities(void **state)
{
	char list[PATH_MAX * 2], *longname;
	struct symprov_loader *l;

	(void)state;
	/* only separators: one warning, nothing loaded */
	l = symprov_loader_new(":::", NULL, &host);
	assert_int_equal(symprov_loader_nr_providers(l), 0);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	symprov_loader_delete(l);

	/* empty entries around a good one */
	teardown(NULL);
	memset(&th, 0, sizeof(th));
	snprintf(list, sizeof(list), "::%s::", tp("a"));
	l = symprov_loader_new(list, NULL, &host);
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	symprov_loader_delete(l);

	/* a very long entry, a control character, non-UTF-8 bytes */
	teardown(NULL);
	memset(&th, 0, sizeof(th));
	longname = malloc(10000);
	memset(longname, 'x', 9999);
	longname[9999] = '\0';
	l = symprov_loader_new(longname, NULL, &host);
	assert_int_equal(symprov_loader_nr_providers(l), 0);
	assert_int_equal(count_lines(SYMPROV_LOG_WARN, "entry too long"), 1);
	symprov_loader_delete(l);
	free(longname);
	l = symprov_loader_new("lib\tx.so:\xff\xfe.so", NULL, &host);
	assert_int_equal(symprov_loader_nr_entries(l), 2);
	assert_int_equal(count_lines(SYMPROV_LOG_WARN, "control character"), 1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 3);
	symprov_loader_delete(l);
}

/* Asked in order; the first FOUND wins, the rest are not asked. */
static void test_order_first_found_wins(void **state)
{
	struct symprov_loader *l;
	char *path;

	(void)state;
	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	set_config("test.b.status", "0");
	set_config("test.b.path", "/");
	l = symprov_loader_new(list_of("a", "b"), NULL, &host);
	assert_int_equal(find(l, &path), SYMPROV_FOUND);
	assert_string_equal(path, SELF);
	free(path);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "b: find"), 0);
	symprov_loader_delete(l);
}

/* NOT_FOUND, UNAVAILABLE, DISABLED pass to the next provider. */
static void test_pass_through_statuses(void **state)
{
	static const char *const st[] = { "1", "2", "3" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct symprov_loader *l;
		char *path;

		memset(&th, 0, sizeof(th));
		set_config("test.a.status", st[i]);
		set_config("test.b.status", "0");
		set_config("test.b.path", SELF);
		l = symprov_loader_new(list_of("a", "b"), NULL, &host);
		assert_int_equal(find(l, &path), SYMPROV_FOUND);
		assert_string_equal(path, SELF);
		free(path);
		symprov_loader_delete(l);
		teardown(NULL);
	}
}

static void check_overall(const char *sa, const char *sb, int expect)
{
	struct symprov_loader *l;
	char *path;

	memset(&th, 0, sizeof(th));
	set_config("test.a.status", sa);
	set_config("test.b.status", sb);
	l = symprov_loader_new(list_of("a", "b"), NULL, &host);
	assert_int_equal(find(l, &path), expect);
	assert_null(path);
	symprov_loader_delete(l);
	teardown(NULL);
}

static void test_overall_status(void **state)
{
	(void)state;
	check_overall("3", "3", SYMPROV_DISABLED);
	check_overall("3", "1", SYMPROV_NOT_FOUND);
	check_overall("1", "2", SYMPROV_UNAVAILABLE);
	check_overall("2", "1", SYMPROV_UNAVAILABLE);
	/* CANCELLED ends the request: b is never asked */
	check_overall("4", "0", SYMPROV_CANCELLED);
}

/* Odd answers become UNAVAILABLE, with a warning, and leak nothing. */
static void check_misbehaviour(const char *status, const char *path,
			       const char *warning)
{
	struct symprov_loader *l;
	char *found;

	memset(&th, 0, sizeof(th));
	set_config("test.a.status", status);
	if (path)
		set_config("test.a.path", path);
	l = symprov_loader_new(tp("a"), NULL, &host);
	assert_int_equal(find(l, &found), SYMPROV_UNAVAILABLE);
	assert_null(found);
	if (warning)
		assert_int_equal(count_lines(SYMPROV_LOG_WARN, warning), 1);
	else
		assert_int_equal(count_level(SYMPROV_LOG_WARN), 0);
	symprov_loader_delete(l);
	teardown(NULL);
}

static void test_result_rules(void **state)
{
	(void)state;
	check_misbehaviour("0", NULL, "found without a path");
	check_misbehaviour("0", "", "found without a path");
	check_misbehaviour("0", "/nonexistent/vmlinux", "No such file");
	check_misbehaviour("77", NULL, "unknown status 77");
	check_misbehaviour("-1", "/dev/null", "unknown status -1");
	/* a path with a non-FOUND status is freed (ASan/valgrind tell) */
	check_misbehaviour("2", "/dev/null", NULL);
}

/* Progress SKIP cancels this request; STOP every later one too. */
static void test_progress_skip_and_stop(void **state)
{
	struct symprov_loader *l;
	char *path;

	(void)state;
	set_config("test.a.progress", "1");
	set_config("test.b.status", "0");
	set_config("test.b.path", SELF);
	l = symprov_loader_new(list_of("a", "b"), NULL, &host);

	th.progress_action = SYMPROV_PROGRESS_SKIP;
	assert_int_equal(find_id(l, 1, &path), SYMPROV_CANCELLED);
	assert_false(symprov_loader_stopped(l));
	/* skip was for that request only */
	th.progress_action = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(l, &path), SYMPROV_FOUND);
	free(path);

	th.progress_action = SYMPROV_PROGRESS_STOP;
	assert_int_equal(find_id(l, 3, &path), SYMPROV_CANCELLED);
	assert_true(symprov_loader_stopped(l));
	th.progress_action = SYMPROV_PROGRESS_CONTINUE;
	th.progress_calls = 0;
	assert_int_equal(find_id(l, 4, &path), SYMPROV_CANCELLED);
	assert_null(path);
	/* nobody was asked after the stop */
	assert_int_equal(th.progress_calls, 0);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "b: find"), 1);
	symprov_loader_delete(l);
}

/* Each build ID is asked once a session, whatever the answer. */
static void test_session_memo(void **state)
{
	static const char *const statuses[] = { "1", "2", "3" };
	char file[] = "/tmp/test_loader.XXXXXX";
	struct symprov_loader *l;
	char *path;
	int fd, i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&th, 0, sizeof(th));
		set_config("test.a.status", statuses[i]);
		l = symprov_loader_new(tp("a"), NULL, &host);
		assert_int_equal(find(l, &path), atoi(statuses[i]));
		assert_int_equal(find(l, &path), atoi(statuses[i]));
		assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 1);
		/* another build ID is another question */
		find_id(l, 9, &path);
		assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 2);
		symprov_loader_delete(l);
		teardown(NULL);
	}

	/* a skipped build ID stays skipped */
	set_config("test.a.progress", "1");
	th.progress_action = SYMPROV_PROGRESS_SKIP;
	l = symprov_loader_new(tp("a"), NULL, &host);
	assert_int_equal(find(l, &path), SYMPROV_CANCELLED);
	th.progress_action = SYMPROV_PROGRESS_CONTINUE;
	assert_int_equal(find(l, &path), SYMPROV_CANCELLED);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 1);
	symprov_loader_delete(l);
	teardown(NULL);

	/* a found file is reused while it is there */
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	copy_self(file, false);
	set_config("test.a.status", "0");
	set_config("test.a.path", file);
	l = symprov_loader_new(tp("a"), NULL, &host);
	for (i = 0; i < 2; i++) {
		assert_int_equal(find(l, &path), SYMPROV_FOUND);
		assert_string_equal(path, file);
		free(path);
	}
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 1);
	unlink(file);
	/* gone: asked again (and the provider's path is now missing) */
	assert_int_equal(find(l, &path), SYMPROV_UNAVAILABLE);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 2);
	symprov_loader_delete(l);
}

static int find_kind(struct symprov_loader *l, uint32_t kind, uint32_t content,
		     struct symprov_answer *ans)
{
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = kind,
		.build_id = bid,
		.build_id_len = sizeof(bid),
		.content = content,
	};

	return symprov_loader_find(l, &req, ans);
}

static int find_content(struct symprov_loader *l, uint32_t content,
			struct symprov_answer *ans)
{
	return find_kind(l, SYMPROV_KIND_KERNEL, content, ans);
}

/*
 * ABI 1.1 content: what was asked reaches the provider (a 1.0 provider is
 * asked for the whole file); the answer says what the file holds and who
 * found it; the whole file serves a later request for the symbols, not
 * the other way round.
 */
static void test_content(void **state)
{
	struct symprov_answer ans;
	struct symprov_loader *l;

	(void)state;
	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	set_config("test.a.content", "1");
	l = symprov_loader_new(tp("a"), NULL, &host);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_SYMBOLS, &ans),
			 SYMPROV_FOUND);
	assert_int_equal(ans.content, SYMPROV_CONTENT_SYMBOLS);
	assert_string_equal(ans.source, "a");
	free(ans.path);
	assert_int_equal(
		count_lines(SYMPROV_LOG_DEBUG, "a: find a kind 1 content 1"), 1);
	/* symbols only do not serve the whole file: asked again, and the
	 * provider answering symbols to that is refused */
	assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans),
			 SYMPROV_UNAVAILABLE);
	assert_null(ans.path);
	assert_int_equal(
		count_lines(SYMPROV_LOG_DEBUG, "a: find a kind 1 content 0"), 1);
	assert_int_equal(
		count_lines(SYMPROV_LOG_WARN, "not what was asked for"), 1);
	symprov_loader_delete(l);
	teardown(NULL);

	/* a whole file found serves the symbols-only request: not asked */
	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	l = symprov_loader_new(tp("a"), NULL, &host);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans),
			 SYMPROV_FOUND);
	free(ans.path);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_SYMBOLS, &ans),
			 SYMPROV_FOUND);
	assert_int_equal(ans.content, SYMPROV_CONTENT_FULL);
	free(ans.path);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 1);
	symprov_loader_delete(l);
	teardown(NULL);

	/* ABI 1.0: asked for the whole file, whatever the host needs */
	set_config("test.old.status", "0");
	set_config("test.old.path", SELF);
	l = symprov_loader_new(tp("abi10"), NULL, &host);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_SYMBOLS, &ans),
			 SYMPROV_FOUND);
	assert_int_equal(ans.content, SYMPROV_CONTENT_FULL);
	assert_string_equal(ans.source, "old");
	free(ans.path);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG,
				     "old: find old kind 1 content 0"),
			 1);
	symprov_loader_delete(l);
}

/* Ask providers a then b for the whole file: the answer's status, source
 * and error. */
static void expect_answer(int status, const char *source, int error)
{
	struct symprov_answer ans;
	struct symprov_loader *l;

	l = symprov_loader_new(list_of("a", "b"), NULL, &host);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans), status);
	assert_string_equal(ans.source, source);
	assert_int_equal(ans.err, -error);
	free(ans.path);
	/* remembered, with its source and detail: not asked again */
	assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans), status);
	assert_string_equal(ans.source, source);
	assert_int_equal(ans.err, -error);
	free(ans.path);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "b: find"), 1);
	symprov_loader_delete(l);
	teardown(NULL);
}

/*
 * A failed request says whose answer it is and why: the provider with the
 * strongest status (unavailable over not found over disabled), the first
 * one among equals, also when the session remembers it; a file found
 * after a failure carries no error.
 */
static void test_failure_source(void **state)
{
	(void)state;
	set_config("test.a.status", "1");
	set_config("test.b.status", "2");
	set_config("test.b.error", "110");
	expect_answer(SYMPROV_UNAVAILABLE, "b", 110);

	/* not found twice: the first one's */
	set_config("test.a.status", "1");
	set_config("test.b.status", "1");
	set_config("test.b.error", "2");
	expect_answer(SYMPROV_NOT_FOUND, "a", 0);

	/* disabled, then found: the finder, no error */
	set_config("test.a.status", "3");
	set_config("test.a.error", "13");
	set_config("test.b.status", "0");
	set_config("test.b.path", SELF);
	expect_answer(SYMPROV_FOUND, "b", 0);
}

/*
 * Provider a returns @path for the whole file: it is checked, refused as
 * @why, and is a's UNAVAILABLE (EBADMSG), with one warning naming a, the
 * file, why and the build ID; the session remembers it: a is not asked,
 * and nothing is said, again.
 */
static void check_rejected(const char *path, const char *why)
{
	char hex[SYMPROV_BUILD_ID_HEX_MAX], warning[PATH_MAX + 256];
	struct symprov_answer ans;
	struct symprov_loader *l;
	int i;

	memset(&th, 0, sizeof(th));
	snprintf(warning, sizeof(warning),
		 "a supplied %s, rejected (%s), build ID %s", path, why,
		 symprov_build_id_hex(bid, sizeof(bid), hex));
	set_config("test.a.status", "0");
	set_config("test.a.path", path);
	l = symprov_loader_new(tp("a"), NULL, &host);
	for (i = 0; i < 2; i++) {
		assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans),
				 SYMPROV_UNAVAILABLE);
		assert_null(ans.path);
		assert_string_equal(ans.source, "a");
		assert_int_equal(ans.err, -EBADMSG);
	}
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 1);
	if (count_level(SYMPROV_LOG_WARN) != 1 ||
	    count_lines(SYMPROV_LOG_WARN, warning) != 1) {
		for (i = 0; i < th.nr_lines; i++)
			print_message("log: %s\n", th.lines[i]);
		fail_msg("not one warning '%s'", warning);
	}
	symprov_loader_delete(l);
	teardown(NULL);
}

/*
 * A file is not taken on a provider's word: another build ID's, a damaged
 * one, something not a regular file are refused; a refused file does not
 * stop the next provider from supplying the right one.
 */
static void test_found_file_checked(void **state)
{
	char other[PATH_MAX], cut[] = "/tmp/test_loader.XXXXXX";
	struct symprov_answer ans;
	struct symprov_loader *l;
	int fd;

	(void)state;
	snprintf(other, sizeof(other), "%s", tp("b"));
	check_rejected(other, "build ID differs from the one asked for");
	check_rejected("/dev/null", "not a regular file");
	check_rejected("/", "not a regular file");
	/* the build ID note is whole, the section headers gone */
	fd = mkstemp(cut);
	assert_true(fd >= 0);
	close(fd);
	copy_self(cut, true);
	check_rejected(cut,
		       "file is truncated: section header table past its end");

	set_config("test.a.status", "0");
	set_config("test.a.path", cut);
	set_config("test.b.status", "0");
	set_config("test.b.path", SELF);
	l = symprov_loader_new(list_of("a", "b"), NULL, &host);
	assert_int_equal(find_content(l, SYMPROV_CONTENT_FULL, &ans),
			 SYMPROV_FOUND);
	assert_string_equal(ans.path, SELF);
	assert_string_equal(ans.source, "b");
	assert_int_equal(ans.err, 0);
	free(ans.path);
	assert_int_equal(count_lines(SYMPROV_LOG_WARN, "a supplied "), 1);
	symprov_loader_delete(l);
	unlink(cut);
}

/*
 * The file is checked as the kind asked for: this executable is one, and
 * debug info (it has a .symtab), not a kernel module; and only a kernel
 * comes as the symbols only.
 */
static void test_found_file_is_of_its_kind(void **state)
{
	static const uint32_t good[] = { SYMPROV_KIND_EXECUTABLE,
					 SYMPROV_KIND_DEBUGINFO };
	struct symprov_answer ans;
	struct symprov_loader *l;
	size_t i;

	(void)state;
	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	l = symprov_loader_new(tp("a"), NULL, &host);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(find_kind(l, good[i], SYMPROV_CONTENT_FULL,
					   &ans),
				 SYMPROV_FOUND);
		free(ans.path);
	}
	assert_int_equal(find_kind(l, SYMPROV_KIND_KERNEL_MODULE,
				   SYMPROV_CONTENT_FULL, &ans),
			 SYMPROV_UNAVAILABLE);
	assert_null(ans.path);
	assert_int_equal(ans.err, -EBADMSG);
	assert_int_equal(
		count_lines(
			SYMPROV_LOG_WARN,
			"a supplied " SELF
			", rejected (not a relocatable object file, as a kernel module is), build ID " TEST_BUILD_ID),
		1);
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
	symprov_loader_delete(l);
	teardown(NULL);

	set_config("test.a.status", "0");
	set_config("test.a.path", SELF);
	set_config("test.a.content", "1");
	l = symprov_loader_new(tp("a"), NULL, &host);
	assert_int_equal(find_kind(l, SYMPROV_KIND_EXECUTABLE,
				   SYMPROV_CONTENT_SYMBOLS, &ans),
			 SYMPROV_UNAVAILABLE);
	assert_null(ans.path);
	assert_int_equal(
		count_lines(SYMPROV_LOG_WARN, "not what was asked for"), 1);
	assert_int_equal(find_kind(l, SYMPROV_KIND_KERNEL,
				   SYMPROV_CONTENT_SYMBOLS, &ans),
			 SYMPROV_FOUND);
	free(ans.path);
	symprov_loader_delete(l);
}

/* With elevated privileges the environment is the user's: libdebuginfod
 * would take its URLs and cache from it, so the provider stays out. */
static void test_debuginfod_secure(void **state)
{
	struct symprov_loader_host secure = host;
	char prov[PATH_MAX], cache[] = "/tmp/test_loader.XXXXXX";
	struct symprov_loader *l;
	char *path;

	(void)state;
	snprintf(prov, sizeof(prov), "%s/../../lib/libdebuginfodprov.so",
		 tp_dir);
	assert_non_null(mkdtemp(cache));
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1); /* refused */
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	secure.flags = SYMPROV_HOST_SECURE;
	l = symprov_loader_new(prov, NULL, &secure);
	assert_int_equal(symprov_loader_nr_providers(l), 1);
	assert_int_equal(find(l, &path), SYMPROV_DISABLED);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "elevated privileges"),
			 1);
	symprov_loader_delete(l);
	/* the control: without the flag it asks, and the server is down */
	l = symprov_loader_new(prov, NULL, &host);
	assert_int_equal(find(l, &path), SYMPROV_UNAVAILABLE);
	symprov_loader_delete(l);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	assert_int_equal(system("rm -rf /tmp/test_loader.??????"), 0);
}

/* A request the host got wrong never reaches a provider. */
static void test_invalid_request(void **state)
{
	struct symprov_loader *l = symprov_loader_new(tp("a"), NULL, &host);
	struct symprov_request req = { .size = sizeof(req), .kind = 1 };
	char *path;

	(void)state;
	assert_int_equal(loader_find(l, &req, &path), SYMPROV_UNAVAILABLE);
	req.build_id = bid;
	req.build_id_len = 33;
	assert_int_equal(loader_find(l, &req, &path), SYMPROV_UNAVAILABLE);
	assert_int_equal(count_lines(SYMPROV_LOG_DEBUG, "a: find"), 0);
	symprov_loader_delete(l);
}

/* Under AT_SECURE the variable is ignored, with one warning. */
static void test_at_secure(void **state)
{
	(void)state;
	setenv("TEST_PROVIDERS", "libtp_a.so", 1);
	assert_null(
		symprov_list_from_env("TEST_PROVIDERS", true, &host));
	assert_int_equal(
		count_lines(
			SYMPROV_LOG_WARN,
			"TEST_PROVIDERS ignored: running with elevated privileges"),
		1);
	assert_string_equal(symprov_list_from_env("TEST_PROVIDERS",
							 false, &host),
			    "libtp_a.so");
	/* not AT_SECURE */
	assert_string_equal(symprov_list_from_env("TEST_PROVIDERS", false, &host),
			    "libtp_a.so");
	setenv("TEST_PROVIDERS", "", 1);
	assert_null(
		symprov_list_from_env("TEST_PROVIDERS", true, &host));
	assert_null(symprov_list_from_env("TEST_PROVIDERS", false, &host));
	unsetenv("TEST_PROVIDERS");
	assert_null(symprov_list_from_env("TEST_PROVIDERS", false, &host));
	assert_int_equal(count_level(SYMPROV_LOG_WARN), 1);
}

int main(void)
{
	const char *why;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_good_provider_loads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_header_example, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bare_name_in_dir, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bare_name_in_dirs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_relative_path, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_entries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_newer_zero_tail, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_duplicate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list_oddities, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_order_first_found_wins,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pass_through_statuses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_overall_status, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_result_rules, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_progress_skip_and_stop,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_memo, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_debuginfod_secure, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_source, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_found_file_checked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_found_file_is_of_its_kind,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_at_secure, setup,
						teardown),
	};

	if (symprov_build_id_parse(TEST_BUILD_ID, bid, &why) != sizeof(bid))
		return 1;
	tp_dir = getenv("SYMPROV_TEST_PROVIDERS");
	if (!tp_dir) {
		fprintf(stderr,
			"test_loader: SYMPROV_TEST_PROVIDERS is not set\n");
		return 1;
	}
	return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
