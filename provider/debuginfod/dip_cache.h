/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Repairs to libdebuginfod's client cache. */
#ifndef DIP_CACHE_H
#define DIP_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * ROOT/@hex/@name in @buf (ROOT/@hex when @name is NULL), ROOT being the
 * cache libdebuginfod uses.  0, or -ENAMETOOLONG.
 */
int dip_cache_path(const char *hex, const char *name, char *buf, size_t size);

/*
 * Make ROOT/@hex as libdebuginfod makes it (ROOT with ACCESSPERMS,
 * ROOT/@hex 0700), if missing.  0, or -errno.
 */
int dip_cache_mkdir(const char *hex);

/*
 * The bytes of the files in ROOT/@hex: they change while a download of
 * that build ID goes on.  A negative errno when the directory cannot be
 * read (-ENOENT: there is none).
 */
long long dip_cache_bytes(const char *hex);

/* ROOT/@hex/@name is a file with something in it. */
bool dip_cache_holds(const char *hex, const char *name);

/*
 * Remove the negative-cache entry ("this build ID is a miss") that
 * libdebuginfod wrote for @type ("debuginfo", "executable") of the build
 * ID @hex, if there is one.  True when one was removed; a failure to is
 * no harm to the caller (the miss ages out), so it is not told apart.
 */
bool dip_cache_forget_miss(const char *hex, const char *type);

/*
 * Put the last @size bytes of @fd, the cache's @file, in @file's place:
 * a temporary file beside it, written, synced and renamed over it, as
 * libdebuginfod writes its files.  The new file's descriptor, open for
 * reading, or a negative errno (@file is then as it was).
 */
int dip_cache_keep_tail(int fd, const char *file, long long size);

/* What the cache holds for one file, as dip_cache_entry() sees it. */
enum dip_entry {
	DIP_ENTRY_NONE, /* nothing, a miss, or what it cannot tell */
	/* an empty miss marker beside a download in progress (its temp file) */
	DIP_ENTRY_LANDING,
	DIP_ENTRY_FILE, /* the file, something in it */
};

/* What the cache holds for @type of @hex. */
enum dip_entry dip_cache_entry(const char *hex, const char *type);

#endif /* DIP_CACHE_H */
