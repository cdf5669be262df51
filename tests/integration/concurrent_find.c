// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * concurrent_find PROVIDERS NR_THREADS BUILD_ID [WORD...]: ask one loader
 * for the same build ID from NR_THREADS threads at once, as perf's threads
 * may.  Prints one "status path" line per thread; exits 0 when all found
 * the same path.  The words: "symbols" asks for the symbols only,
 * "verbose" prints the log at SYMPROV_LOG_INFO too, "kernel" (the
 * default), "module", "debuginfo" or "executable" is the kind asked for.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const int *max = data;

	if (level <= *max)
		fprintf(stderr, "concurrent_find: %s: %s\n", provider ?: "",
			msg);
}

/* One WORD of the command line into @req or @max_level; -1 if unknown. */
static int parse_word(const char *word, struct symprov_request *req,
		      int *max_level)
{
	static const struct {
		const char *name;
		uint32_t kind;
	} kinds[] = {
		{ "kernel", SYMPROV_KIND_KERNEL },
		{ "module", SYMPROV_KIND_KERNEL_MODULE },
		{ "debuginfo", SYMPROV_KIND_DEBUGINFO },
		{ "executable", SYMPROV_KIND_EXECUTABLE },
	};
	size_t i;

	if (!strcmp(word, "symbols")) {
		req->content = SYMPROV_CONTENT_SYMBOLS;
		return 0;
	}
	if (!strcmp(word, "verbose")) {
		*max_level = SYMPROV_LOG_INFO;
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(word, kinds[i].name)) {
			req->kind = kinds[i].kind;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	int max_level = SYMPROV_LOG_WARN;
	struct symprov_loader_host host = { .name = "concurrent_find",
					    .data = &max_level,
					    .log = log_stderr };
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	struct asker askers[MAX_THREADS];
	struct symprov_request req = { .size = sizeof(req),
				       .kind = SYMPROV_KIND_KERNEL };
	struct symprov_loader *loader;
	pthread_barrier_t start;
	const char *why;
	int i, n, len, ret = 0;

	for (i = 4; i < argc && !parse_word(argv[i], &req, &max_level); i++)
		;
	if (argc < 4 || i < argc) {
		fprintf(stderr,
			"usage: concurrent_find PROVIDERS NR_THREADS BUILD_ID [symbols] [verbose] [kernel|module|debuginfo|executable]\n");
		return 1;
	}
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
