// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbuildiddirprov.so through its ABI: where its trees come from (config
 * key, environment, privileged host), which files each kind gets, and its
 * index of kernels and modules, also under threads.  The kernel is this
 * test itself, linked with a known build ID (TEST_BUILD_ID); the modules,
 * a program and its debug file are built by tests.mk in TEST_BDD_FIXTURES,
 * named by their build IDs.  tests/integration/test_buildiddir.py asks
 * through symprov.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
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

/* the fixtures' build IDs, their names in TEST_BDD_FIXTURES */
#define MOD_A "0b1dd1d1" /* m.ko */
#define MOD_B "0b1dd1d2" /* m2.ko, under updates/ */
#define MOD_C "0b1dd1d3" /* only where modules are not looked for */
#define PROG "0b1dd1de" /* a program; PROG.debug its debug file */

#define REL "lib/modules/6.12.0-test"
/* what the index walks of the tree: lib/modules, REL, and under REL */
#define TREE_DIRS 8

static char tree[PATH_MAX]; /* the kernel, the modules; see setup() */
static char self[PATH_MAX];
static void *handle;
static const struct symprov_provider *prov;

struct host_data {
	const char *dirs; /* symprov.buildiddir.dirs, or NULL */
	pthread_mutex_t lock;
	/* from the "indexed N ..." lines: how often, the last N */
	int kernels_indexed;
	int modules_indexed;
	size_t nr_kernels;
	size_t nr_modules;
	size_t nr_walked; /* directories walked for the modules */
};

static void th_log(void *data, int level, const char *fmt, ...)
{
	struct host_data *h = data;
	const char *walked;
	char msg[1024];
	va_list ap;
	size_t n;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sscanf(msg, "indexed %zu ", &n) != 1)
		return;
	pthread_mutex_lock(&h->lock);
	if (strstr(msg, " kernel module")) {
		h->modules_indexed++;
		h->nr_modules = n;
		walked = strstr(msg, " ms, ");
		if (!walked ||
		    sscanf(walked, " ms, %zu director", &h->nr_walked) != 1)
			h->nr_walked = SIZE_MAX;
	} else {
		h->kernels_indexed++;
		h->nr_kernels = n;
	}
	pthread_mutex_unlock(&h->lock);
}

static const char *th_config(void *data, const char *key)
{
	struct host_data *h = data;

	return strcmp(key, "symprov.buildiddir.dirs") ? NULL : h->dirs;
}

static int make_dirs_of(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*slash = '/';
	}
	return 0;
}

/* Copy @from to @to (TEST_BDD_FIXTURES/@from if relative), making dirs. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536], src[PATH_MAX];
	FILE *in, *out;
	size_t n;
	int ret;

	snprintf(src, sizeof(src), "%s%s%s",
		 from[0] == '/' ? "" : TEST_BDD_FIXTURES,
		 from[0] == '/' ? "" : "/", from);
	if (make_dirs_of(to))
		return -1;
	in = fopen(src, "rb");
	out = fopen(to, "wb");
	ret = in && out ? 0 : -1;
	while (!ret && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		ret = -1;
	return ret;
}

/* The path @rel in the tree, in @buf of PATH_MAX. */
static char *in_tree(char *buf, const char *rel)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", tree, rel);

	assert_true(n > 0 && n < PATH_MAX);
	return buf;
}

