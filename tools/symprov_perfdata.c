// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build IDs of a perf.data file: its header, the HEADER_BUILD_ID
 * table, then the events (symprov_perfdata_events.c), each (build ID,
 * name, cpumode) kept once.  Read with pread() only where the header
 * points, each offset and length checked against the file's size before
 * it is used: the file may come from anywhere.
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
#include "symprov_perfdata_read.h"

/* "PERFILE2" as perf writes it: a u64 in the writer's byte order. */
#define PD_MAGIC2 0x32454c4946524550ULL
#define PD_MAGIC1 0x454c494646524550ULL /* "PERFFILE", version 1 */

#define PD_HEADER_BUILD_ID 2
#define PD_HEADER_VERSION 5
#define PD_HEADER_COMPRESSED 27
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
#define PD_ENTRY_SIZE 36
#define PD_OLD_ENTRY_SIZE 32
#define PD_ID_SIZE_AT 20 /* in build_id[] */
#define PD_OLD_LAYOUT_MARK "nel.kallsyms]"

/* HEADER_COMPRESSED: version, type, level, ratio, mmap_len (u32 each) */
#define PD_COMP_TYPE_AT 4

/* A block of names; perfdata_build_ids.names is the newest. */
struct pd_names {
	struct pd_names *next;
	size_t used;
	size_t size;
	char data[];
};

#define PD_NAMES_BLOCK (64U << 10)

int pd_fail(char *why, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, PERFDATA_WHY_MAX, fmt, ap);
	va_end(ap);
	return err;
}

int pd_read_at(int fd, void *buf, size_t len, uint64_t off, char *why)
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

/* The header @h, checked; a pipe's is refused. */
static int pd_read_header(int fd, uint64_t file_size,
			  unsigned char h[PD_HEADER_SIZE], char *why)
{
	uint64_t magic, size, data_off, data_size;
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
			"written to a pipe, not read here (perf inject -o FILE makes a file of it)");
	if (size == PD_OLD_HEADER_SIZE)
		return pd_fail(
			why, -ENODATA,
			"no build ID table: a perf.data file of before perf 2.6.35");
	if (size != PD_HEADER_SIZE)
		return pd_fail(why, -EINVAL, "header size %llu, not %d",
			       (unsigned long long)size, PD_HEADER_SIZE);
	if (file_size < PD_HEADER_SIZE)
		return pd_fail(why, -EINVAL,
			       "truncated: %llu bytes, in the header of %d",
			       (unsigned long long)file_size, PD_HEADER_SIZE);
	err = pd_read_at(fd, h, PD_HEADER_SIZE, 0, why);
	if (err)
		return err;

	data_off = pd_u64(h + PD_AT_DATA);
	data_size = pd_u64(h + PD_AT_DATA + 8);
	if (data_off < PD_HEADER_SIZE)
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
	return 0;
}

static bool pd_has_feature(const unsigned char h[PD_HEADER_SIZE],
			   unsigned int bit)
{
	return h[PD_AT_FEATURES + bit / 8] & (1U << (bit % 8));
}

/* Where the section of feature @bit, @what, is: the header says it is. */
static int pd_find_feature(struct pd_reader *r,
			   const unsigned char h[PD_HEADER_SIZE],
			   unsigned int bit, const char *what,
			   struct pd_section *sec)
{
	uint64_t data_end, table;
	unsigned int i, idx = 0;
	int err;

	/* one section for each feature bit set, in order, after the data */
	for (i = 0; i < bit; i++)
		idx += pd_has_feature(h, i);
	data_end = pd_u64(h + PD_AT_DATA) + pd_u64(h + PD_AT_DATA + 8);
	table = data_end + idx * sizeof(*sec);
	if (!pd_inside(table, sizeof(*sec), r->file_size))
		return pd_fail(
			r->why, -EINVAL,
			"truncated: the table of feature sections at %llu is past its end (%llu bytes)",
			(unsigned long long)data_end,
			(unsigned long long)r->file_size);
	err = pd_read_at(r->fd, sec, sizeof(*sec), table, r->why);
	if (err)
		return err;
	if (!pd_inside(sec->offset, sec->size, r->file_size))
		return pd_fail(
			r->why, -EINVAL,
			"%s of %llu bytes at %llu is outside the file (%llu bytes)",
			what, (unsigned long long)sec->size,
			(unsigned long long)sec->offset,
			(unsigned long long)r->file_size);
	return 0;
}

