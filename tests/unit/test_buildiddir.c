// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbuildiddirprov.so through its ABI: where its trees come from (config
 * key, environment, privileged host) and its kernel index under threads.
 * The ELF file it looks for is this test itself, linked with a known build
 * ID (TEST_BUILD_ID); the layouts are tested through symprov in
 * tests/integration/test_buildiddir.py.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
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

#include "symprov.h"
#include "symprov_buildid.h"

#define NR_THREADS 8

static char tree[PATH_MAX]; /* holds boot/vmlinux-test, a copy of us */
static char self[PATH_MAX];
static unsigned char self_id[SYMPROV_BUILD_ID_MAX];
static int self_id_len;
static void *handle;
static const struct symprov_provider *prov;

struct host_data {
	const char *dirs; /* symprov.buildiddir.dirs, or NULL */
	pthread_mutex_t lock;
	int indexed; /* "indexed N kernels" lines */
};

static void th_log(void *data, int level, const char *fmt, ...)
{
	struct host_data *h = data;
	char msg[1024];
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&h->lock);
	if (!strncmp(msg, "indexed ", 8))
		h->indexed++;
	pthread_mutex_unlock(&h->lock);
}

static const char *th_config(void *data, const char *key)
{
	struct host_data *h = data;

	return strcmp(key, "symprov.buildiddir.dirs") ? NULL : h->dirs;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;
	int ret = in && out ? 0 : -1;

	while (!ret && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

static int setup(void **state)
{
	const char *tp_dir = getenv("SYMPROV_TEST_PROVIDERS");
	char path[PATH_MAX + 64];
	const char *why;
	symprov_entry_fn entry;
	ssize_t n;

	(void)state;
	self_id_len = symprov_build_id_parse(TEST_BUILD_ID, self_id, &why);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (self_id_len < 0 || n <= 0 || !tp_dir)
		return -1;
	self[n] = '\0';
	/* the shipped provider: tests/providers/../../lib */
	snprintf(path, sizeof(path), "%s/../../lib/libbuildiddirprov.so",
		 tp_dir);
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	*(void **)&entry = dlsym(handle, SYMPROV_ENTRY_SYMBOL);
	prov = entry ? entry() : NULL;
	snprintf(tree, sizeof(tree), "/tmp/symprov-bdd-XXXXXX");
	if (!prov || !mkdtemp(tree))
		return -1;
	snprintf(path, sizeof(path), "%s/boot", tree);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/boot/vmlinux-test", tree);
	return copy_file(self, path);
}

static int teardown(void **state)
{
	char path[PATH_MAX + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s/boot/vmlinux-test", tree);
	unlink(path);
	snprintf(path, sizeof(path), "%s/boot", tree);
	rmdir(path);
	rmdir(tree);
	if (handle)
		dlclose(handle);
	return 0;
}

/* One provider session with @dirs as its config key and host @flags. */
struct session {
	struct host_data data;
	struct symprov_host host;
	void *state;
};

static void session_start(struct session *s, const char *dirs, uint32_t flags)
{
	memset(s, 0, sizeof(*s));
	s->data.dirs = dirs;
	pthread_mutex_init(&s->data.lock, NULL);
	s->host = (struct symprov_host){
		.size = sizeof(s->host),
		.flags = flags,
		.host_name = "test",
		.data = &s->data,
		.log = th_log,
		.config = th_config,
	};
	assert_int_equal(prov->init(&s->host, &s->state), 0);
}

static void session_end(struct session *s)
{
	prov->fini(s->state);
	pthread_mutex_destroy(&s->data.lock);
}

/* Ask for this test's own build ID; the path found, or NULL. */
static int ask(struct session *s, uint32_t kind, char **path)
{
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = kind,
		.build_id = self_id,
		.build_id_len = (uint32_t)self_id_len,
	};
	struct symprov_result res = { .size = sizeof(res) };
	int status = prov->find(s->state, &req, &res);

	*path = res.path;
	return status;
}

static void assert_finds_kernel(struct session *s)
{
	char want[PATH_MAX + 32], *path;

	snprintf(want, sizeof(want), "%s/boot/vmlinux-test", tree);
	assert_int_equal(ask(s, SYMPROV_KIND_KERNEL, &path), SYMPROV_FOUND);
	assert_string_equal(path, want);
	free(path);
}

static void assert_misses_kernel(struct session *s)
{
	char *path;

	assert_int_equal(ask(s, SYMPROV_KIND_KERNEL, &path), SYMPROV_NOT_FOUND);
	assert_null(path);
}

/* The config key wins over the environment. */
static void test_config_key(void **state)
{
	struct session s;

	(void)state;
	setenv("SYMPROV_BUILDIDDIR_DIRS", "/nonexistent", 1);
	session_start(&s, tree, 0);
	assert_finds_kernel(&s);
	session_end(&s);

	setenv("SYMPROV_BUILDIDDIR_DIRS", tree, 1);
	session_start(&s, "/nonexistent", 0);
	assert_misses_kernel(&s);
	session_end(&s);
	unsetenv("SYMPROV_BUILDIDDIR_DIRS");
}

/* Without the key: the environment, unless the host is privileged. */
static void test_environment(void **state)
{
	char list[2 * PATH_MAX];
	struct session s;

	(void)state;
	snprintf(list, sizeof(list), "/nonexistent::%s", tree);
	setenv("SYMPROV_BUILDIDDIR_DIRS", list, 1);
	session_start(&s, NULL, 0);
	assert_finds_kernel(&s);
	session_end(&s);

	/* the default, /usr/lib/debug, has no file with our build ID */
	session_start(&s, NULL, SYMPROV_HOST_SECURE);
	assert_misses_kernel(&s);
	session_end(&s);
	unsetenv("SYMPROV_BUILDIDDIR_DIRS");
}

/* Only kernels are looked for by their notes. */
static void test_index_only_for_kernels(void **state)
{
	struct session s;
	char *path;
	uint32_t kinds[] = { SYMPROV_KIND_KERNEL_MODULE, SYMPROV_KIND_DEBUGINFO,
			     SYMPROV_KIND_EXECUTABLE };
	size_t i;

	(void)state;
	session_start(&s, tree, 0);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		assert_int_equal(ask(&s, kinds[i], &path), SYMPROV_NOT_FOUND);
		assert_null(path);
	}
	assert_int_equal(s.data.indexed, 0);
	assert_int_equal(ask(&s, 99, &path), SYMPROV_DISABLED);
	session_end(&s);
}

/*
 * A bad file at the last name looked at for a kernel, then the index: the
 * index answers, also once it is built.
 */
static void test_bad_file_then_index(void **state)
{
	char dir[PATH_MAX + 64], bad[PATH_MAX + 128];
	struct session s;
	FILE *f;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/buildid", tree);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/buildid/%s", tree, TEST_BUILD_ID);
	mkdir(dir, 0755);
	snprintf(bad, sizeof(bad), "%s/executable", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	session_start(&s, tree, 0);
	for (i = 0; i < 2; i++)
		assert_finds_kernel(&s);
	assert_int_equal(s.data.indexed, 1);
	session_end(&s);
	unlink(bad);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/buildid", tree);
	rmdir(dir);
}

struct thread_arg {
	struct session *s;
	pthread_barrier_t *start;
	int status;
	char *path;
};

static void *ask_thread(void *p)
{
	struct thread_arg *a = p;

	pthread_barrier_wait(a->start);
	a->status = ask(a->s, SYMPROV_KIND_KERNEL, &a->path);
	return NULL;
}

/* Threads asking at once share one index, built once per session. */
static void test_threads_index_once(void **state)
{
	struct thread_arg args[NR_THREADS];
	pthread_t threads[NR_THREADS];
	char want[PATH_MAX + 32];
	pthread_barrier_t start;
	struct session s;
	int i;

	(void)state;
	snprintf(want, sizeof(want), "%s/boot/vmlinux-test", tree);
	session_start(&s, tree, 0);
	pthread_barrier_init(&start, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		args[i] = (struct thread_arg){ .s = &s, .start = &start };
		assert_int_equal(pthread_create(&threads[i], NULL, ask_thread,
						&args[i]),
				 0);
	}
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(args[i].status, SYMPROV_FOUND);
		assert_string_equal(args[i].path, want);
		free(args[i].path);
	}
	pthread_barrier_destroy(&start);
	assert_int_equal(s.data.indexed, 1);
	/* and once only: later questions use the same index */
	assert_finds_kernel(&s);
	assert_int_equal(s.data.indexed, 1);
	session_end(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_index_only_for_kernels),
		cmocka_unit_test(test_threads_index_once),
		cmocka_unit_test(test_bad_file_then_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
