// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf report needs a kernel's symbol table, a few percent of its
 * debuginfo.  debuginfod servers (0.188 on) serve single sections: fetch
 * the four perf needs, rebuild a vmlinux of them (dip_layout,
 * dip_symfile) and keep it in libdebuginfod's client cache beside its own
 * files, where its cleaning ages it like them (DIP_SYMBOLS_FILE).  A
 * whole file in the cache is the answer instead; whatever keeps the
 * rebuilt file from being certain makes the whole file the answer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_fetch.h"
#include "dip_layout.h"
#include "dip_lock.h"
#include "dip_host.h"
#include "dip_parts.h"
#include "dip_symbols.h"
#include "dip_symfile.h"
#include "symprov_buildid.h"
#include "symprov_verify.h"

struct dip_symbols_query {
	struct dip_client_pool *pool;
	const struct symprov_host *host;
	const struct symprov_request *req;
	const struct symprov_request *host_req;
	const char *what; /* "vmlinux", "module": for the log */
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
};

/*
 * All of @fd (from its start: libdebuginfod wrote it), at most @max bytes,
 * into *@buf, which the caller frees whatever the outcome: 0, or a
 * negative errno.
 */
static int dip_read_all(int fd, long long max, unsigned char **buf, size_t *len)
{
	struct stat st;
	size_t done = 0;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_size > max)
		return -EFBIG;
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf)
		return -ENOMEM;
	while (done < (size_t)st.st_size) {
		ssize_t n = pread(fd, *buf + done, (size_t)st.st_size - done,
				  (off_t)done);

		if (n <= 0)
			return n ? -errno : -EIO;
		done += (size_t)n;
	}
	*len = done;
	return 0;
}

/* libdebuginfod's cache entry for one section, as its fetch names it */
static void dip_section_entry(const char *name, char *what, size_t size)
{
	snprintf(what, size, "section-%s", name);
}

/*
 * One section, in memory; libdebuginfod's copy in the cache goes, it is
 * only a part.  0; -EOPNOTSUPP when the servers do not give it (said in
 * the log: the whole file is the answer); or a negative errno as
 * dip_fetch()'s.
 */
static int dip_section_get(struct dip_symbols_query *q, const char *name,
			   long long max, unsigned char **buf, size_t *len)
{
	char what[64];
	struct dip_target t = { .type = DIP_TYPE_DEBUGINFO,
				.section = name,
				.what = what,
				.max = max };
	char *file = NULL;
	int fd = -1, err;

	dip_section_entry(name, what, sizeof(what));
	err = dip_fetch_target(q->pool, q->host, q->req, q->host_req, &t, &file,
			       &fd);
	if (!err) {
		err = dip_read_all(fd, max, buf, len);
		close(fd);
		unlink(file);
		free(file);
	}
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -EFBIG) {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"%s %s: no %s from the servers (%s): fetching the whole file",
			q->what, q->hex, name,
			err == -EOPNOTSUPP ? "they serve no sections" :
			err == -EFBIG	   ? "too large" :
					     "not found");
		return -EOPNOTSUPP;
	}
	return err;
}

/* dip_section_get() of @part, a dip_part_fn: through @host. */
static int dip_part_get(const struct symprov_host *host, struct dip_part *part,
			void *arg)
{
	struct dip_symbols_query q = *(struct dip_symbols_query *)arg;

	q.host = host;
	return dip_section_get(&q, part->name, part->max, &part->buf,
			       &part->len);
}

/* The symbols-only file kept earlier, if it still passes the check. */
static char *dip_symbols_cached(struct dip_symbols_query *q, const char *file)
{
	const char *why = NULL;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int bad;

	if (fd < 0)
		return NULL;
	bad = symprov_verify_kind(fd, q->req->kind, q->req->build_id,
				  q->req->build_id_len, &why);
	if (!bad && !fstat(fd, &st))
		dip_log(q->host, SYMPROV_LOG_INFO,
			"%s %s: the symbols only, %lld bytes, from the client cache",
			q->what, q->hex, (long long)st.st_size);
	close(fd);
	if (!bad)
		return strdup(file);
	dip_log(q->host, SYMPROV_LOG_WARN,
		"%s rejected: %s; removed from the cache", file, why);
	unlink(file);
	return NULL;
}

