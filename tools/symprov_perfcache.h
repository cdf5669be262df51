/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf's own build-id cache (~/.debug, or buildid.dir in perf's config),
 * filled as "perf buildid-cache -a" fills it, so that any perf, patched or
 * not, reads the files: DIR/NAME/BUILD_ID/elf (a kernel's vmlinux, a
 * module, an executable) and DIR/NAME/BUILD_ID/debug (its debug file),
 * with the link DIR/.build-id/xx/REST to DIR/NAME/BUILD_ID.
 */
#ifndef SYMPROV_PERFCACHE_H
#define SYMPROV_PERFCACHE_H

#include <stdbool.h>
#include <stdint.h>

struct perfcache {
	char *dir;
};

/*
 * The cache at @dir, or where perf looks when @dir is NULL: buildid.dir
 * of perf's config files ($PERF_CONFIG alone, else /etc/perfconfig and
 * ~/.perfconfig), else $HOME/.debug.  Made if missing.  A directory that
 * is not the invoking user's or that cannot be written is refused.
 * Returns 0, or a negative errno after one line on stderr naming the
 * directory and why.
 */
int perfcache_open(struct perfcache *pc, const char *dir);

void perfcache_close(struct perfcache *pc);

/*
 * perf reads the file of @kind (enum symprov_kind) of the object @name
 * with the build ID already: it is where the profile names it on this
 * machine, or in the cache.  For a debuginfo the object's executable
 * there is enough: perf put it there and looked for the debug file
 * itself, or symprov did and asked for the debug file at the same time.
 */
bool perfcache_perf_reads(const struct perfcache *pc, uint32_t kind,
			  const char *name, const unsigned char *build_id,
			  unsigned int len);

/*
 * Put the file @src, checked to be of @kind with the build ID, into the
 * cache for the object the profile names @name.  The file is written
 * whole, synced and checked before it gets its name, and a file already
 * there is never replaced.  Returns 0 with *@dest (malloc()ed) the file
 * perf reads, or a negative errno with *@step what failed.
 */
int perfcache_add(const struct perfcache *pc, uint32_t kind, const char *name,
		  const unsigned char *build_id, unsigned int len,
		  const char *src, char **dest, const char **step);

#endif /* SYMPROV_PERFCACHE_H */
