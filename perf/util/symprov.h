/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_SYMPROV_H
#define __PERF_SYMPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/compiler.h>

struct build_id;

#ifdef HAVE_SYMPROV_SUPPORT
/*
 * Symbol providers, shared objects that find a vmlinux by its build ID, see
 * util/symprov.c.  symprov__enabled() loads them on first use and says
 * whether there are any left to ask.
 */
bool symprov__enabled(void);
/*
 * The vmlinux with build ID @bid as a malloc()ed path, or NULL: the symbols
 * only, or the whole file when the tool needs it (symbol_conf.symprov_full).
 */
char *symprov__find_vmlinux(const struct build_id *bid, bool guest);
/*
 * When @path is a file with the symbols only that a provider gave, ask for
 * the whole vmlinux with build ID @bid now and put its path in @path.
 * Returns 0 when @path is a whole file, -ENOENT when no provider had it.
 */
int symprov__full_vmlinux(const struct build_id *bid, const char *dso_name,
			  char *path, size_t size);
/*
 * perf report's and perf top's sort keys, fields and callchains need the
 * kernel's DWARF or code (source lines, data types), not just its symbols.
 */
bool symprov__sort_needs_full(void);
/* Another thread reads the terminal's keys (perf top): don't read them */
void symprov__no_keys(void);
void symprov__exit(void);
#else
static inline bool symprov__enabled(void)
{
	return false;
}

static inline char *
symprov__find_vmlinux(const struct build_id *bid __maybe_unused,
		      bool guest __maybe_unused)
{
	return NULL;
}

static inline int
symprov__full_vmlinux(const struct build_id *bid __maybe_unused,
		      const char *dso_name __maybe_unused,
		      char *path __maybe_unused, size_t size __maybe_unused)
{
	return 0;
}

static inline bool symprov__sort_needs_full(void)
{
	return false;
}

static inline void symprov__no_keys(void)
{
}

static inline void symprov__exit(void)
{
}
#endif

#endif /* __PERF_SYMPROV_H */
