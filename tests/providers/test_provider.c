// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A provider for the loader's tests, built many times with -D switches
 * into good and broken variants.  Its answers come from the host's config:
 * "test.<name>.status" (a number), "test.<name>.path",
 * "test.<name>.content" (a number, for symprov_result.content),
 * "test.<name>.error" (a number, for symprov_result.error),
 * "test.<name>.serves" (a number: not found for a request of another
 * content), "test.<name>.kind" (a number: not found for a request of
 * another kind), and with "test.<name>.progress" set it calls the host's
 * progress once.  It logs
 * each call with what was asked, so the tests can count them.  With
 * -DTP_KEY_PREFIX='"symprov.test"' the keys are "symprov.test.<name>.*",
 * the ones perf passes to providers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symprov.h"

#ifndef TP_NAME
#define TP_NAME "tp"
#endif
#ifndef TP_KEY_PREFIX
#define TP_KEY_PREFIX "test"
#endif
#ifndef TP_ABI_MAJOR
#define TP_ABI_MAJOR SYMPROV_ABI_MAJOR
#endif
#ifndef TP_ABI_MINOR
#define TP_ABI_MINOR SYMPROV_ABI_MINOR
#endif
#ifndef TP_RESERVED
#define TP_RESERVED 0
#endif
/* extra bytes after the provider struct, as a newer provider would have */
#ifndef TP_PAD
#define TP_PAD 0
#endif
#ifndef TP_PAD_BYTE
#define TP_PAD_BYTE 0
#endif
#ifndef TP_SIZE
#define TP_SIZE (sizeof(struct symprov_provider) + TP_PAD)
#endif
/* the answer without a "status" config: "symprov check" has none */
#ifndef TP_STATUS
#define TP_STATUS SYMPROV_NOT_FOUND
#endif

static const struct symprov_host *tp_host;

static const char *tp_config(const char *what)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.%s.%s", TP_KEY_PREFIX, TP_NAME, what);
	return tp_host->config ? tp_host->config(tp_host->data, key) : NULL;
}

static int tp_init(const struct symprov_host *host, void **state)
{
	tp_host = host;
	*state = (void *)TP_NAME;
#ifdef TP_INIT_FAIL
	host->log(host->data, SYMPROV_LOG_ERROR, "refusing to start");
	return -EPERM;
#else
	return 0;
#endif
}

static int tp_find(void *state, const struct symprov_request *req,
		   struct symprov_result *res)
{
	const char *status = tp_config("status");
	const char *path = tp_config("path");
	const char *progress = tp_config("progress");
	const char *content = tp_config("content");
	const char *error = tp_config("error");
	const char *serves = tp_config("serves");
	const char *kind = tp_config("kind");
	uint32_t asked = SYMPROV_HAS(req, content) ? req->content : 0;

	tp_host->log(tp_host->data, SYMPROV_LOG_DEBUG,
		     "find %s kind %u content %u", (const char *)state,
		     req->kind, asked);
	if ((serves && (uint32_t)atoi(serves) != asked) ||
	    (kind && (uint32_t)atoi(kind) != req->kind))
		return SYMPROV_NOT_FOUND;
		/* the mistakes "symprov check" must catch */
#ifdef TP_READ_PAST /* reads content without SYMPROV_HAS() */
	if (req->content > SYMPROV_CONTENT_SYMBOLS)
		return SYMPROV_UNAVAILABLE;
#endif
#ifdef TP_PRINT
	printf("found nothing\n");
#endif
#ifdef TP_EXIT
	exit(3);
#endif
#ifdef TP_HANG
	pause();
#endif
#ifdef TP_CHATTY /* logs 64 KiB, more than symprov check keeps */
	for (int i = 0; i < 1024; i++)
		tp_host->log(tp_host->data, SYMPROV_LOG_DEBUG, "%d: %058d", i,
			     0);
#endif
#ifdef TP_PATH
	if (!path)
		path = TP_PATH;
#endif
	if (progress && tp_host->progress(tp_host->data, req, 1, 2) !=
				SYMPROV_PROGRESS_CONTINUE)
		return SYMPROV_CANCELLED;
	if (path)
		res->path = strdup(path);
	if (content && SYMPROV_HAS(res, content))
		res->content = (uint32_t)atoi(content);
	if (error)
		res->error = atoi(error);
	return status ? atoi(status) : TP_STATUS;
}

static void tp_fini(void *state)
{
	(void)state;
	tp_host->log(tp_host->data, SYMPROV_LOG_DEBUG, "fini");
}

static const struct {
	struct symprov_provider prov;
	unsigned char pad[TP_PAD + 1];
} tp_provider __attribute__((used)) = {
	.prov = {
		.size = TP_SIZE,
		.abi_major = TP_ABI_MAJOR,
		.abi_minor = TP_ABI_MINOR,
		.reserved0 = TP_RESERVED,
		.name = TP_NAME,
		.version = "9.9",
		.description = "loader test provider",
		.init = tp_init,
		.find = tp_find,
		.fini = tp_fini,
	},
	.pad = { [0 ... TP_PAD] = TP_PAD_BYTE },
};

#ifndef TP_NO_ENTRY
SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void)
{
	return &tp_provider.prov;
}
#endif
