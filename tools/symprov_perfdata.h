/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The build IDs a perf.data file names, read from its header without
 * perf: the HEADER_BUILD_ID feature section (perf's
 * Documentation/perf.data-file-format.txt).
 */
#ifndef SYMPROV_PERFDATA_H
#define SYMPROV_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/* struct perf_event_header.misc of a build ID entry: the cpumode */
#define PERFDATA_MISC_CPUMODE_MASK 7
#define PERFDATA_MISC_KERNEL 1
#define PERFDATA_MISC_USER 2
#define PERFDATA_MISC_GUEST_KERNEL 4
#define PERFDATA_MISC_GUEST_USER 5

/* A build ID in a build_id_event has at most 20 bytes. */
#define PERFDATA_BUILD_ID_MAX 20

/* The largest build ID table read: perf writes ~100 bytes a file. */
#define PERFDATA_TABLE_MAX (16U << 20)

/* Room for the reason a file is refused. */
#define PERFDATA_WHY_MAX 160

/* One entry of the table. */
struct perfdata_build_id {
	unsigned int cpumode; /* PERFDATA_MISC_* */
	unsigned int len; /* of build_id: 1 to PERFDATA_BUILD_ID_MAX */
	unsigned char build_id[PERFDATA_BUILD_ID_MAX];
	const char *name; /* NUL-terminated, inside perfdata_build_ids.table */
};

struct perfdata_build_ids {
	struct perfdata_build_id *ids;
	size_t nr;
	char *table; /* the feature section as read */
};

/*
 * Read the build ID table of the perf.data file @fd into @out.  Every
 * offset and length is checked against the file: a damaged or hostile
 * file is refused.  Returns 0, or a negative errno with @why (of
 * PERFDATA_WHY_MAX bytes) saying what is wrong in one line: -EINVAL not a
 * perf.data file or a damaged one, -ENODATA no build ID table,
 * -EOPNOTSUPP a kind of perf.data not read here, -EIO and others from
 * reading.  @out is zeroed first; release it with perfdata_free().
 */
int perfdata_read_build_ids(int fd, struct perfdata_build_ids *out, char *why);

void perfdata_free(struct perfdata_build_ids *ids);

#endif /* SYMPROV_PERFDATA_H */
