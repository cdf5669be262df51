/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_SYMPROV_H
#define __PERF_SYMPROV_H

#include <stdbool.h>
#include <linux/compiler.h>

struct build_id;

#ifdef HAVE_SYMPROV_SUPPORT
/*
 * Symbol providers, shared objects that find a vmlinux by its build ID, see
 * util/symprov.c.  symprov__enabled() loads them on first use and says
 * whether there are any left to ask.
 */
bool symprov__enabled(void);
/* The vmlinux with build ID @bid as a malloc()ed path, or NULL. */
char *symprov__find_vmlinux(const struct build_id *bid, bool guest);
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

static inline void symprov__exit(void)
{
}
#endif

#endif /* __PERF_SYMPROV_H */
