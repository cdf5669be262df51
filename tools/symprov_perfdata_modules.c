// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel modules a perf.data file maps when it names no build ID for
 * any of them.  perf 6.1's perf record -a writes none for them where /proc/kcore is
 * readable: marking the files with samples loads the kernel's map from
 * /proc/kcore, which replaces the modules' maps, so no module counts as
 * hit (later perfs load kernel maps lazily; --buildid-all marks every
 * file).  Nothing can be asked for such a module: the reader counts them
 * so that the user is told why, and how to record them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprov_perfdata.h"
#include "symprov_perfdata_read.h"

/* A module's map: cpumode kernel, the path of its file. */
int pd_module_map(struct pd_reader *r, unsigned int cpumode, const char *name,
		  size_t len)
{
	char **names, *copy;

	if (cpumode != PERFDATA_MISC_KERNEL || !len || name[0] != '/')
		return 0;
	/* a kernel has a few hundred modules: more are not told apart */
	if (r->nr_modules == PERFDATA_MODULES_MAX)
		return 0;
	if (r->nr_modules == r->modules_room) {
		size_t n = r->modules_room ? 2 * r->modules_room : 64;

		names = realloc(r->modules, n * sizeof(*names));
		if (!names)
			return pd_fail(r->why, -ENOMEM, "out of memory");
		r->modules = names;
		r->modules_room = n;
	}
	copy = strndup(name, len);
	if (!copy)
		return pd_fail(r->why, -ENOMEM, "out of memory");
	r->modules[r->nr_modules++] = copy;
	return 0;
}

static int pd_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The modules of pd_module_map(), each name once, when no entry names
 * any of them: the names sorted, every kernel entry looked up in them.
 */
int pd_modules_without_id(struct pd_reader *r)
{
	struct perfdata_build_ids *out = r->out;
	size_t i, n = 0;
	bool *named;

	if (!r->nr_modules)
		return 0;
	qsort(r->modules, r->nr_modules, sizeof(*r->modules), pd_cmp_names);
	for (i = 0; i < r->nr_modules; i++) {
		if (n && !strcmp(r->modules[n - 1], r->modules[i])) {
			free(r->modules[i]);
			continue;
		}
		r->modules[n++] = r->modules[i];
	}
	r->nr_modules = n;
	named = calloc(n, sizeof(*named));
	if (!named)
		return pd_fail(r->why, -ENOMEM, "out of memory");
	for (i = 0; i < out->nr; i++) {
		const struct perfdata_build_id *id = &out->ids[i];
		char **hit;

		if (id->cpumode != PERFDATA_MISC_KERNEL || id->name[0] != '/')
			continue;
		hit = bsearch(&id->name, r->modules, n, sizeof(*r->modules),
			      pd_cmp_names);
		if (hit)
			named[hit - r->modules] = true;
	}
	/*
	 * perf writes the build IDs of the files with samples only: one
	 * module named says the others had none.
	 */
	for (i = 0; i < n && !named[i]; i++)
		;
	if (i == n) {
		out->modules_without_id = n;
		snprintf(out->module_without_id, sizeof(out->module_without_id),
			 "%s", r->modules[0]);
	}
	free(named);
	return 0;
}

void pd_modules_free(struct pd_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_modules; i++)
		free(r->modules[i]);
	free(r->modules);
	r->modules = NULL;
	r->nr_modules = r->modules_room = 0;
}
