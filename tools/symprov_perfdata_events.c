// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The build IDs in the events of a perf.data file's data section: MMAP2
 * records with PERF_RECORD_MISC_MMAP_BUILD_ID (perf record --buildid-mmap,
 * perf 7's default) and PERF_RECORD_HEADER_BUILD_ID records (perf
 * inject), inside zstd-compressed records too (perf record -z).  The
 * file is read a window at a time; every size is checked before use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "symprov_perfdata.h"
#include "symprov_perfdata_read.h"

#define PD_RECORD_MMAP 1
#define PD_RECORD_MMAP2 10
#define PD_RECORD_HEADER_BUILD_ID 67
#define PD_RECORD_AUXTRACE 71
#define PD_RECORD_COMPRESSED 81
#define PD_RECORD_COMPRESSED2 83 /* with the size of its data */
#define PD_MISC_MMAP_BUILD_ID (1U << 14)

/*
 * struct perf_record_mmap2: header, pid, tid, start, len, pgoff, then
 * build_id_size, 3 reserved bytes and build_id[20] in place of the inode,
 * prot, flags, and the name, NUL-padded; the sample ID follows it.
 */
#define PD_MMAP2_ID_SIZE_AT 40
#define PD_MMAP2_ID_AT 44
#define PD_MMAP2_NAME_AT 72
/* struct perf_record_mmap: header, pid, tid, start, len, pgoff, name */
#define PD_MMAP_NAME_AT 40

/* struct perf_record_compressed2: header, data_size, data */
#define PD_COMPRESSED2_SIZE 16
/* struct perf_record_auxtrace: header, then the size of the data after it */
#define PD_AUXTRACE_SIZE 16

/* Bytes of the file read at once; a record is at most 64 KiB. */
#define PD_WINDOW (1U << 20)
/* Decompressed bytes at once, beside a record cut at the end of them */
#define PD_INFLATED (1U << 20)
#define PD_RECORD_MAX 0xffffU

/* What of the data section is read: a window of it at a time. */
struct pd_window {
	unsigned char *buf; /* PD_WINDOW bytes, or the data section's size */
	uint64_t at; /* the file's offset of buf[0] */
	size_t len;
	uint64_t end; /* of the data section */
};

/* The one zstd stream of the compressed records, as perf reads it. */
struct pd_zstd {
	ZSTD_DStream *stream;
	unsigned char *buf; /* PD_INFLATED + PD_RECORD_MAX bytes */
	size_t len; /* bytes in buf: a record not yet whole */
	uint64_t in, out; /* bytes given and taken so far */
};

/* @n bytes at @off, inside the data section, in *@p. */
static int pd_window_get(struct pd_reader *r, struct pd_window *w, uint64_t off,
			 size_t n, const unsigned char **p)
{
	if (off < w->at || off + n > w->at + w->len) {
		int err;

		w->at = off;
		w->len = w->end - off < PD_WINDOW ? (size_t)(w->end - off) :
						    PD_WINDOW;
		err = pd_read_at(r->fd, w->buf, w->len, off, r->why);
		if (err)
			return err;
	}
	*p = w->buf + (off - w->at);
	return 0;
}

/*
 * perf calls the kernel's map "[kernel.kallsyms]_text" (of the symbol it
 * is placed by), a guest's "[guest.kernel.kallsyms.PID]_text"; its build
 * ID table and the rest of symprov call them up to the "]".
 */
static size_t pd_name_len(unsigned int cpumode, const char *name, size_t len)
{
	const char *end;

	if (cpumode != PERFDATA_MISC_KERNEL &&
	    cpumode != PERFDATA_MISC_GUEST_KERNEL)
		return len;
	if (strncmp(name, "[kernel.kallsyms]", 17) != 0 &&
	    strncmp(name, "[guest.kernel.kallsyms", 22) != 0)
		return len;
	end = memchr(name, ']', len);
	return end ? (size_t)(end + 1 - name) : len;
}

/*
 * An MMAP, or an MMAP2 with no build ID, of @size bytes at @e: a kernel
 * module's is kept (pd_module_map()) in a file of perf before 6.12; the
 * others' maps cost nothing.  A name not NUL-terminated in the record is
 * no module's.
 */
static int pd_map_no_id(struct pd_reader *r, const unsigned char *e,
			size_t size, size_t name_at)
{
	unsigned int cpumode = pd_u16(e + 4) & PERFDATA_MISC_CPUMODE_MASK;
	const char *name = (const char *)e + name_at;
	size_t len;

	if (!r->old_perf || cpumode != PERFDATA_MISC_KERNEL || size <= name_at)
		return 0;
	len = strnlen(name, size - name_at);
	if (len == size - name_at)
		return 0;
	return pd_module_map(r, name, len);
}