/*
 * What the cache holds already: 0 for the symbols-only file @final (in
 * *@path), -EOPNOTSUPP for the whole file (the answer then), -ENOENT for
 * neither.
 */
static int dip_symbols_in_cache(struct dip_symbols_query *q, const char *final,
				char **path)
{
	if (dip_cache_holds(q->hex, "debuginfo") ||
	    dip_cache_holds(q->hex, "executable")) {
		dip_log(q->host, SYMPROV_LOG_DEBUG,
			"%s %s: the whole file is in the cache", q->what,
			q->hex);
		return -EOPNOTSUPP;
	}
	*path = dip_symbols_cached(q, final);
	return *path ? 0 : -ENOENT;
}

/* A file to write @final through, beside it: a descriptor, or -errno. */
static int dip_temp_beside(const char *hex, const char *final, char *tmp,
			   size_t size)
{
	int tries, fd = -1;

	for (tries = 0; fd < 0 && tries < 2; tries++) {
		int n = snprintf(tmp, size, "%s.XXXXXX", final);

		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		fd = mkostemp(tmp, O_CLOEXEC);
		/* another process' failed query may have removed the dir */
		if (fd < 0 && (errno != ENOENT || dip_cache_mkdir(hex)))
			break;
	}
	return fd < 0 ? -errno : fd;
}

/*
 * A failure to keep our own file in the cache is neither a miss of the
 * servers (-ENOENT) nor a call for the whole file (-EOPNOTSUPP).
 */
static int dip_local_err(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP ? -EIO : err;
}

/*
 * Build the file from @t into the cache as @final: 0; -EOPNOTSUPP when
 * the sections do not make it certain (said in the log: the whole file is
 * the answer); another negative errno when it cannot be written there.
 */
static int dip_symbols_write(struct dip_symbols_query *q,
			     const struct dip_tables *t, const char *final)
{
	char tmp[PATH_MAX];
	const char *why = NULL;
	size_t guessed = 0;
	struct stat st;
	int fd, err;

	fd = dip_temp_beside(q->hex, final, tmp, sizeof(tmp));
	if (fd < 0) {
		dip_log(q->host, SYMPROV_LOG_WARN,
			"%s %s: cannot write the symbols-only file in the cache: %s",
			q->what, q->hex, strerror(-fd));
		return dip_local_err(fd);
	}
	err = dip_symfile_build(t, q->req->build_id, q->req->build_id_len, fd,
				&guessed, &why);
	if (err == -EINVAL) {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"%s %s: its sections do not make a certain symbols-only file (%s): fetching the whole file",
			q->what, q->hex, why);
		err = -EOPNOTSUPP;
	} else if (err) {
		dip_log(q->host, SYMPROV_LOG_WARN, "%s %s: cannot write %s: %s",
			q->what, q->hex, tmp, why);
		err = dip_local_err(err);
	} else if (fchmod(fd, 0400) || fstat(fd, &st) || rename(tmp, final)) {
		err = -errno;
		dip_log(q->host, SYMPROV_LOG_WARN, "%s %s: cannot keep %s: %s",
			q->what, q->hex, final, strerror(-err));
		err = dip_local_err(err);
	} else {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"%s %s: symbols only: %lld bytes from %zu bytes of %s, .symtab, .strtab, .shstrtab%s%s; %zu sections end at their last symbol",
			q->what, q->hex, (long long)st.st_size,
			t->note_len + t->symtab_len + t->strtab_len +
				t->shstrtab_len + t->trampolines_len,
			t->note_name, t->trampolines ? ", " : "",
			t->trampolines ? t->trampolines_name : "", guessed);
	}
	close(fd);
	if (err)
		unlink(tmp);
	return err;
}

