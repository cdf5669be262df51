// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symprov_buildid.h"

static void check_bad(const char *hex, const char *why_part)
{
	unsigned char out[SYMPROV_BUILD_ID_MAX];
	const char *why = NULL;

	assert_int_equal(symprov_build_id_parse(hex, out, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("'%s': '%s' lacks '%s'", hex, why, why_part);
}

static void test_bad_input(void **state)
{
	(void)state;
	check_bad("", "too short");
	check_bad("a", "too short");
	check_bad("abc", "odd number");
	check_bad("zz", "not a hex digit");
	check_bad("0x12", "not a hex digit");
	check_bad("12 34", "odd number");
	check_bad(
		"1234567890123456789012345678901234567890123456789012345678901234ab",
		"too long");
}

static void test_round_trip(void **state)
{
	static const char *const good[] = {
		"ab",
		"0123456789abcdef0123456789abcdef01234567",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	};
	unsigned char out[SYMPROV_BUILD_ID_MAX];
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		int n = symprov_build_id_parse(good[i], out, &why);

		assert_int_equal(n, strlen(good[i]) / 2);
		assert_string_equal(symprov_build_id_hex(out, n, hex), good[i]);
	}
	/* upper case is accepted, printed lower case */
	assert_int_equal(symprov_build_id_parse("ABcd", out, &why), 2);
	assert_int_equal(out[0], 0xab);
	assert_string_equal(symprov_build_id_hex(out, 2, hex), "abcd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests_name("buildid", tests, NULL, NULL);
}
