// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf report needs a kernel's symbol table, a few percent of its
 * debuginfo.  debuginfod servers (0.188 on) serve single sections: fetch
 * the four perf needs, rebuild a vmlinux of them (dip_layout,
 * dip_symfile) and keep it in libdebuginfod's client cache beside its own
 * files, where its cleaning ages it like them (DIP_SYMBOLS_FILE).  A whole file in the cache
 * is the answer instead; whatever keeps the rebuilt file from being
 * certain makes the whole file the answer.
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
#include "dip_log.h"
#include "dip_symbols.h"
#include "dip_symfile.h"
#include "symprov_buildid.h"
#include "symprov_verify.h"

struct dip_symbols_query {
	struct dip_client_pool *pool;
	const struct symprov_host *host;
	const struct symprov_request *req;
	const struct symprov_request *host_req;
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
};

/* All of @fd (from its start: libdebuginfod wrote it), at most @max bytes. */
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

/*
 * One section, in memory; libdebuginfod's copy in the cache goes, it is
 * only a part.  Returns an enum symprov_status or DIP_SYMBOLS_WHOLE.
 */
static int dip_section_get(struct dip_symbols_query *q, const char *name,
			   long long max, unsigned char **buf, size_t *len,
			   int *err)
{
	char what[64];
	struct dip_target t = { .type = DIP_TYPE_DEBUGINFO,
				.section = name,
				.what = what,
				.max = max };
	char *file = NULL;
	int fd = -1, status;

	snprintf(what, sizeof(what), "section-%s", name);
	status = dip_fetch_target(q->pool, q->host, q->req, q->host_req, &t,
				  &file, &fd, err);
	if (status == SYMPROV_FOUND) {
		int ret = dip_read_all(fd, max, buf, len);

		close(fd);
		unlink(file);
		free(file);
		if (ret == -EFBIG) {
			*err = EFBIG;
			status = SYMPROV_UNAVAILABLE;
		} else if (ret) {
			*err = -ret;
			return SYMPROV_UNAVAILABLE;
		}
	}
	if (status == SYMPROV_NOT_FOUND ||
	    (status == SYMPROV_UNAVAILABLE && *err == EFBIG)) {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"vmlinux %s: no %s from the servers (%s): fetching the whole file",
			q->hex, name,
			*err == EOPNOTSUPP ? "they serve no sections" :
			*err == EFBIG	   ? "too large" :
					     "not found");
		*err = 0;
		return DIP_SYMBOLS_WHOLE;
	}
	return status;
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
	bad = symprov_verify_build_id(fd, q->req->build_id,
				      q->req->build_id_len, &why);
	if (!bad && !fstat(fd, &st))
		dip_log(q->host, SYMPROV_LOG_INFO,
			"vmlinux %s: the symbols only, %lld bytes, from the client cache",
			q->hex, (long long)st.st_size);
	close(fd);
	if (!bad)
		return strdup(file);
	dip_log(q->host, SYMPROV_LOG_WARN,
		"%s rejected: %s; removed from the cache", file, why);
	unlink(file);
	return NULL;
}

/*
 * What the cache holds already, in *@status: the whole file
 * (DIP_SYMBOLS_WHOLE), or the symbols-only file @final (SYMPROV_FOUND,
 * in *@path).  False when neither.
 */
static bool dip_symbols_in_cache(struct dip_symbols_query *q, const char *final,
				 char **path, int *status)
{
	if (dip_cache_holds(q->hex, "debuginfo") ||
	    dip_cache_holds(q->hex, "executable")) {
		dip_log(q->host, SYMPROV_LOG_DEBUG,
			"vmlinux %s: the whole file is in the cache", q->hex);
		*status = DIP_SYMBOLS_WHOLE;
		return true;
	}
	*path = dip_symbols_cached(q, final);
	*status = SYMPROV_FOUND;
	return *path != NULL;
}

/* A file to write @final through, beside it. */
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

