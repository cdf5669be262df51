// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the build IDs of a perf.data file, on any bytes, read
 * from a file in memory as symprov prefetch reads a profile: the header's
 * table, the events, the zstd-compressed ones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symprov_perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct perfdata_build_ids ids;
	char why[PERFDATA_WHY_MAX] = "";
	size_t i, j;
	int err;

	if (fd < 0)
		fd = memfd_create("perf.data", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	err = perfdata_read_build_ids(fd, &ids, why);
	if (err) {
		/* refused: a negative errno, a reason in one line, no table */
		if (err > 0 || !why[0] || strchr(why, '\n') || ids.ids ||
		    ids.names || ids.nr)
			abort();
		return 0;
	}
	if (!ids.nr || ids.nr > PERFDATA_ENTRIES_MAX)
		abort();
	for (i = 0; i < ids.nr; i++) {
		const struct perfdata_build_id *id = &ids.ids[i];

		/* ASan sees the end of the name */
		if (!id->len || id->len > PERFDATA_BUILD_ID_MAX ||
		    strlen(id->name) >= PERFDATA_NAMES_MAX)
			abort();
		/* each entry once; pairs of the first ones only, for speed */
		for (j = 0; j < i && i < 64; j++) {
			const struct perfdata_build_id *o = &ids.ids[j];

			if (o->cpumode == id->cpumode && o->len == id->len &&
			    !memcmp(o->build_id, id->build_id, id->len) &&
			    !strcmp(o->name, id->name))
				abort();
		}
	}
	perfdata_free(&ids);
	return 0;
}
