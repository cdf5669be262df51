// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "symprov_list.h"

struct seen {
	char text[512];
	size_t n;
};

/* "entry=verdict," for each entry, as a string to compare. */
static void record(const char *entry, size_t len, int verdict, void *arg)
{
	struct seen *s = arg;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "%.*s=%d,",
		 (int)(len > 16 ? 16 : len), entry, verdict);
	s->n++;
}

static void check(const char *list, size_t n, const char *expect)
{
	struct seen s = { "", 0 };

	assert_int_equal(symprov_list_split(list, ':', record, &s), n);
	assert_int_equal(s.n, n);
	assert_string_equal(s.text, expect);
}

static void test_split(void **state)
{
	(void)state;
	check(NULL, 0, "");
	check("", 0, "");
	check("a", 1, "a=0,");
	check("a:/x/b.so", 2, "a=0,/x/b.so=0,");
	check(":", 2, "=1,=1,");
	check("a::b:", 4, "a=0,=1,b=0,=1,");
	check("a\nb:c", 2, "a\nb=3,c=0,");
	check("\xff\xfe", 1, "\xff\xfe=0,");
}

static void test_too_long(void **state)
{
	char *list = malloc(SYMPROV_ENTRY_MAX + 4);
	struct seen s = { "", 0 };

	(void)state;
	memset(list, 'x', SYMPROV_ENTRY_MAX + 1);
	strcpy(list + SYMPROV_ENTRY_MAX + 1, ":y");
	assert_int_equal(symprov_list_split(list, ':', record, &s), 2);
	assert_string_equal(s.text, "xxxxxxxxxxxxxxxx=2,y=0,");
	list[SYMPROV_ENTRY_MAX] = '\0';
	assert_int_equal(symprov_list_split(list, ':', record, &s), 1);
	assert_non_null(strstr(s.text, "xxxxxxxxxxxxxxxx=0,"));
	free(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests_name("list", tests, NULL, NULL);
}