int dip_symbols_fetch(struct dip_client_pool *pool,
		      const struct symprov_host *host,
		      const struct symprov_request *req,
		      const struct symprov_request *host_req, char **path)
{
	bool module = req->kind == SYMPROV_KIND_KERNEL_MODULE;
	struct dip_symbols_query q = { .pool = pool,
				       .host = host,
				       .req = req,
				       .host_req = host_req,
				       .what = module ? "module" : "vmlinux" };
	/* the note, .symtab, .strtab, the trampolines: side by side */
	struct dip_part parts[4] = { { 0 } };
	unsigned char *shstrtab = NULL;
	struct dip_lock lock = { .fd = -1 };
	struct dip_tables t = { .module = module };
	char final[PATH_MAX];
	const char *why;
	size_t i;
	int err;

	*path = NULL;
	symprov_build_id_hex(req->build_id, req->build_id_len, q.hex);
	err = dip_cache_path(q.hex, DIP_SYMBOLS_FILE, final, sizeof(final));
	if (err)
		return err;
	err = dip_symbols_in_cache(&q, final, path);
	if (err != -ENOENT)
		return err;
	/* another process making it: wait for it, then the cache answers */
	err = dip_lock_take(&lock, host, host_req, q.hex, "symbols");
	if (err)
		goto out;
	err = dip_symbols_in_cache(&q, final, path);
	if (err != -ENOENT)
		goto out;

	err = dip_section_get(&q, ".shstrtab", DIP_LAYOUT_SHSTRTAB_MAX,
			      &shstrtab, &t.shstrtab_len);
	if (err)
		goto out;
	t.shstrtab = shstrtab;
	t.note_name = dip_layout_note_name(shstrtab, t.shstrtab_len, &why);
	if (!t.note_name) {
		dip_log(host, SYMPROV_LOG_INFO,
			"%s %s: no symbols-only file: %s: fetching the whole file",
			q.what, q.hex, why);
		err = -EOPNOTSUPP;
		goto out;
	}
	t.trampolines_name =
		module ? dip_layout_trampolines_name(shstrtab, t.shstrtab_len) :
			 NULL;
	parts[0] = (struct dip_part){ .name = t.note_name,
				      .max = DIP_LAYOUT_NOTE_MAX };
	parts[1] = (struct dip_part){ .name = ".symtab",
				      .max = DIP_LAYOUT_TABLE_MAX };
	parts[2] = (struct dip_part){ .name = ".strtab",
				      .max = DIP_LAYOUT_TABLE_MAX };
	parts[3] = (struct dip_part){ .name = t.trampolines_name,
				      .max = DIP_LAYOUT_TRAMPOLINES_MAX };
	err = dip_parts_get(host, host_req, parts, t.trampolines_name ? 4 : 3,
			    dip_part_get, &q);
	if (err)
		goto out;
	t.note = parts[0].buf;
	t.note_len = parts[0].len;
	t.symtab = parts[1].buf;
	t.symtab_len = parts[1].len;
	t.strtab = parts[2].buf;
	t.strtab_len = parts[2].len;
	t.trampolines = parts[3].buf;
	t.trampolines_len = parts[3].len;
	err = dip_symbols_write(&q, &t, final);
	if (!err) {
		*path = strdup(final);
		if (!*path)
			err = -ENOMEM;
	}
out:
	dip_lock_release(&lock);
	free(shstrtab);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		free(parts[i].buf);
	return err;
}

void dip_symbols_superseded(const struct symprov_request *req)
{
	static const char *const sections[] = {
		".shstrtab",
		".note.gnu.build-id",
		".notes",
		".note",
		".symtab",
		".strtab",
		DIP_LAYOUT_TRAMPOLINES,
	};
	char hex[SYMPROV_BUILD_ID_HEX_MAX], file[PATH_MAX], what[64];
	size_t i;

	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	if (!dip_cache_path(hex, DIP_SYMBOLS_FILE, file, sizeof(file)))
		unlink(file);
	/* libdebuginfod never ages these misses (up to 0.196): the file answers */
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		dip_section_entry(sections[i], what, sizeof(what));
		dip_cache_forget_miss(hex, what);
	}
}
