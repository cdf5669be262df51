// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel modules a perf.data file of perf before 6.12 maps when it
 * names no build ID for any of them.  perf 6.1's perf record -a writes
 * none for them where /proc/kcore is readable: marking the files with
 * samples loads the kernel's map from /proc/kcore, which replaces the
 * modules' maps, so no module counts as hit (6.12 loads kernel maps
 * lazily; --buildid-all marks every file).  Nothing can be asked for
 * such a module: the reader counts them so that the user is told why,
 * and how to record them.  perf writes the build IDs of the files with
 * samples only, so a profile with no sample in a module looks the same.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprov_perfdata.h"
#include "symprov_perfdata_read.h"

/* Slots of the set of names: a power of two, twice the names kept. */
#define PD_MODULE_SLOTS (2 * (size_t)PERFDATA_MODULES_MAX)

static uint64_t pd_name_hash(const char *name, size_t len)
{
	uint64_t h = PD_FNV_START;

	while (len--)
		h = pd_fnv(h, (unsigned char)*name++);
	return h;
}

/* A kernel-space map: a module's when it names a file, kept once. */
int pd_module_map(struct pd_reader *r, const char *name, size_t len)
{
	size_t i, *slot;

	/* a longer name is no file's: the names kept stay under 16 MiB */
	if (!len || len >= PATH_MAX || name[0] != '/')
		return 0;
	if (!r->module_slots) {
		r->module_slots = calloc(PD_MODULE_SLOTS, sizeof(size_t));
		r->modules = calloc(PERFDATA_MODULES_MAX, sizeof(char *));
		if (!r->module_slots || !r->modules)
			return pd_fail(r->why, -ENOMEM, "out of memory");
	}
	i = pd_name_hash(name, len) & (PD_MODULE_SLOTS - 1);
	for (;; i = (i + 1) & (PD_MODULE_SLOTS - 1)) {
		slot = &r->module_slots[i];
		if (!*slot)
			break;
		if (!strncmp(r->modules[*slot - 1], name, len) &&
		    !r->modules[*slot - 1][len])
			return 0;
	}
	/* a kernel has a few hundred modules: more are not told apart */
	if (r->nr_modules == PERFDATA_MODULES_MAX)
		return 0;
	r->modules[r->nr_modules] = strndup(name, len);
	if (!r->modules[r->nr_modules])
		return pd_fail(r->why, -ENOMEM, "out of memory");
	*slot = ++r->nr_modules;
	return 0;
}

static int pd_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The modules of pd_module_map() when no entry names any of them: the
 * names sorted, every kernel entry looked up in them.
 */
void pd_modules_without_id(struct pd_reader *r)
{
	struct perfdata_build_ids *out = r->out;
	size_t i;

	if (!r->nr_modules)
		return;
	qsort(r->modules, r->nr_modules, sizeof(*r->modules), pd_cmp_names);
	for (i = 0; i < out->nr; i++) {
		const struct perfdata_build_id *id = &out->ids[i];

		if (id->cpumode == PERFDATA_MISC_KERNEL && id->name[0] == '/' &&
		    bsearch(&id->name, r->modules, r->nr_modules,
			    sizeof(*r->modules), pd_cmp_names))
			return;
	}
	out->modules_without_id = r->nr_modules;
	snprintf(out->module_without_id, sizeof(out->module_without_id), "%s",
		 r->modules[0]);
}

void pd_modules_free(struct pd_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_modules; i++)
		free(r->modules[i]);
	free(r->modules);
	free(r->module_slots);
	r->modules = NULL;
	r->module_slots = NULL;
	r->nr_modules = 0;
}
