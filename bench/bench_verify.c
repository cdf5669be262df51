// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_verify: what checking a file a server sent costs, per file.
 *
 *   bench_verify [-r ROUNDS] [-n PER_ROUND] FILE BUILD_ID
 *
 * Times open(), symprov_verify_file() and close() of FILE, as the
 * provider and the hosts do for every file they get, against open() and
 * close() alone.  Prints "verify ROUND NS_PER_CALL" and "open ROUND
 * NS_PER_CALL" lines; exits 1 when FILE fails the check.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "libsymprov.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per call of @n checks of @file (@len 0: open and close only). */
static double bench_calls(const char *file, const unsigned char *id, int len,
			  long n, const char **why)
{
	double start = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		int fd = open(file, O_RDONLY | O_CLOEXEC), ret = 0;

		if (fd < 0) {
			*why = "cannot open";
			return -1;
		}
		if (len)
			ret = symprov_verify_file(fd, SYMPROV_KIND_KERNEL, id,
						  (size_t)len, why);
		close(fd);
		if (ret)
			return -1;
	}
	return (now_ns() - start) / (double)n;
}

int main(int argc, char **argv)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	long rounds = 10, per_round = 100, r;
	const char *why = NULL;
	int c, len;

	while ((c = getopt(argc, argv, "r:n:")) != -1) {
		if (c == 'r')
			rounds = strtol(optarg, NULL, 10);
		else if (c == 'n')
			per_round = strtol(optarg, NULL, 10);
		else
			goto usage;
	}
	if (argc - optind != 2 || rounds < 1 || per_round < 1)
		goto usage;
	len = symprov_build_id_parse(argv[optind + 1], id, &why);
	if (len < 0) {
		fprintf(stderr, "bench_verify: build ID: %s\n", why);
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		double v = bench_calls(argv[optind], id, len, per_round, &why);
		double o = bench_calls(argv[optind], id, 0, per_round, &why);

		if (v < 0 || o < 0) {
			fprintf(stderr, "bench_verify: %s: %s\n", argv[optind],
				why);
			return 1;
		}
		printf("verify %ld %.1f\nopen %ld %.1f\n", r, v, r, o);
	}
	return 0;
usage:
	fprintf(stderr,
		"usage: bench_verify [-r ROUNDS] [-n PER_ROUND] FILE BUILD_ID\n");
	return 1;
}
