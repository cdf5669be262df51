// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Example provider: DIR/<build-id>/vmlinux, DIR from the config key
 * "symprov.example.dir" or $SYMPROV_EXAMPLE_DIR. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <symprov.h>

static const struct symprov_host *host;

static int ex_init(const struct symprov_host *h, void **state)
{
	host = h;
	*state = NULL;
	return 0;
}

static int ex_find(void *state __attribute__((unused)),
		   const struct symprov_request *req,
		   struct symprov_result *res)
{
	const char *dir =
		host->config ? host->config(host->data, "symprov.example.dir") :
			       NULL;
	char *path;
	int n, i;

	dir = dir ?: getenv("SYMPROV_EXAMPLE_DIR");
	if (!dir || req->kind != SYMPROV_KIND_KERNEL)
		return SYMPROV_DISABLED;
	n = snprintf(NULL, 0, "%s/", dir) + 2 * req->build_id_len + 9;
	path = malloc(n); /* the host frees it */
	if (!path)
		return SYMPROV_UNAVAILABLE;
	n = sprintf(path, "%s/", dir);
	for (i = 0; i < (int)req->build_id_len; i++)
		n += sprintf(path + n, "%02x", req->build_id[i]);
	strcpy(path + n, "/vmlinux");
	if (access(path, R_OK) == 0) {
		res->path = path;
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
