/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The libdebuginfod releases this provider builds with, and which of them
 * need which workaround.  The gates follow the headers' version,
 * _ELFUTILS_VERSION (188: 0.188, Debian 12's): build against the release
 * that runs.  What no release fixes yet, as of 0.196, is not gated: the
 * verbose log read to tell a 5xx from a 404 and to see a section query
 * download the whole file (dip_miss.c), the cache's layout and temporary
 * files (dip_cache.c), DEBUGINFOD_MAXSIZE without a Content-Length and the
 * retry of a transfer that had begun, written after the failed bytes or
 * dropped (dip_fetch.c: no release resets its target handle or the file).
 */
#ifndef DIP_COMPAT_H
#define DIP_COMPAT_H

#include <elfutils/debuginfod.h>
#include <elfutils/version.h>

/* debuginfod_find_section() and debuginfod_get_headers() */
#if !_ELFUTILS_PREREQ(0, 188)
#error "the debuginfod provider needs libdebuginfod 0.188 or later"
#endif

/*
 * debuginfod_config_cache() fclose()s an fdopen()ed descriptor, then
 * close()s it again, at the start of every query: a file another thread
 * opened in between loses its descriptor.  elfutils bug 29696, fixed in
 * 0.190 (commit 938a52c2).  Each query then runs in a thread with a file
 * table of its own (dip_apart.c).
 */
#define DIP_DOUBLE_CLOSE (!_ELFUTILS_PREREQ(0, 190))

/*
 * A query the progress callback cancelled writes a miss to the cache,
 * which then answers "not found" for cache_miss_s.  Fixed in 0.190
 * (commit 55272164), broken again in 0.192 (the cancel was no longer
 * noted, commit d47d93b1), fixed in 0.194 (commit 2e277985).
 */
#define DIP_CANCEL_CACHES_MISS        \
	(!_ELFUTILS_PREREQ(0, 190) || \
	 (_ELFUTILS_PREREQ(0, 192) && !_ELFUTILS_PREREQ(0, 194)))

#endif /* DIP_COMPAT_H */
