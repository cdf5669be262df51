// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The checked copy into a tree others read (tools/symprov_copy.c): holes
 * stay holes, and a file that changes length while it is copied is never
 * named.  The file copied is this test's own executable (linked with
 * TEST_BUILD_ID) followed by a hole; sendfile() is wrapped so that a test
 * can shrink the file between two of its calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "libsymprov.h"
#include "symprov_copy.h"

#define HOLE (1L << 20)

static unsigned char own_id[SYMPROV_BUILD_ID_MAX];
static unsigned int own_id_len;
static char dir[] = "/tmp/test_copy.XXXXXX";
static char src[sizeof(dir) + 16];
static off_t data_len;

/* what the next sendfile() does to its input first: its new length */
static off_t shrink_to = -1;

ssize_t __real_sendfile(int out, int in, off_t *off, size_t count);
ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t count);

ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t count)
{
	if (shrink_to >= 0) {
		assert_int_equal(truncate(src, shrink_to), 0);
		shrink_to = -1;
	}
	return __real_sendfile(out, in, off, count);
}

static int setup(void **state)
{
	const char *why;
	int len;

	(void)state;
	len = symprov_build_id_parse(TEST_BUILD_ID, own_id, &why);
	assert_true(len > 0);
	own_id_len = (unsigned int)len;
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/src", dir);
	return 0;
}

/* @src, before each test: this executable, then a hole of HOLE bytes */
static int make_src(void **state)
{
	int in, out;
	ssize_t n;
	char buf[65536];

	(void)state;
	in = open("/proc/self/exe", O_RDONLY);
	out = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	data_len = lseek(out, 0, SEEK_CUR);
	assert_int_equal(ftruncate(out, data_len + HOLE), 0);
	close(in);
	close(out);
	return 0;
}

static int teardown(void **state)
{
	char cmd[sizeof(dir) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static off_t hole_start(void)
{
	int fd = open(src, O_RDONLY);
	off_t hole;

	assert_true(fd >= 0);
	hole = lseek(fd, 0, SEEK_HOLE);
	close(fd);
	assert_true(hole >= data_len && hole < data_len + HOLE);
	return hole;
}

static bool named(const char *name)
{
	char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_hole_kept(void **state)
{
	char path[sizeof(dir) + 32];
	const char *step = NULL;
	struct stat st;

	(void)state;
	assert_int_equal(copy_checked(src, dir, "whole",
				      SYMPROV_KIND_EXECUTABLE, own_id,
				      own_id_len, false, &step),
			 0);
	snprintf(path, sizeof(path), "%s/whole", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, data_len + HOLE);
	/* the hole is not written: at most the data and a block of slack */
	assert_true(st.st_blocks * 512 < data_len + 65536);
}

static void test_shrunk_not_named(void **state)
{
	const char *step = NULL;
	int err;

	(void)state;
	/*
	 * Cut off the hole that follows the data, where the file system
	 * says it begins (a block boundary): the data is copied whole, and
	 * then there is nothing more to find.
	 */
	shrink_to = hole_start();
	err = copy_checked(src, dir, "shrunk", SYMPROV_KIND_EXECUTABLE, own_id,
			   own_id_len, false, &step);
	assert_int_equal(shrink_to, -1);
	assert_int_equal(err, -EIO);
	assert_string_equal(step, "writing the copy");
	assert_false(named("shrunk"));
}

static void test_cut_short_not_named(void **state)
{
	const char *step = NULL;
	int err;

	(void)state;
	shrink_to = data_len / 2;
	err = copy_checked(src, dir, "short", SYMPROV_KIND_EXECUTABLE, own_id,
			   own_id_len, false, &step);
	assert_int_equal(err, -EIO);
	assert_false(named("short"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hole_kept, make_src),
		cmocka_unit_test_setup(test_shrunk_not_named, make_src),
		cmocka_unit_test_setup(test_cut_short_not_named, make_src),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