static void put(const char *from, const char *rel)
{
	char to[PATH_MAX];

	assert_int_equal(copy_file(from, in_tree(to, rel)), 0);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove @rel of the tree, and all under it. */
static void remove_tree(const char *rel)
{
	char path[PATH_MAX];

	/* nothing before setup() made the tree: "/" is not ours */
	if (tree[0])
		nftw(in_tree(path, rel), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The tree of a Debian kernel -dbg package: the kernel in boot/ and
 * linked from REL/vmlinux, modules in REL/kernel and REL/updates and
 * nothing else for the index to find: a compressed module (an ELF file
 * under that name, so that only its name keeps it out), one in REL/build,
 * directory loops, a FIFO.
 */
static int make_tree(void)
{
	char path[PATH_MAX];
	static const char *const links[][2] = {
		{ "../../../boot/vmlinux-test", REL "/vmlinux" },
		{ "..", REL "/kernel/fs/loop" },
		{ "../../..", REL "/kernel/fs/m/up" },
		{ "knot", REL "/kernel/knot" },
		{ "../../gone", REL "/kernel/gone.ko" },
	};
	size_t i;

	if (copy_file(self, in_tree(path, "boot/vmlinux-test")) ||
	    copy_file(MOD_A ".ko", in_tree(path, REL "/kernel/fs/m/m.ko")) ||
	    copy_file(MOD_B ".ko", in_tree(path, REL "/updates/dkms/m2.ko")) ||
	    copy_file(MOD_C ".ko",
		      in_tree(path, REL "/kernel/fs/m3/m3.ko.xz")) ||
	    copy_file(MOD_C ".ko", in_tree(path, REL "/build/c.ko")) ||
	    mkfifo(in_tree(path, REL "/kernel/fifo.ko"), 0644))
		return -1;
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (symlink(links[i][0], in_tree(path, links[i][1])))
			return -1;
	}
	return 0;
}

static int setup(void **state)
{
	const char *tp_dir = getenv("SYMPROV_TEST_PROVIDERS");
	char path[PATH_MAX + 64];
	symprov_entry_fn entry;
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !tp_dir)
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
	snprintf(path, sizeof(path), "/tmp/symprov-bdd-XXXXXX");
	/* the provider answers resolved paths */
	if (!prov || !mkdtemp(path) || !realpath(path, tree))
		return -1;
	return make_tree();
}

static int teardown(void **state)
{
	(void)state;
	remove_tree("");
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

/* Ask for @kind with build ID @hex (NULL: ours); the path found, or NULL. */
static int ask_for(struct session *s, uint32_t kind, const char *hex,
		   char **path)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	const char *why;
	int len = symprov_build_id_parse(hex ?: TEST_BUILD_ID, id, &why);
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = kind,
		.build_id = id,
		.build_id_len = (uint32_t)len,
	};
	struct symprov_result res = { .size = sizeof(res) };
	int status;

	assert_true(len > 0);
	status = prov->find(s->state, &req, &res);
	*path = res.path;
	return status;
}

static int ask(struct session *s, uint32_t kind, char **path)
{
	return ask_for(s, kind, NULL, path);
}

/* A file at a module's name that is not one: found, and refused */
#define REFUSED "!"

/*
 * @kind of build ID @hex is the tree's @rel (NULL: not found; REFUSED: a
 * file not of that kind, unavailable).
 */
static void assert_answer(struct session *s, uint32_t kind, const char *hex,
			  const char *rel)
{
	char want[PATH_MAX], *path;

	if (!rel || !strcmp(rel, REFUSED)) {
		assert_int_equal(ask_for(s, kind, hex, &path),
				 rel ? SYMPROV_UNAVAILABLE : SYMPROV_NOT_FOUND);
		assert_null(path);
		return;
	}
	assert_int_equal(ask_for(s, kind, hex, &path), SYMPROV_FOUND);
	assert_string_equal(path, in_tree(want, rel));
	free(path);
}

static void assert_finds_kernel(struct session *s)
{
	assert_answer(s, SYMPROV_KIND_KERNEL, NULL, "boot/vmlinux-test");
}

static void assert_misses_kernel(struct session *s)
{
	assert_answer(s, SYMPROV_KIND_KERNEL, NULL, NULL);
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

/*
 * Only kernels and modules are looked for by their notes, each part of
 * the index built at its first need, and a kernel is not a module.
 */
static void test_index_kinds_apart(void **state)
{
	uint32_t kinds[] = { SYMPROV_KIND_DEBUGINFO, SYMPROV_KIND_EXECUTABLE };
	struct session s;
	char *path;
	size_t i;

	(void)state;
	session_start(&s, tree, 0);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		assert_answer(&s, kinds[i], NULL, NULL);
		assert_answer(&s, kinds[i], MOD_A, NULL);
	}
	assert_int_equal(s.data.kernels_indexed, 0);
	assert_int_equal(s.data.modules_indexed, 0);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, NULL, NULL);
	assert_int_equal(s.data.kernels_indexed, 0);
	assert_int_equal(s.data.modules_indexed, 1);
	assert_answer(&s, SYMPROV_KIND_KERNEL, MOD_A, NULL);
	assert_int_equal(s.data.kernels_indexed, 1);
	/* the kernel, reached twice, is indexed once */
	assert_int_equal(s.data.nr_kernels, 1);
	assert_finds_kernel(&s);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_A,
		      REL "/kernel/fs/m/m.ko");
	assert_int_equal(s.data.kernels_indexed, 1);
	assert_int_equal(s.data.modules_indexed, 1);
	assert_int_equal(ask(&s, 99, &path), SYMPROV_DISABLED);
	assert_null(path);
	session_end(&s);
}