/* The build ID of an MMAP2 record @e of @size bytes, if it has one. */
static int pd_mmap2(struct pd_reader *r, const unsigned char *e, size_t size,
		    const char *where, uint64_t at)
{
	uint16_t misc = pd_u16(e + 4);
	unsigned int cpumode = misc & PERFDATA_MISC_CPUMODE_MASK;
	const char *name = (const char *)e + PD_MMAP2_NAME_AT;
	unsigned int len;
	size_t name_len;

	if (!(misc & PD_MISC_MMAP_BUILD_ID))
		return pd_map_no_id(r, e, size, PD_MMAP2_NAME_AT);
	if (size <= PD_MMAP2_NAME_AT)
		return pd_fail(r->why, -EINVAL,
			       "%s %llu: an MMAP2 of %zu bytes, too small",
			       where, (unsigned long long)at, size);
	/* read only once the record is known to hold it */
	len = e[PD_MMAP2_ID_SIZE_AT];
	if (!len || len > PERFDATA_BUILD_ID_MAX)
		return pd_fail(
			r->why, -EINVAL,
			"%s %llu: an MMAP2 with a build ID of %u bytes, not 1 to %d",
			where, (unsigned long long)at, len,
			PERFDATA_BUILD_ID_MAX);
	name_len = strnlen(name, size - PD_MMAP2_NAME_AT);
	if (name_len == size - PD_MMAP2_NAME_AT)
		return pd_fail(
			r->why, -EINVAL,
			"%s %llu: an MMAP2 whose name is not NUL-terminated",
			where, (unsigned long long)at);
	return pd_add(r, cpumode, e + PD_MMAP2_ID_AT, len, name,
		      pd_name_len(cpumode, name, name_len));
}

/* One record @e of @size bytes that is neither compressed nor AUX data. */
static int pd_event(struct pd_reader *r, const unsigned char *e, size_t size,
		    const char *where, uint64_t at)
{
	switch (pd_u32(e)) {
	case PD_RECORD_MMAP:
		return pd_map_no_id(r, e, size, PD_MMAP_NAME_AT);
	case PD_RECORD_MMAP2:
		return pd_mmap2(r, e, size, where, at);
	case PD_RECORD_HEADER_BUILD_ID:
		return pd_add_build_id_event(r, (const char *)e, size, false,
					     where, at);
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		return pd_fail(
			r->why, -EINVAL,
			"%s %llu: a compressed record in compressed data",
			where, (unsigned long long)at);
	case PD_RECORD_AUXTRACE:
		return pd_fail(r->why, -EINVAL,
			       "%s %llu: AUX area data in compressed data",
			       where, (unsigned long long)at);
	default:
		return 0;
	}
}

/* The whole records decompressed so far; a record cut stays for more. */
static int pd_inflated_events(struct pd_reader *r, struct pd_zstd *z)
{
	size_t pos = 0;

	while (z->len - pos >= PD_EVENT_HEADER_SIZE) {
		const unsigned char *e = z->buf + pos;
		/* where the record is in the decompressed stream */
		uint64_t at = z->out - (z->len - pos);
		size_t size = pd_u16(e + 6);
		int err;

		if (size < PD_EVENT_HEADER_SIZE)
			return pd_fail(
				r->why, -EINVAL,
				"decompressed event at %llu: size %zu, too small",
				(unsigned long long)at, size);
		if (size > z->len - pos)
			break;
		err = pd_event(r, e, size, "decompressed event at", at);
		if (err)
			return err;
		pos += size;
	}
	memmove(z->buf, z->buf + pos, z->len - pos);
	z->len -= pos;
	return 0;
}

/* Decompress @n bytes of the stream, of the record at @at. */
static int pd_inflate(struct pd_reader *r, struct pd_zstd *z,
		      const unsigned char *data, size_t n, uint64_t at)
{
	ZSTD_inBuffer in = { data, n, 0 };

	if (r->comp_type != PD_COMP_NONE && r->comp_type != PD_COMP_ZSTD)
		return pd_fail(
			r->why, -EOPNOTSUPP,
			"compressed with method %u, not zstd, not read here",
			r->comp_type);
	if (!z->stream) {
		z->stream = ZSTD_createDStream();
		z->buf = malloc(PD_INFLATED + PD_RECORD_MAX);
		if (!z->stream || !z->buf)
			return pd_fail(r->why, -ENOMEM, "out of memory");
	}
	z->in += n;
	for (;;) {
		/* after a record cut, never less than PD_INFLATED of room */
		ZSTD_outBuffer out = { z->buf, z->len + PD_INFLATED, z->len };
		size_t given = in.pos, ret;
		int err;
		bool full;

		ret = ZSTD_decompressStream(z->stream, &out, &in);
		if (ZSTD_isError(ret))
			return pd_fail(r->why, -EINVAL,
				       "compressed record at %llu: %s",
				       (unsigned long long)at,
				       ZSTD_getErrorName(ret));
		z->out += out.pos - z->len;
		if (z->out >
		    PERFDATA_ZSTD_SLACK + z->in * PERFDATA_ZSTD_RATIO_MAX)
			return pd_fail(
				r->why, -EINVAL,
				"compressed record at %llu: the records decompress to more than %d times their size",
				(unsigned long long)at,
				PERFDATA_ZSTD_RATIO_MAX);
		full = out.pos == out.size;
		if (in.pos == given && out.pos == z->len && !full)
			break; /* no progress: the stream needs more input */
		z->len = out.pos;
		err = pd_inflated_events(r, z);
		if (err)
			return err;
		if (in.pos == in.size && !full)
			return 0;
	}
	if (in.pos < in.size)
		return pd_fail(
			r->why, -EINVAL,
			"compressed record at %llu: data past the stream's end",
			(unsigned long long)at);
	return 0;
}