/* FNV-1a of what makes an entry itself. */
static uint64_t pd_hash(unsigned int cpumode, const unsigned char *build_id,
			unsigned int len, const char *name)
{
	uint64_t h = pd_fnv(PD_FNV_START, cpumode);
	unsigned int i;

	for (i = 0; i < len; i++)
		h = pd_fnv(h, build_id[i]);
	h = pd_fnv(h, len);
	for (; *name; name++)
		h = pd_fnv(h, (unsigned char)*name);
	return h;
}

/* The slot of the entry like @id, or of the free one where it goes. */
static size_t *pd_slot(struct pd_reader *r, const struct perfdata_build_id *id)
{
	size_t mask = r->nr_slots - 1;
	size_t i = pd_hash(id->cpumode, id->build_id, id->len, id->name) & mask;

	for (;; i = (i + 1) & mask) {
		const struct perfdata_build_id *o;

		if (!r->slots[i])
			return &r->slots[i];
		o = &r->out->ids[r->slots[i] - 1];
		if (o->cpumode == id->cpumode && o->len == id->len &&
		    !memcmp(o->build_id, id->build_id, id->len) &&
		    !strcmp(o->name, id->name))
			return &r->slots[i];
	}
}

/* Room for one entry more, in the array and in the hash (half full). */
static int pd_grow(struct pd_reader *r)
{
	struct perfdata_build_ids *out = r->out;
	size_t i, n;

	if (out->nr == r->room) {
		void *p;

		n = r->room ? 2 * r->room : 64;
		p = realloc(out->ids, n * sizeof(*out->ids));
		if (!p)
			return -ENOMEM;
		out->ids = p;
		r->room = n;
	}
	if (2 * (out->nr + 1) <= r->nr_slots)
		return 0;
	n = r->nr_slots ? 2 * r->nr_slots : 128;
	free(r->slots);
	r->slots = calloc(n, sizeof(*r->slots));
	if (!r->slots)
		return -ENOMEM;
	r->nr_slots = n;
	for (i = 0; i < out->nr; i++)
		*pd_slot(r, &out->ids[i]) = i + 1;
	return 0;
}

/* A copy of @name, @len bytes, kept with the entries. */
static const char *pd_keep_name(struct perfdata_build_ids *out,
				const char *name, size_t len)
{
	struct pd_names *b = out->names;
	char *copy;

	if (!b || b->size - b->used <= len) {
		size_t size = len < PD_NAMES_BLOCK ? PD_NAMES_BLOCK : len + 1;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = out->names;
		b->used = 0;
		b->size = size;
		out->names = b;
	}
	copy = b->data + b->used;
	memcpy(copy, name, len);
	copy[len] = '\0';
	b->used += len + 1;
	return copy;
}

int pd_add(struct pd_reader *r, unsigned int cpumode,
	   const unsigned char *build_id, unsigned int len, const char *name,
	   size_t name_len)
{
	struct perfdata_build_ids *out = r->out;
	struct perfdata_build_id *id;
	size_t *slot;

	if (pd_grow(r))
		return pd_fail(r->why, -ENOMEM, "out of memory");
	/* the entry is made in place, then kept if it is a new one */
	id = &out->ids[out->nr];
	id->cpumode = cpumode;
	id->len = len;
	memcpy(id->build_id, build_id, len);
	/* a name with a NUL inside is the name up to it, as in perf */
	name_len = strnlen(name, name_len);
	if (r->names_size + name_len + 1 > PERFDATA_NAMES_MAX)
		return pd_fail(
			r->why, -EINVAL,
			"the names of its build IDs take more than %u MiB",
			PERFDATA_NAMES_MAX >> 20);
	id->name = pd_keep_name(out, name, name_len);
	if (!id->name)
		return pd_fail(r->why, -ENOMEM, "out of memory");
	slot = pd_slot(r, id);
	if (*slot) {
		/* the same again: the copy of its name is given back */
		((struct pd_names *)out->names)->used -= name_len + 1;
		return 0;
	}
	if (out->nr == PERFDATA_ENTRIES_MAX)
		return pd_fail(r->why, -EINVAL, "more than %u build IDs",
			       PERFDATA_ENTRIES_MAX);
	r->names_size += name_len + 1;
	*slot = ++out->nr;
	return 0;
}