/*
 * Modules anywhere under lib/modules/REL but its build/, uncompressed, by
 * their notes, in one walk per session that goes round no loop.
 */
static void test_module_index(void **state)
{
	struct session s;

	(void)state;
	session_start(&s, tree, 0);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_A,
		      REL "/kernel/fs/m/m.ko");
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_B,
		      REL "/updates/dkms/m2.ko");
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_C, NULL);
	assert_int_equal(s.data.modules_indexed, 1);
	assert_int_equal(s.data.nr_modules, 2);
	assert_int_equal(s.data.nr_walked, TREE_DIRS);
	assert_int_equal(s.data.kernels_indexed, 0);
	session_end(&s);
}

/*
 * A module's debug file at .build-id/xx/rest.debug or buildid/ID/debuginfo
 * is taken before the index is built; a plain .build-id/xx/rest or
 * buildid/ID/executable is not a module's (the installed one, stripped of
 * DWARF): the index's is.
 */
static void test_module_links_first(void **state)
{
	char dirs[3 * PATH_MAX];
	struct session s;

	(void)state;
	put(MOD_B ".ko", "links/.build-id/0b/1dd1d2.debug");
	put(MOD_A ".ko", "links/buildid/" MOD_A "/debuginfo");
	put(MOD_A ".ko", "plain/.build-id/0b/1dd1d1");
	put(MOD_B ".ko", "plain/buildid/" MOD_B "/executable");
	snprintf(dirs, sizeof(dirs), "%s/links:%s", tree, tree);
	session_start(&s, dirs, 0);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_B,
		      "links/.build-id/0b/1dd1d2.debug");
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_A,
		      "links/buildid/" MOD_A "/debuginfo");
	assert_int_equal(s.data.modules_indexed, 0);
	session_end(&s);

	snprintf(dirs, sizeof(dirs), "%s/plain:%s", tree, tree);
	session_start(&s, dirs, 0);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_A,
		      REL "/kernel/fs/m/m.ko");
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_B,
		      REL "/updates/dkms/m2.ko");
	assert_int_equal(s.data.modules_indexed, 1);
	session_end(&s);
	remove_tree("links");
	remove_tree("plain");
}

/* A tree of a program's files, and what each kind gets of it. */
struct user_case {
	const char *files[4]; /* of the tree: PROG or PROG.debug there */
	const char *want[4]; /* kernel, module, debuginfo, executable */
};

#define BID_DEBUG ".build-id/0b/1dd1de.debug"
#define BID_PLAIN ".build-id/0b/1dd1de"
#define SRV_DEBUGINFO "buildid/" PROG "/debuginfo"
#define SRV_EXECUTABLE "buildid/" PROG "/executable"

static const struct user_case user_cases[] = {
	{ { BID_PLAIN }, { BID_PLAIN, NULL, NULL, BID_PLAIN } },
	{ { BID_DEBUG }, { BID_DEBUG, REFUSED, BID_DEBUG, NULL } },
	{ { SRV_EXECUTABLE }, { SRV_EXECUTABLE, NULL, NULL, SRV_EXECUTABLE } },
	{ { SRV_DEBUGINFO }, { SRV_DEBUGINFO, REFUSED, SRV_DEBUGINFO, NULL } },
	/* both layouts, both files: the debug file first, of a .build-id */
	{ { BID_PLAIN, BID_DEBUG, SRV_EXECUTABLE, SRV_DEBUGINFO },
	  { BID_DEBUG, REFUSED, BID_DEBUG, BID_PLAIN } },
	{ { BID_PLAIN, SRV_DEBUGINFO },
	  { SRV_DEBUGINFO, REFUSED, SRV_DEBUGINFO, BID_PLAIN } },
};

/*
 * A program and its separate debug file, in a .build-id tree and a
 * debuginfod server's: an executable is never the debug file, debug info
 * never the stripped program.
 */
