// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HEADER_BUILD_ID table of a perf.data file, read with pread() only
 * where the header points, each offset and length checked against the
 * file's size before it is used: the file may come from anywhere.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprov_perfdata.h"

/* "PERFILE2" as perf writes it: a u64 in the writer's byte order. */
#define PD_MAGIC2 0x32454c4946524550ULL
#define PD_MAGIC1 0x454c494646524550ULL /* "PERFFILE", version 1 */

#define PD_HEADER_BUILD_ID 2
#define PD_MISC_BUILD_ID_SIZE (1U << 15)

struct pd_section {
	uint64_t offset;
	uint64_t size;
};

/*
 * struct perf_file_header: magic, size, attr_size, the attrs, data and
 * event_types sections, the feature bitmap.  Read at its offsets.
 */
#define PD_HEADER_SIZE 104
#define PD_AT_SIZE 8
#define PD_AT_DATA 40
#define PD_AT_FEATURES 72
/* a pipe's header: magic and size only */
#define PD_PIPE_HEADER_SIZE 16
/* the header before feature bits (perf before 2.6.35) */
#define PD_OLD_HEADER_SIZE PD_AT_FEATURES

/*
 * struct build_id_event: perf_event_header (8), pid (4), build_id[24]
 * (20 bytes, the size, 3 reserved), then the name.  Before perf 2.6.35
 * it had no pid: perf still reads that layout, which shows in the first
 * entry as "[kernel.kallsyms]" cut by the 4 bytes of a pid.
 */
#define PD_EVENT_HEADER_SIZE 8
#define PD_ENTRY_SIZE 36
#define PD_OLD_ENTRY_SIZE 32
#define PD_ID_SIZE_AT 20 /* in build_id[] */
#define PD_OLD_LAYOUT_MARK "nel.kallsyms]"

static int pd_fail(char *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pd_fail(char *why, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, PERFDATA_WHY_MAX, fmt, ap);
	va_end(ap);
	return err;
}

/* @len bytes at @off, which the caller knows lie inside the file. */
static int pd_read_at(int fd, void *buf, size_t len, uint64_t off, char *why)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pd_fail(why, -errno, "cannot read: %s",
				       strerror(errno));
		if (!n)
			return pd_fail(why, -EIO,
				       "shorter than when it was opened");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* [@off, @off + @size) lies inside a file of @file_size bytes. */