int pd_add_build_id_event(struct pd_reader *r, const char *e, size_t size,
			  bool old, const char *what, uint64_t nr)
{
	size_t fixed = old ? PD_OLD_ENTRY_SIZE : PD_ENTRY_SIZE;
	const unsigned char *bid = (const unsigned char *)e + fixed - 24;
	uint16_t misc = pd_u16(e + 4);
	unsigned int len = PERFDATA_BUILD_ID_MAX;

	if (size <= fixed)
		return pd_fail(r->why, -EINVAL, "%s %llu: size %zu, too small",
			       what, (unsigned long long)nr, size);
	if (!memchr(e + fixed, '\0', size - fixed))
		return pd_fail(r->why, -EINVAL,
			       "%s %llu: its name is not NUL-terminated", what,
			       (unsigned long long)nr);
	if (!old && (misc & PD_MISC_BUILD_ID_SIZE))
		len = bid[PD_ID_SIZE_AT];
	if (!len || len > PERFDATA_BUILD_ID_MAX)
		return pd_fail(r->why, -EINVAL,
			       "%s %llu: build ID size %u, not 1 to %d", what,
			       (unsigned long long)nr, len,
			       PERFDATA_BUILD_ID_MAX);
	return pd_add(r, misc & PERFDATA_MISC_CPUMODE_MASK, bid, len, e + fixed,
		      size - fixed);
}

/* The entries of the table @t of @size bytes. */
static int pd_parse_table(struct pd_reader *r, const char *t, size_t size)
{
	size_t off = 0, nr = 0;
	bool old = false;

	while (off < size) {
		size_t left = size - off, esize;
		int err;

		if (left < PD_EVENT_HEADER_SIZE)
			return pd_fail(
				r->why, -EINVAL,
				"build ID entry %zu: cut after %zu bytes", nr,
				left);
		esize = pd_u16(t + off + 6);
		/* the first entry tells the layout, as in perf */
		if (!nr && esize >= PD_ENTRY_SIZE + 13 && esize <= left &&
		    !memcmp(t + off + PD_ENTRY_SIZE, PD_OLD_LAYOUT_MARK, 13))
			old = true;
		if (esize > left &&
		    esize > (old ? PD_OLD_ENTRY_SIZE : PD_ENTRY_SIZE))
			return pd_fail(
				r->why, -EINVAL,
				"build ID entry %zu: %zu bytes, past the end of the table",
				nr, esize);
		err = pd_add_build_id_event(r, t + off, esize, old,
					    "build ID entry", nr);
		if (err)
			return err;
		nr++;
		off += esize;
	}
	return 0;
}

/* The HEADER_BUILD_ID table, which the header says is there. */
static int pd_read_table(struct pd_reader *r,
			 const unsigned char h[PD_HEADER_SIZE])
{
	struct pd_section sec = { 0 };
	char *table = NULL;
	int err;

	err = pd_find_feature(r, h, PD_HEADER_BUILD_ID, "build ID table", &sec);
	if (err)
		goto out;
	if (sec.size > PERFDATA_TABLE_MAX) {
		err = pd_fail(r->why, -EINVAL,
			      "build ID table of %llu bytes, more than %u MiB",
			      (unsigned long long)sec.size,
			      PERFDATA_TABLE_MAX >> 20);
		goto out;
	}
	/* one byte more: an empty table is no NULL */
	table = malloc((size_t)sec.size + 1);
	if (!table) {
		err = pd_fail(r->why, -ENOMEM, "out of memory");
		goto out;
	}
	err = pd_read_at(r->fd, table, (size_t)sec.size, sec.offset, r->why);
	if (err)
		goto out;
	err = pd_parse_table(r, table, (size_t)sec.size);
out:
	free(table);
	return err;
}