static void test_user_objects(void **state)
{
	static const uint32_t kinds[] = { SYMPROV_KIND_KERNEL,
					  SYMPROV_KIND_KERNEL_MODULE,
					  SYMPROV_KIND_DEBUGINFO,
					  SYMPROV_KIND_EXECUTABLE };
	char rel[PATH_MAX], want[PATH_MAX], dir[PATH_MAX];
	struct session s;
	size_t c, i;

	(void)state;
	for (c = 0; c < sizeof(user_cases) / sizeof(user_cases[0]); c++) {
		const struct user_case *u = &user_cases[c];

		for (i = 0; i < 4 && u->files[i]; i++) {
			snprintf(rel, sizeof(rel), "user/%s", u->files[i]);
			put(strstr(u->files[i], "debug") ? PROG ".debug" : PROG,
			    rel);
		}
		session_start(&s, in_tree(dir, "user"), 0);
		for (i = 0; i < 4; i++) {
			snprintf(want, sizeof(want), "user/%s", u->want[i]);
			assert_answer(&s, kinds[i], PROG,
				      !u->want[i] || !strcmp(u->want[i], REFUSED) ?
					      u->want[i] : want);
		}
		session_end(&s);
		remove_tree("user");
	}
}

/*
 * A bad file at the last name looked at for a kernel, then the index: the
 * index answers, also once it is built.
 */
static void test_bad_file_then_index(void **state)
{
	char bad[PATH_MAX];
	struct session s;
	FILE *f;
	int i;

	(void)state;
	in_tree(bad, "buildid/" TEST_BUILD_ID "/executable");
	assert_int_equal(make_dirs_of(bad), 0);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	session_start(&s, tree, 0);
	for (i = 0; i < 2; i++)
		assert_finds_kernel(&s);
	assert_int_equal(s.data.kernels_indexed, 1);
	session_end(&s);
	remove_tree("buildid");
}

struct thread_arg {
	struct session *s;
	pthread_barrier_t *start;
	uint32_t kind;
	int status;
	char *path;
};

static void *ask_thread(void *p)
{
	struct thread_arg *a = p;

	pthread_barrier_wait(a->start);
	a->status = ask_for(a->s, a->kind,
			    a->kind == SYMPROV_KIND_KERNEL ? NULL : MOD_A,
			    &a->path);
	return NULL;
}

/*
 * Threads asking for a kernel and a module at once share one index, each
 * part built once per session.
 */
static void test_threads_index_once(void **state)
{
	struct thread_arg args[NR_THREADS];
	pthread_t threads[NR_THREADS];
	char kernel[PATH_MAX], module[PATH_MAX];
	pthread_barrier_t start;
	struct session s;
	int i;

	(void)state;
	in_tree(kernel, "boot/vmlinux-test");
	in_tree(module, REL "/kernel/fs/m/m.ko");
	session_start(&s, tree, 0);
	pthread_barrier_init(&start, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		args[i] = (struct thread_arg){
			.s = &s,
			.start = &start,
			.kind = i % 2 ? SYMPROV_KIND_KERNEL_MODULE :
					SYMPROV_KIND_KERNEL,
		};
		assert_int_equal(pthread_create(&threads[i], NULL, ask_thread,
						&args[i]),
				 0);
	}
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(args[i].status, SYMPROV_FOUND);
		assert_string_equal(args[i].path, i % 2 ? module : kernel);
		free(args[i].path);
	}
	pthread_barrier_destroy(&start);
	assert_int_equal(s.data.kernels_indexed, 1);
	assert_int_equal(s.data.modules_indexed, 1);
	/* and once only: later questions use the same index */
	assert_finds_kernel(&s);
	assert_answer(&s, SYMPROV_KIND_KERNEL_MODULE, MOD_A,
		      REL "/kernel/fs/m/m.ko");
	assert_int_equal(s.data.kernels_indexed, 1);
	assert_int_equal(s.data.modules_indexed, 1);
	session_end(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_index_kinds_apart),
		cmocka_unit_test(test_module_index),
		cmocka_unit_test(test_module_links_first),
		cmocka_unit_test(test_user_objects),
		cmocka_unit_test(test_threads_index_once),
		cmocka_unit_test(test_bad_file_then_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
