// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The debuginfod provider's miss memo and single-flight. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "symprov_memo.h"

static struct symprov_memo memo;

static int setup(void **state)
{
	(void)state;
	return symprov_memo_init(
		&memo, SYMPROV_MEMO_KEEP(SYMPROV_FOUND) |
			       SYMPROV_MEMO_KEEP(SYMPROV_NOT_FOUND) |
			       SYMPROV_MEMO_KEEP(SYMPROV_UNAVAILABLE));
}

static int teardown(void **state)
{
	(void)state;
	symprov_memo_fini(&memo);
	return 0;
}

static struct symprov_memo_key key_of(unsigned char b)
{
	struct symprov_memo_key key = { .kind = SYMPROV_KIND_KERNEL,
					.len = 20 };

	memset(key.build_id, b, key.len);
	return key;
}

static int begin_wait(const struct symprov_memo_key *key,
		      int (*wait_cb)(void *arg), void *arg, int *status,
		      char **path)
{
	struct symprov_answer ans;
	int verdict = symprov_memo_begin(&memo, key, wait_cb, arg, &ans);

	*status = ans.status;
	*path = ans.path;
	return verdict;
}

static int begin(const struct symprov_memo_key *key, int *status, char **path)
{
	return begin_wait(key, NULL, NULL, status, path);
}

static void end(const struct symprov_memo_key *key, int status,
		const char *path)
{
	struct symprov_answer ans = { .status = status, .path = (char *)path };

	symprov_memo_end(&memo, key, &ans);
}

static void test_answers_remembered(void **state)
{
	struct symprov_memo_key miss = key_of(1), down = key_of(2);
	int status;
	char *path;

	(void)state;
	assert_int_equal(begin(&miss, &status, &path), SYMPROV_MEMO_LEADER);
	end(&miss, SYMPROV_NOT_FOUND, NULL);
	assert_int_equal(begin(&down, &status, &path), SYMPROV_MEMO_LEADER);
	end(&down, SYMPROV_UNAVAILABLE, NULL);

	assert_int_equal(begin(&miss, &status, &path), SYMPROV_MEMO_ANSWER);
	assert_int_equal(status, SYMPROV_NOT_FOUND);
	assert_null(path);
	assert_int_equal(begin(&down, &status, &path), SYMPROV_MEMO_ANSWER);
	assert_int_equal(status, SYMPROV_UNAVAILABLE);
}

/* Same bytes, another kind or length: another key. */
static void test_keys_distinct(void **state)
{
	struct symprov_memo_key a = key_of(3), b = key_of(3), c = key_of(3);
	int status;
	char *path;

	(void)state;
	b.kind = SYMPROV_KIND_DEBUGINFO;
	c.len = 19;
	assert_int_equal(begin(&a, &status, &path), SYMPROV_MEMO_LEADER);
	end(&a, SYMPROV_NOT_FOUND, NULL);
	assert_int_equal(begin(&b, &status, &path), SYMPROV_MEMO_LEADER);
	end(&b, SYMPROV_NOT_FOUND, NULL);
	assert_int_equal(begin(&c, &status, &path), SYMPROV_MEMO_LEADER);
	end(&c, SYMPROV_NOT_FOUND, NULL);
}

/* A cancel or an opt-out says nothing about the file: not remembered. */
static void test_cancel_not_remembered(void **state)
{
	struct symprov_memo_key key = key_of(4);
	int status;
	char *path;

	(void)state;
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	end(&key, SYMPROV_CANCELLED, NULL);
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	end(&key, SYMPROV_DISABLED, NULL);
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	end(&key, SYMPROV_NOT_FOUND, NULL);
}

/* A found file is reused while it is there, fetched again if not. */
static void test_found_checked(void **state)
{
	struct symprov_memo_key key = key_of(5);
	char file[] = "/tmp/test_memo.XXXXXX";
	int fd = mkstemp(file), status;
	char *path;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	end(&key, SYMPROV_FOUND, file);
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_ANSWER);
	assert_int_equal(status, SYMPROV_FOUND);
	assert_string_equal(path, file);
	free(path);
	unlink(file);
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	assert_null(path);
	end(&key, SYMPROV_NOT_FOUND, NULL);
}

#define NR_THREADS 8

struct racer {
	pthread_t tid;
	struct symprov_memo_key key;
	int verdict;
	int status;
	char *path;
	int *fetches;
	int leader_status; /* what a leader answers */
};

static pthread_mutex_t fetch_lock = PTHREAD_MUTEX_INITIALIZER;

static void *race(void *arg)
{
	struct racer *r = arg;

	r->verdict = begin(&r->key, &r->status, &r->path);
	if (r->verdict == SYMPROV_MEMO_LEADER) {
		pthread_mutex_lock(&fetch_lock);
		++*r->fetches;
		pthread_mutex_unlock(&fetch_lock);
		usleep(200 * 1000); /* a download */
		r->status = r->leader_status;
		end(&r->key, r->status,
		    r->status == SYMPROV_FOUND ? "/dev/null" : NULL);
		if (r->status == SYMPROV_FOUND)
			r->path = strdup("/dev/null");
	}
	return NULL;
}

static void run_race(int leader_status, int *fetches, struct racer *r)
{
	int i;

	*fetches = 0;
	for (i = 0; i < NR_THREADS; i++) {
		r[i] = (struct racer){ .key = key_of(6),
				       .fetches = fetches,
				       .leader_status = leader_status };
		assert_int_equal(pthread_create(&r[i].tid, NULL, race, &r[i]),
				 0);
	}
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(r[i].tid, NULL);
}

static void test_single_flight(void **state)
{
	struct racer r[NR_THREADS];
	int fetches, i;

	(void)state;
	run_race(SYMPROV_FOUND, &fetches, r);
	assert_int_equal(fetches, 1);
	for (i = 0; i < NR_THREADS; i++) {
		assert_int_equal(r[i].status, SYMPROV_FOUND);
		assert_string_equal(r[i].path, "/dev/null");
		free(r[i].path);
	}
}

/* A leader that was cancelled hands over: every thread leads in turn. */
static void test_cancelled_leader_hands_over(void **state)
{
	struct racer r[NR_THREADS];
	int fetches, i;

	(void)state;
	run_race(SYMPROV_CANCELLED, &fetches, r);
	assert_int_equal(fetches, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		assert_int_equal(r[i].status, SYMPROV_CANCELLED);
}

static int give_up(void *arg)
{
	++*(int *)arg;
	return 1;
}

/* A waiter whose user gives up returns without the leader's answer. */
static void test_waiter_gives_up(void **state)
{
	struct symprov_memo_key key = key_of(7);
	int status, calls = 0;
	char *path;

	(void)state;
	assert_int_equal(begin(&key, &status, &path), SYMPROV_MEMO_LEADER);
	assert_int_equal(begin_wait(&key, give_up, &calls, &status, &path),
			 SYMPROV_MEMO_GAVE_UP);
	assert_int_equal(calls, 1);
	end(&key, SYMPROV_NOT_FOUND, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answers_remembered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_keys_distinct, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cancel_not_remembered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_found_checked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_single_flight, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_cancelled_leader_hands_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_gives_up, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("memo", tests, NULL, NULL);
}