/* The compression the events are in, of HEADER_COMPRESSED. */
static int pd_read_compression(struct pd_reader *r,
			       const unsigned char h[PD_HEADER_SIZE])
{
	unsigned char head[PD_COMP_TYPE_AT + 4];
	struct pd_section sec = { 0 };
	int err;

	if (!pd_has_feature(h, PD_HEADER_COMPRESSED))
		return 0;
	err = pd_find_feature(r, h, PD_HEADER_COMPRESSED, "compression feature",
			      &sec);
	if (err)
		return err;
	if (sec.size < sizeof(head))
		return pd_fail(r->why, -EINVAL,
			       "compression feature of %llu bytes, too short",
			       (unsigned long long)sec.size);
	err = pd_read_at(r->fd, head, sizeof(head), sec.offset, r->why);
	if (err)
		return err;
	r->comp_type = pd_u32(head + PD_COMP_TYPE_AT);
	return 0;
}

/* A perf version, "6.1.187", before 6.12; false when not one. */
static bool pd_version_before_6_12(const char *v)
{
	unsigned long major, minor;
	char *end;

	major = strtoul(v, &end, 10);
	if (end == v || *end != '.')
		return false;
	v = end + 1;
	minor = strtoul(v, &end, 10);
	if (end == v)
		return false;
	return major < 6 || (major == 6 && minor < 12);
}

/*
 * Whether HEADER_VERSION says perf before 6.12 wrote the file: a string,
 * its u32 length first, "6.1.187" or "6.12.57".  Not told, or not read:
 * false, so nothing is said of modules without build IDs.
 */
static bool pd_read_old_perf(struct pd_reader *r,
			     const unsigned char h[PD_HEADER_SIZE])
{
	unsigned char buf[4 + 32] = { 0 };
	struct pd_section sec = { 0 };
	char why[PERFDATA_WHY_MAX], *w = r->why;
	bool old = false;

	if (!pd_has_feature(h, PD_HEADER_VERSION))
		return false;
	/* a damaged version is not worth refusing the file for */
	r->why = why;
	if (!pd_find_feature(r, h, PD_HEADER_VERSION, "version", &sec) &&
	    sec.size > 4 &&
	    !pd_read_at(r->fd, buf,
			sec.size < sizeof(buf) - 1 ? (size_t)sec.size :
						     sizeof(buf) - 1,
			sec.offset, why))
		old = pd_version_before_6_12((const char *)buf + 4);
	r->why = w;
	return old;
}

int perfdata_read_build_ids(int fd, struct perfdata_build_ids *out, char *why)
{
	struct pd_reader r = { .fd = fd, .out = out, .why = why };
	unsigned char h[PD_HEADER_SIZE] = { 0 };
	bool has_table;
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
	r.file_size = (uint64_t)st.st_size;
	err = pd_read_header(fd, r.file_size, h, why);
	if (err)
		goto out;
	has_table = pd_has_feature(h, PD_HEADER_BUILD_ID);
	if (has_table) {
		err = pd_read_table(&r, h);
		if (err)
			goto out;
	}
	err = pd_read_compression(&r, h);
	if (err)
		goto out;
	r.old_perf = pd_read_old_perf(&r, h);
	err = pd_read_events(&r, pd_u64(h + PD_AT_DATA),
			     pd_u64(h + PD_AT_DATA + 8));
	if (err)
		goto out;
	pd_modules_without_id(&r);
	if (!out->nr)
		err = pd_fail(
			why, -ENODATA, "%s",
			has_table ?
				"no build ID: an empty build ID table, none in the events" :
				"no build ID table and none in the events (recorded with --no-buildid?)");
out:
	pd_modules_free(&r);
	free(r.slots);
	if (err)
		perfdata_free(out);
	return err;
}

void perfdata_free(struct perfdata_build_ids *ids)
{
	struct pd_names *b = ids->names;

	while (b) {
		struct pd_names *next = b->next;

		free(b);
		b = next;
	}
	free(ids->ids);
	memset(ids, 0, sizeof(*ids));
}