/* Build the file from @t into the cache as @final. */
static int dip_symbols_write(struct dip_symbols_query *q,
			     const struct dip_tables *t, const char *final,
			     int *err)
{
	char tmp[PATH_MAX];
	const char *why = NULL;
	size_t guessed = 0;
	struct stat st;
	int fd, ret, status = SYMPROV_UNAVAILABLE;

	fd = dip_temp_beside(q->hex, final, tmp, sizeof(tmp));
	if (fd < 0) {
		*err = -fd;
		dip_log(q->host, SYMPROV_LOG_WARN,
			"vmlinux %s: cannot write the symbols-only file in the cache: %s",
			q->hex, strerror(*err));
		return SYMPROV_UNAVAILABLE;
	}
	ret = dip_symfile_build(t, q->req->build_id, q->req->build_id_len, fd,
				&guessed, &why);
	if (ret == -EINVAL) {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"vmlinux %s: its sections do not make a certain symbols-only file (%s): fetching the whole file",
			q->hex, why);
		status = DIP_SYMBOLS_WHOLE;
	} else if (ret) {
		*err = -ret;
		dip_log(q->host, SYMPROV_LOG_WARN,
			"vmlinux %s: cannot write %s: %s", q->hex, tmp, why);
	} else if (fchmod(fd, 0400) || fstat(fd, &st) || rename(tmp, final)) {
		*err = errno;
		dip_log(q->host, SYMPROV_LOG_WARN,
			"vmlinux %s: cannot keep %s: %s", q->hex, final,
			strerror(*err));
	} else {
		dip_log(q->host, SYMPROV_LOG_INFO,
			"vmlinux %s: symbols only: %lld bytes from %zu bytes of %s, .symtab, .strtab, .shstrtab; %zu sections end at their last symbol",
			q->hex, (long long)st.st_size,
			t->note_len + t->symtab_len + t->strtab_len +
				t->shstrtab_len,
			t->note_name, guessed);
		status = SYMPROV_FOUND;
	}
	close(fd);
	if (status != SYMPROV_FOUND)
		unlink(tmp);
	return status;
}

int dip_symbols_fetch(struct dip_client_pool *pool,
		      const struct symprov_host *host,
		      const struct symprov_request *req,
		      const struct symprov_request *host_req, char **path,
		      int *err)
{
	struct dip_symbols_query q = {
		.pool = pool, .host = host, .req = req, .host_req = host_req
	};
	unsigned char *shstrtab = NULL, *note = NULL, *symtab = NULL,
		      *strtab = NULL;
	struct dip_lock lock = { .fd = -1 };
	struct dip_tables t = { 0 };
	char final[PATH_MAX];
	const char *why;
	int status;

	*path = NULL;
	*err = 0;
	symprov_build_id_hex(req->build_id, req->build_id_len, q.hex);
	if (dip_cache_path(q.hex, DIP_SYMBOLS_FILE, final, sizeof(final))) {
		*err = ENAMETOOLONG;
		return SYMPROV_UNAVAILABLE;
	}
	if (dip_symbols_in_cache(&q, final, path, &status))
		return status;
	/* another process making it: wait for it, then the cache answers */
	if (dip_lock_take(&lock, host, host_req, q.hex, "symbols")) {
		status = SYMPROV_CANCELLED;
		goto out;
	}
	if (dip_symbols_in_cache(&q, final, path, &status))
		goto out;

	status = dip_section_get(&q, ".shstrtab", DIP_LAYOUT_SHSTRTAB_MAX,
				 &shstrtab, &t.shstrtab_len, err);
	if (status != SYMPROV_FOUND)
		goto out;
	t.shstrtab = shstrtab;
	t.note_name = dip_layout_note_name(shstrtab, t.shstrtab_len, &why);
	if (!t.note_name) {
		dip_log(host, SYMPROV_LOG_INFO,
			"vmlinux %s: no symbols-only file: %s: fetching the whole file",
			q.hex, why);
		status = DIP_SYMBOLS_WHOLE;
		goto out;
	}
	status = dip_section_get(&q, t.note_name, DIP_LAYOUT_NOTE_MAX, &note,
				 &t.note_len, err);
	if (status == SYMPROV_FOUND)
		status = dip_section_get(&q, ".symtab", DIP_LAYOUT_TABLE_MAX,
					 &symtab, &t.symtab_len, err);
	if (status == SYMPROV_FOUND)
		status = dip_section_get(&q, ".strtab", DIP_LAYOUT_TABLE_MAX,
					 &strtab, &t.strtab_len, err);
	if (status != SYMPROV_FOUND)
		goto out;
	t.note = note;
	t.symtab = symtab;
	t.strtab = strtab;
	status = dip_symbols_write(&q, &t, final, err);
	if (status == SYMPROV_FOUND) {
		*path = strdup(final);
		if (!*path) {
			*err = ENOMEM;
			status = SYMPROV_UNAVAILABLE;
		}
	}
out:
	dip_lock_release(&lock);
	free(shstrtab);
	free(note);
	free(symtab);
	free(strtab);
	return status;
}

void dip_symbols_superseded(const struct symprov_request *req)
{
	static const char *const misses[] = {
		"section-.shstrtab", "section-.note.gnu.build-id",
		"section-.notes",    "section-.note",
		"section-.symtab",   "section-.strtab",
	};
	char hex[SYMPROV_BUILD_ID_HEX_MAX], file[PATH_MAX];
	size_t i;

	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	if (!dip_cache_path(hex, DIP_SYMBOLS_FILE, file, sizeof(file)))
		unlink(file);
	/* libdebuginfod 0.188 never ages these misses: the file answers */
	for (i = 0; i < sizeof(misses) / sizeof(misses[0]); i++)
		dip_cache_forget_miss(hex, misses[i]);
}
