// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_lookup: what one lookup through libsymprov (a session, as perf
 * has) and a provider costs inside a process, without a process start per
 * lookup.
 *
 *   bench_lookup [-r ROUNDS] [-n PER_ROUND] [-m MODES] PROVIDER BUILD_ID
 *		  [FILE]
 *
 * MODES, a comma-separated list, interleaved in every round:
 *   stat     stat() of FILE: the least any lookup does (the baseline)
 *   find     the first lookup of a new session, timed alone: the
 *	      provider answers, from libdebuginfod's cache when it is warm
 *   session  the same with the session's set-up and end: the provider's
 *	      init() and fini(), the dlopen() of a library that
 *	      stays mapped (only the first session of a process loads it)
 *   repeat   the same build ID again in one session: its memo
 * Before the rounds, "first" times one session in a fresh process, its
 * dlopen() of the provider and its libraries included.
 *
 * Prints "MODE ROUND NS_PER_LOOKUP" lines, and "status STATUS" with the
 * answer of the lookups, which the caller checks.  PROVIDER is a path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libsymprov.h"

struct bench {
	const char *provider;
	const char *file;
	struct symprov_find_opts req;
	int status;
};

static void bench_log(void *data, int level, const char *provider,
		      const char *msg)
{
	(void)data;
	if (level <= SYMPROV_LOG_WARN)
		fprintf(stderr, "bench_lookup: %s%s%s\n", provider ?: "",
			provider ? ": " : "", msg);
}

/* A session of the provider, its content the whole file, loaded */
static struct symprov_session *bench_session_new(const struct bench *b)
{
	const struct symprov_session_opts opts = {
		.size = sizeof(opts),
		.host_name = "bench_lookup",
		.providers = b->provider,
		.log = bench_log,
	};
	struct symprov_session *s = symprov_session_new(&opts);

	if (s && (symprov_session_set_config(s, SYMPROV_CONFIG_CONTENT,
					     "full") ||
		  symprov_session_load(s) != 1)) {
		symprov_session_free(s);
		s = NULL;
	}
	return s;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One lookup in @s; the answer must be the same every time. */
static int bench_find(struct bench *b, struct symprov_session *s)
{
	struct symprov_answer ans = { .size = sizeof(ans) };
	int status;

	symprov_session_find(s, &b->req, &ans);
	status = ans.status;
	symprov_answer_fini(&ans);
	if (b->status >= 0 && status != b->status) {
		fprintf(stderr, "bench_lookup: answer changed: %s, then %s\n",
			symprov_status_str(b->status),
			symprov_status_str(status));
		return -1;
	}
	b->status = status;
	return 0;
}

/* One lookup in a new session; *find_ns gets the time of the lookup. */
static int bench_session(struct bench *b, double *find_ns)
{
	struct symprov_session *s = bench_session_new(b);
	double start;
	int ret = -1;

	if (!s)
		goto out;
	start = now_ns();
	ret = bench_find(b, s);
	*find_ns += now_ns() - start;
out:
	symprov_session_free(s);
	return ret;
}

/* @n lookups of @mode; ns per lookup, or a negative value on failure. */
static double bench_mode(struct bench *b, const char *mode, long n)
{
	struct symprov_session *s = NULL;
	double start, ns = -1, find_ns = 0;
	struct stat st;
	long i;

	if (!strcmp(mode, "repeat")) {
		s = bench_session_new(b);
		if (!s || bench_find(b, s))
			goto out;
	}
	start = now_ns();
	for (i = 0; i < n; i++) {
		if (!strcmp(mode, "stat")) {
			if (!b->file || stat(b->file, &st))
				goto out;
		} else if (!strcmp(mode, "session") || !strcmp(mode, "find")) {
			if (bench_session(b, &find_ns))
				goto out;
		} else if (!strcmp(mode, "repeat")) {
			if (bench_find(b, s))
				goto out;
		} else {
			fprintf(stderr, "bench_lookup: unknown mode %s\n",
				mode);
			goto out;
		}
	}
	ns = (strcmp(mode, "find") ? now_ns() - start : find_ns) / (double)n;
out:
	symprov_session_free(s);
	return ns;
}

int main(int argc, char **argv)
{
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	struct bench b = { .status = -1 };
	char *modes = strdup("stat,find,session,repeat"), *mode, *save;
	long rounds = 10, per_round = 1000, r;
	double start, find_ns = 0;
	const char *why;
	void *pin = NULL;
	int c, len, ret = 1;

	while ((c = getopt(argc, argv, "r:n:m:")) != -1) {
		switch (c) {
		case 'r':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'n':
			per_round = strtol(optarg, NULL, 10);
			break;
		case 'm':
			free(modes);
			modes = strdup(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2 || argc - optind > 3 || rounds < 0 ||
	    per_round < 1 || !modes)
		goto usage;
	b.provider = argv[optind];
	b.file = argv[optind + 2];
	len = symprov_build_id_parse(argv[optind + 1], build_id, &why);
	if (len < 0) {
		fprintf(stderr, "bench_lookup: build ID: %s\n", why);
		goto out;
	}
	b.req = (struct symprov_find_opts){ .size = sizeof(b.req),
					    .kind = SYMPROV_KIND_KERNEL,
					    .build_id = build_id,
					    .build_id_len = (uint32_t)len };

	start = now_ns();
	if (bench_session(&b, &find_ns)) {
		fprintf(stderr, "bench_lookup: %s did not load\n", b.provider);
		goto out;
	}
	printf("first 0 %.0f\n", now_ns() - start);
	/* The sessions below find the provider's libraries mapped. */
	pin = dlopen(b.provider, RTLD_NOW | RTLD_LOCAL);
	for (r = 0; r < rounds; r++) {
		char *list = strdup(modes);

		for (mode = strtok_r(list, ",", &save); mode;
		     mode = strtok_r(NULL, ",", &save)) {
			double ns = bench_mode(&b, mode, per_round);

			if (ns < 0) {
				free(list);
				goto out;
			}
			printf("%s %ld %.1f\n", mode, r, ns);
		}
		free(list);
	}
	printf("status %s\n", symprov_status_str(b.status));
	ret = 0;
	goto out;
usage:
	fprintf(stderr,
		"usage: bench_lookup [-r ROUNDS] [-n PER_ROUND] "
		"[-m stat,find,session,repeat] PROVIDER BUILD_ID [FILE]\n");
out:
	if (pin)
		dlclose(pin);
	free(modes);
	return ret;
}
