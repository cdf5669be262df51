// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Build ID check of fetched files; this test is linked with TEST_BUILD_ID. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "symprov_buildid.h"
#include "symprov_verify.h"

static unsigned char own_id[SYMPROV_BUILD_ID_MAX];

static int verify_file(const char *file, const unsigned char *id, size_t len,
		       const char **why)
{
	int fd = open(file, O_RDONLY), ret;

	assert_true(fd >= 0);
	ret = symprov_verify_build_id(fd, id, len, why);
	close(fd);
	return ret;
}

static void test_own_build_id(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(verify_file("/proc/self/exe", own_id, 20, &why), 0);
}

static void test_other_build_id(void **state)
{
	unsigned char other[20];
	const char *why = NULL;

	(void)state;
	memcpy(other, own_id, 20);
	other[19] ^= 1;
	assert_int_equal(verify_file("/proc/self/exe", other, 20, &why), -1);
	assert_string_equal(why, "build ID differs from the one asked for");
	/* a prefix is not a match either */
	assert_int_equal(verify_file("/proc/self/exe", own_id, 8, &why), -1);
}

static void test_not_elf(void **state)
{
	char file[] = "/tmp/test_verify.XXXXXX";
	int fd = mkstemp(file);
	const char *why = NULL;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "<html>404</html>\n", 17), 17);
	close(fd);
	assert_int_equal(verify_file(file, own_id, 20, &why), -1);
	assert_string_equal(why, "not an ELF file");
	unlink(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_build_id),
		cmocka_unit_test(test_other_build_id),
		cmocka_unit_test(test_not_elf),
	};
	const char *why;

	if (symprov_build_id_parse(TEST_BUILD_ID, own_id, &why) != 20)
		return 1;
	return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
