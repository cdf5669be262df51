// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * concurrent_find [-v] [-k KIND] PROVIDERS NR_THREADS BUILD_ID [symbols]:
 * ask one loader for the same build ID (its symbols only, with "symbols")
 * from NR_THREADS threads at once, as perf's threads may.  KIND is an enum
 * symprov_kind number (default 1, a kernel); -v shows the providers' info
 * lines.  Prints one "status path" line per thread; exits 0 when all found
 * the same path.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symprov_buildid.h"
#include "symprov_loader.h"

#define MAX_THREADS 64

struct asker {
	pthread_t tid;
	struct symprov_loader *loader;
	const struct symprov_request *req;
	pthread_barrier_t *start;
	int status;
	char *path;
};

static void *ask(void *arg)
{
	struct asker *a = arg;

	pthread_barrier_wait(a->start);
	struct symprov_answer ans;

	a->status = symprov_loader_find(a->loader, a->req, &ans);
	a->path = ans.path;
	return NULL;
}

static void log_stderr(void *data, int level, const char *provider,
		       const char *msg)
{
	const bool *verbose = data;

	if (level <= (*verbose ? SYMPROV_LOG_INFO : SYMPROV_LOG_WARN))
		fprintf(stderr, "concurrent_find: %s: %s\n", provider ?: "",
			msg);
}

int main(int argc, char **argv)
{
	bool verbose = false;
	struct symprov_loader_host host = { .name = "concurrent_find",
					    .data = &verbose,
					    .log = log_stderr };
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	struct asker askers[MAX_THREADS];
	struct symprov_request req = { .size = sizeof(req),
				       .kind = SYMPROV_KIND_KERNEL };
	struct symprov_loader *loader;
	pthread_barrier_t start;
	const char *why;
	int c, i, n, len, ret = 0;

	while ((c = getopt(argc, argv, "vk:")) != -1) {
		if (c == 'v')
			verbose = true;
		else if (c == 'k')
			req.kind = (uint32_t)atoi(optarg);
		else
			return 1;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc != 4 && (argc != 5 || strcmp(argv[4], "symbols") != 0)) {
		fprintf(stderr,
			"usage: concurrent_find [-v] [-k KIND] PROVIDERS NR_THREADS BUILD_ID [symbols]\n");
		return 1;
	}
	if (argc == 5)
		req.content = SYMPROV_CONTENT_SYMBOLS;
	n = atoi(argv[2]);
	len = symprov_build_id_parse(argv[3], build_id, &why);
	if (n < 1 || n > MAX_THREADS || len < 0) {
		fprintf(stderr, "concurrent_find: bad arguments\n");
		return 1;
	}
	req.build_id = build_id;
	req.build_id_len = (uint32_t)len;
	loader = symprov_loader_new(argv[1], NULL, &host);
	if (!loader || symprov_loader_nr_providers(loader) == 0)
		return 1;

	pthread_barrier_init(&start, NULL, (unsigned int)n);
	for (i = 0; i < n; i++) {
		askers[i] = (struct asker){ .loader = loader,
					    .req = &req,
					    .start = &start };
		pthread_create(&askers[i].tid, NULL, ask, &askers[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(askers[i].tid, NULL);
		printf("%s %s\n", symprov_status_str(askers[i].status),
		       askers[i].path ?: "-");
		if (askers[i].status != SYMPROV_FOUND ||
		    strcmp(askers[i].path, askers[0].path ?: ""))
			ret = 2;
	}
	for (i = 0; i < n; i++)
		free(askers[i].path);
	pthread_barrier_destroy(&start);
	symprov_loader_delete(loader);
	return ret;
}