static bool pd_inside(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

static uint64_t pd_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Where the HEADER_BUILD_ID section is, from the header and the table. */
static int pd_find_table(int fd, uint64_t file_size, struct pd_section *sec,
			 char *why)
{
	unsigned char h[PD_HEADER_SIZE];
	const unsigned char *features = h + PD_AT_FEATURES;
	uint64_t magic, size, data_off, data_size, data_end, table;
	unsigned int bit, idx = 0;
	int err;

	if (file_size < sizeof(magic))
		return pd_fail(why, -EINVAL,
			       "not a perf.data file: %llu bytes, too short",
			       (unsigned long long)file_size);
	err = pd_read_at(fd, h, sizeof(magic), 0, why);
	if (err)
		return err;
	magic = pd_u64(h);
	if (magic == __builtin_bswap64(PD_MAGIC2))
		return pd_fail(
			why, -EOPNOTSUPP,
			"written on a machine of the other byte order, not read here");
	if (magic == PD_MAGIC1)
		return pd_fail(why, -EOPNOTSUPP,
			       "a perf.data file of version 1, not read here");
	if (magic != PD_MAGIC2)
		return pd_fail(why, -EINVAL,
			       "not a perf.data file (no PERFILE2 magic)");
	if (file_size < PD_PIPE_HEADER_SIZE)
		return pd_fail(why, -EINVAL,
			       "truncated: %llu bytes, in the header",
			       (unsigned long long)file_size);
	err = pd_read_at(fd, h + PD_AT_SIZE, sizeof(size), PD_AT_SIZE, why);
	if (err)
		return err;
	size = pd_u64(h + PD_AT_SIZE);
	if (size == PD_PIPE_HEADER_SIZE)
		return pd_fail(
			why, -EOPNOTSUPP,
			"written to a pipe: it has no header with build IDs");
	if (size == PD_OLD_HEADER_SIZE)
		return pd_fail(
			why, -ENODATA,
			"no build ID table: a perf.data file of before perf 2.6.35");
	if (size != sizeof(h))
		return pd_fail(why, -EINVAL, "header size %llu, not %zu",
			       (unsigned long long)size, sizeof(h));
	if (file_size < sizeof(h))
		return pd_fail(why, -EINVAL,
			       "truncated: %llu bytes, in the header of %zu",
			       (unsigned long long)file_size, sizeof(h));
	err = pd_read_at(fd, h, sizeof(h), 0, why);
	if (err)
		return err;

	/* the feature sections' table follows the data section */
	data_off = pd_u64(h + PD_AT_DATA);
	data_size = pd_u64(h + PD_AT_DATA + 8);
	if (data_off < sizeof(h))
		return pd_fail(why, -EINVAL,
			       "data section at %llu overlaps the header",
			       (unsigned long long)data_off);
	if (!pd_inside(data_off, data_size, file_size))
		return pd_fail(
			why, -EINVAL,
			"data section of %llu bytes at %llu is outside the file (%llu bytes)",
			(unsigned long long)data_size,
			(unsigned long long)data_off,
			(unsigned long long)file_size);
	if (!(features[PD_HEADER_BUILD_ID / 8] &
	      (1U << (PD_HEADER_BUILD_ID % 8))))
		return pd_fail(
			why, -ENODATA,
			"no build ID table (recorded with --no-buildid?)");
	/* one section for each feature bit set, in order */
	for (bit = 0; bit < PD_HEADER_BUILD_ID; bit++)
		idx += (features[bit / 8] >> (bit % 8)) & 1;
	data_end = data_off + data_size;
	table = data_end + idx * sizeof(*sec);
	if (!pd_inside(table, sizeof(*sec), file_size))
		return pd_fail(
			why, -EINVAL,
			"truncated: the table of feature sections at %llu is past its end (%llu bytes)",
			(unsigned long long)data_end,
			(unsigned long long)file_size);
	err = pd_read_at(fd, sec, sizeof(*sec), table, why);
	if (err)
		return err;
	if (!pd_inside(sec->offset, sec->size, file_size))
		return pd_fail(
			why, -EINVAL,
			"build ID table of %llu bytes at %llu is outside the file (%llu bytes)",
			(unsigned long long)sec->size,
			(unsigned long long)sec->offset,
			(unsigned long long)file_size);
	if (sec->size > PERFDATA_TABLE_MAX)
		return pd_fail(why, -EINVAL,
			       "build ID table of %llu bytes, more than %u MiB",
			       (unsigned long long)sec->size,
			       PERFDATA_TABLE_MAX >> 20);
	return 0;
}

static uint16_t pd_u16(const char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One entry of @size bytes at @e; the layout is the old one if @old. */
static int pd_entry(const char *e, size_t size, bool old, size_t nr,
		    struct perfdata_build_id *id, char *why)
{
	size_t fixed = old ? PD_OLD_ENTRY_SIZE : PD_ENTRY_SIZE;
	const char *bid = e + fixed - 24;
	uint16_t misc = pd_u16(e + 4);

	if (!memchr(e + fixed, '\0', size - fixed))
		return pd_fail(
			why, -EINVAL,
			"build ID entry %zu: its name is not NUL-terminated",
			nr);
	id->cpumode = misc & PERFDATA_MISC_CPUMODE_MASK;
	id->len = PERFDATA_BUILD_ID_MAX;
	if (!old && (misc & PD_MISC_BUILD_ID_SIZE))
		id->len = (unsigned char)bid[PD_ID_SIZE_AT];
	if (!id->len || id->len > PERFDATA_BUILD_ID_MAX)
		return pd_fail(
			why, -EINVAL,
			"build ID entry %zu: build ID size %u, not 1 to %d", nr,
			id->len, PERFDATA_BUILD_ID_MAX);
	memcpy(id->build_id, bid, id->len);
	id->name = e + fixed;
	return 0;
}

/* The entries of the section read into @out->table, @size bytes. */
static int pd_parse(struct perfdata_build_ids *out, size_t size, char *why)
{
	const char *t = out->table;
	size_t off = 0, room = 0;
	bool old = false;

	while (off < size) {
		size_t left = size - off, esize, fixed;
		int err;

		if (left < PD_EVENT_HEADER_SIZE)
			return pd_fail(
				why, -EINVAL,
				"build ID entry %zu: cut after %zu bytes",
				out->nr, left);
		esize = pd_u16(t + off + 6);
		/* the first entry tells the layout, as in perf */
		if (!out->nr && esize >= PD_ENTRY_SIZE + 13 && esize <= left &&
		    !memcmp(t + off + PD_ENTRY_SIZE, PD_OLD_LAYOUT_MARK, 13))
			old = true;
		fixed = old ? PD_OLD_ENTRY_SIZE : PD_ENTRY_SIZE;
		if (esize <= fixed)
			return pd_fail(
				why, -EINVAL,
				"build ID entry %zu: size %zu, too small",
				out->nr, esize);
		if (esize > left)
			return pd_fail(
				why, -EINVAL,
				"build ID entry %zu: %zu bytes, past the end of the table",
				out->nr, esize);
		if (out->nr == room) {
			size_t n = room ? 2 * room : 16;
			void *p = realloc(out->ids, n * sizeof(*out->ids));

			if (!p)
				return pd_fail(why, -ENOMEM, "out of memory");
			out->ids = p;
			room = n;
		}
		err = pd_entry(t + off, esize, old, out->nr, &out->ids[out->nr],
			       why);
		if (err)
			return err;
		out->nr++;
		off += esize;
	}
	return 0;
}

int perfdata_read_build_ids(int fd, struct perfdata_build_ids *out, char *why)
{
	struct pd_section sec = { 0 };
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st)) {
		err = pd_fail(why, -errno, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = pd_fail(why, -EINVAL, "not a regular file");
		goto out;
	}
	err = pd_find_table(fd, (uint64_t)st.st_size, &sec, why);
	if (err)
		goto out;
	/* one byte more: an empty table is no NULL */
	out->table = malloc((size_t)sec.size + 1);
	if (!out->table) {
		err = pd_fail(why, -ENOMEM, "out of memory");
		goto out;
	}
	err = pd_read_at(fd, out->table, (size_t)sec.size, sec.offset, why);
	if (err)
		goto out;
	err = pd_parse(out, (size_t)sec.size, why);
out:
	if (err)
		perfdata_free(out);
	return err;
}

void perfdata_free(struct perfdata_build_ids *ids)
{
	free(ids->ids);
	free(ids->table);
	memset(ids, 0, sizeof(*ids));
}
