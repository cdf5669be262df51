/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the two halves of the perf.data reader share: the header and its
 * table (symprov_perfdata.c), the events (symprov_perfdata_events.c).
 */
#ifndef SYMPROV_PERFDATA_READ_H
#define SYMPROV_PERFDATA_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "symprov_perfdata.h"

#define PD_EVENT_HEADER_SIZE 8

/* The compression of HEADER_COMPRESSED: perf's enum perf_compress_type. */
#define PD_COMP_NONE 0
#define PD_COMP_ZSTD 1

/* One read of a file, and the set of build IDs it fills. */
struct pd_reader {
	int fd;
	uint64_t file_size;
	unsigned int comp_type; /* PD_COMP_* of HEADER_COMPRESSED */
	struct perfdata_build_ids *out;
	size_t room; /* of out->ids */
	size_t *slots; /* a hash of out->ids: index + 1, 0 when free */
	size_t nr_slots; /* a power of two */
	uint64_t names_size; /* bytes of the names kept */
	char **modules; /* the modules mapped with no build ID in the map */
	size_t nr_modules;
	size_t *module_slots; /* a hash of modules: index + 1, 0 when free */
	bool old_perf; /* recorded by perf before 6.12 (HEADER_VERSION) */
	char *why; /* PERFDATA_WHY_MAX bytes */
};

int pd_fail(char *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @len bytes at @off, which the caller knows lie inside the file. */
int pd_read_at(int fd, void *buf, size_t len, uint64_t off, char *why);

/* Add an entry unless the same one is in the set; @name of @name_len. */
int pd_add(struct pd_reader *r, unsigned int cpumode,
	   const unsigned char *build_id, unsigned int len, const char *name,
	   size_t name_len);

/*
 * Add the build_id_event of @size bytes at @e (an entry of the table or
 * a PERF_RECORD_HEADER_BUILD_ID record); @old: the layout before perf
 * 2.6.35.  @what names it in a refusal.
 */
int pd_add_build_id_event(struct pd_reader *r, const char *e, size_t size,
			  bool old, const char *what, uint64_t nr);

/*
 * A kernel-space map with no build ID in it (@name of @len bytes) of a
 * file of perf before 6.12 (pd_reader.old_perf), kept when it is a
 * module's, to be looked up once every build ID is read:
 * pd_modules_without_id() sets perfdata_build_ids.modules_without_id;
 * pd_modules_free() releases them.
 */
int pd_module_map(struct pd_reader *r, const char *name, size_t len);
void pd_modules_without_id(struct pd_reader *r);
void pd_modules_free(struct pd_reader *r);

/* The build IDs of the events of the data section, @size bytes at @off. */
int pd_read_events(struct pd_reader *r, uint64_t off, uint64_t size);

/* FNV-1a, the hash of the reader's sets: its start, and one value more. */
#define PD_FNV_START 0xcbf29ce484222325ULL

static inline uint64_t pd_fnv(uint64_t h, unsigned int v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static inline uint16_t pd_u16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pd_u32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t pd_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif /* SYMPROV_PERFDATA_READ_H */
