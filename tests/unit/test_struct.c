// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Size-versioned structs: older ones zero-extended, newer ones checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "symprov.h"

/* A request as a future host might send it: one more field. */
struct request_v2 {
	struct symprov_request v1;
	uint64_t new_field;
};

static void test_older_is_zero_extended(void **state)
{
	struct symprov_request old = { .kind = SYMPROV_KIND_KERNEL };
	struct symprov_request got;

	(void)state;
	/* a peer that only knew the first two fields */
	old.size = offsetof(struct symprov_request, build_id);
	old.build_id_len = 7; /* beyond its size: must not be read */
	memset(&got, 0xaa, sizeof(got));
	assert_int_equal(symprov_copy_struct(&got, sizeof(got), &old, old.size),
			 0);
	assert_int_equal(got.kind, SYMPROV_KIND_KERNEL);
	assert_int_equal(got.build_id_len, 0);
	assert_null(got.build_id);
	assert_null(got.dso_name);
}

static void test_newer_zero_tail_accepted(void **state)
{
	struct request_v2 v2 = { .v1 = { .size = sizeof(v2), .kind = 3 } };
	struct symprov_request got;

	(void)state;
	assert_int_equal(
		symprov_copy_struct(&got, sizeof(got), &v2, v2.v1.size), 0);
	assert_int_equal(got.kind, 3);
	assert_int_equal(got.size, sizeof(v2));
}

static void test_newer_nonzero_tail_refused(void **state)
{
	struct request_v2 v2 = { .v1 = { .size = sizeof(v2), .kind = 3 },
				 .new_field = 1 };
	struct symprov_request got;

	(void)state;
	memset(&got, 0xaa, sizeof(got));
	assert_int_equal(
		symprov_copy_struct(&got, sizeof(got), &v2, v2.v1.size), -1);
	/* nothing half-copied: what was there is gone too */
	assert_int_equal(got.size, 0);
	assert_int_equal(got.kind, 0);
	assert_null(got.dso_name);
}

static void test_nonsense_sizes(void **state)
{
	struct symprov_request req = { .size = 0 }, got;

	(void)state;
	memset(&got, 0xaa, sizeof(got));
	assert_int_equal(symprov_copy_struct(&got, sizeof(got), &req, 0), -1);
	assert_int_equal(got.kind, 0);
	assert_int_equal(symprov_copy_struct(&got, sizeof(got), &req, 3), -1);
	assert_int_equal(symprov_copy_struct(&got, sizeof(got), &req,
					     SYMPROV_STRUCT_MAX_SIZE + 1),
			 -1);
}

static void test_has(void **state)
{
	struct symprov_result res = { .size = sizeof(res) };

	(void)state;
	assert_true(SYMPROV_HAS(&res, path));
	res.size = offsetof(struct symprov_result, path);
	assert_false(SYMPROV_HAS(&res, path));
	assert_true(SYMPROV_HAS(&res, error));
	res.size = 4;
	assert_false(SYMPROV_HAS(&res, error));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_older_is_zero_extended),
		cmocka_unit_test(test_newer_zero_tail_accepted),
		cmocka_unit_test(test_newer_nonzero_tail_refused),
		cmocka_unit_test(test_nonsense_sizes),
		cmocka_unit_test(test_has),
	};

	return cmocka_run_group_tests_name("struct", tests, NULL, NULL);
}