/* The data of a compressed record @e of @size bytes at @at. */
static int pd_compressed(struct pd_reader *r, struct pd_zstd *z,
			 const unsigned char *e, size_t size, uint64_t at)
{
	uint64_t n;

	if (pd_u32(e) == PD_RECORD_COMPRESSED)
		return pd_inflate(r, z, e + PD_EVENT_HEADER_SIZE,
				  size - PD_EVENT_HEADER_SIZE, at);
	if (size < PD_COMPRESSED2_SIZE)
		return pd_fail(
			r->why, -EINVAL,
			"event at %llu: a compressed record of %zu bytes, too small",
			(unsigned long long)at, size);
	n = pd_u64(e + PD_EVENT_HEADER_SIZE);
	if (n > size - PD_COMPRESSED2_SIZE)
		return pd_fail(
			r->why, -EINVAL,
			"event at %llu: %llu bytes of compressed data in a record of %zu",
			(unsigned long long)at, (unsigned long long)n, size);
	return pd_inflate(r, z, e + PD_COMPRESSED2_SIZE, (size_t)n, at);
}

/* The bytes of AUX area data after the AUXTRACE record @e at @at. */
static int pd_aux_data(struct pd_reader *r, const struct pd_window *w,
		       const unsigned char *e, size_t size, uint64_t at,
		       uint64_t *skip)
{
	if (size < PD_AUXTRACE_SIZE)
		return pd_fail(
			r->why, -EINVAL,
			"event at %llu: an AUXTRACE record of %zu bytes, too small",
			(unsigned long long)at, size);
	*skip = pd_u64(e + PD_EVENT_HEADER_SIZE);
	if (*skip > w->end - at - size)
		return pd_fail(
			r->why, -EINVAL,
			"event at %llu: %llu bytes of AUX area data, past the end of the data section",
			(unsigned long long)at, (unsigned long long)*skip);
	return 0;
}

/* One record at @at: its size in *@size, AUX data after it in *@skip. */
static int pd_record(struct pd_reader *r, struct pd_window *w,
		     struct pd_zstd *z, uint64_t at, size_t *size,
		     uint64_t *skip)
{
	const unsigned char *e;
	int err;

	if (w->end - at < PD_EVENT_HEADER_SIZE)
		return pd_fail(r->why, -EINVAL,
			       "event at %llu: cut after %llu bytes",
			       (unsigned long long)at,
			       (unsigned long long)(w->end - at));
	err = pd_window_get(r, w, at, PD_EVENT_HEADER_SIZE, &e);
	if (err)
		return err;
	*size = pd_u16(e + 6);
	if (*size < PD_EVENT_HEADER_SIZE)
		return pd_fail(r->why, -EINVAL,
			       "event at %llu: size %zu, too small",
			       (unsigned long long)at, *size);
	if (*size > w->end - at)
		return pd_fail(
			r->why, -EINVAL,
			"event at %llu: %zu bytes, past the end of the data section",
			(unsigned long long)at, *size);
	err = pd_window_get(r, w, at, *size, &e);
	if (err)
		return err;
	switch (pd_u32(e)) {
	case PD_RECORD_COMPRESSED:
	case PD_RECORD_COMPRESSED2:
		return pd_compressed(r, z, e, *size, at);
	case PD_RECORD_AUXTRACE:
		return pd_aux_data(r, w, e, *size, at, skip);
	default:
		return pd_event(r, e, *size, "event at", at);
	}
}

int pd_read_events(struct pd_reader *r, uint64_t off, uint64_t size)
{
	struct pd_window w = { .end = off + size };
	struct pd_zstd z = { 0 };
	int err = 0;

	/* no larger than the data section: a window holds what it reads */
	w.buf = malloc(size < PD_WINDOW ? (size_t)size + 1 : PD_WINDOW);
	if (!w.buf) {
		err = pd_fail(r->why, -ENOMEM, "out of memory");
		goto out;
	}
	while (off < w.end) {
		uint64_t skip = 0;
		size_t n = 0;

		err = pd_record(r, &w, &z, off, &n, &skip);
		if (err)
			goto out;
		off += n + skip;
	}
	if (z.len)
		err = pd_fail(
			r->why, -EINVAL,
			"compressed events: the last one cut after %zu bytes",
			z.len);
out:
	ZSTD_freeDStream(z.stream);
	free(z.buf);
	free(w.buf);
	return err;
}
