/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The build IDs a perf.data file names, read without perf: from the
 * HEADER_BUILD_ID feature section of its header and from the events of
 * its data section (MMAP2 records with a build ID, build ID records),
 * zstd-compressed ones too (perf's Documentation/perf.data-file-format.txt).
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

/*
 * The most build IDs kept, and bytes of their names: a profile names a
 * few thousand files, while every process's MMAP2 of the same file is
 * one entry.
 */
#define PERFDATA_ENTRIES_MAX (1U << 20)
#define PERFDATA_NAMES_MAX (64U << 20)

/*
 * Compressed records decompress to at most this many bytes more than
 * PERFDATA_ZSTD_RATIO_MAX times their size: perf's own ratio is near 10,
 * and a hostile file costs no more than that much work.
 */
#define PERFDATA_ZSTD_SLACK (64U << 20)
#define PERFDATA_ZSTD_RATIO_MAX 1024

/* Kernel modules mapped with no build ID: at most this many told apart. */
#define PERFDATA_MODULES_MAX 4096

/* Room for the reason a file is refused. */
#define PERFDATA_WHY_MAX 160

/* One build ID and the file it is of. */
struct perfdata_build_id {
	unsigned int cpumode; /* PERFDATA_MISC_* */
	unsigned int len; /* of build_id: 1 to PERFDATA_BUILD_ID_MAX */
	unsigned char build_id[PERFDATA_BUILD_ID_MAX];
	const char *name; /* NUL-terminated, inside perfdata_build_ids.names */
};

/*
 * The entries in the order they were found, the header's table first,
 * each (build ID, name, cpumode) once.
 */
struct perfdata_build_ids {
	struct perfdata_build_id *ids;
	size_t nr;
	void *names; /* the blocks the names are copied into */
	/*
	 * Kernel modules the events of a file of perf before 6.12 map when
	 * no build ID names any of them (perf 6.1's perf record -a where
	 * /proc/kcore is readable, or no sample in a module): how many, and
	 * the first one's path.
	 */
	size_t modules_without_id;
	char module_without_id[PERFDATA_WHY_MAX];
};

/*
 * Read the build IDs of the perf.data file @fd into @out.  Every offset
 * and length is checked against the file: a damaged or hostile file is
 * refused.  Returns 0, or a negative errno with @why (of PERFDATA_WHY_MAX
 * bytes) saying what is wrong in one line: -EINVAL not a perf.data file
 * or a damaged one, -ENODATA no build ID in it, -EOPNOTSUPP a kind of
 * perf.data not read here (a pipe's), -EIO and others from reading.  @out
 * is zeroed first; release it with perfdata_free().
 */
int perfdata_read_build_ids(int fd, struct perfdata_build_ids *out, char *why);

void perfdata_free(struct perfdata_build_ids *ids);

#endif /* SYMPROV_PERFDATA_H */
