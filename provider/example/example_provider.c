// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Example: DIR/<build-id>/vmlinux, DIR from symprov.example.dir or env. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <symprov.h>

static int ex_init(const struct symprov_host *host, void **state)
{
	*state = (void *)host; /* handed to every find() */
	return 0;
}

static int ex_find(void *state, const struct symprov_request *req,
		   struct symprov_result *res)
{
	const struct symprov_host *host = state;
	const char *dir = NULL;
	char *path;
	int n, i;

	if (host->config)
		dir = host->config(host->data, "symprov.example.dir");
	if (!dir && !(host->flags & SYMPROV_HOST_SECURE)) /* user's env */
		dir = getenv("SYMPROV_EXAMPLE_DIR");
	if (!dir || req->kind != SYMPROV_KIND_KERNEL ||
	    host->flags & SYMPROV_HOST_NO_BUILDID_CACHE)
		return SYMPROV_DISABLED;
	path = malloc(strlen(dir) + 2 * (size_t)req->build_id_len + 10);
	if (!path)
		return SYMPROV_UNAVAILABLE;
	n = sprintf(path, "%s/", dir);
	for (i = 0; i < (int)req->build_id_len; i++)
		n += sprintf(path + n, "%02x", req->build_id[i]);
	strcpy(path + n, "/vmlinux");
	if (access(path, R_OK) == 0) {
		res->path = path; /* the host frees it */
		return SYMPROV_FOUND;
	}
	free(path);
	return SYMPROV_NOT_FOUND;
}

static const struct symprov_provider ex_provider = {
	.size = sizeof(struct symprov_provider),
	.abi_major = SYMPROV_ABI_MAJOR,
	.abi_minor = SYMPROV_ABI_MINOR,
	.name = "example",
	.version = "1.0",
	.description = "vmlinux files by build ID under a local directory",
	.init = ex_init,
	.find = ex_find,
};

SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void)
{
	return &ex_provider;
}
