/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Split a provider list ("a:b:/path/c.so") into its entries.  Kept apart
 * from the loader so that it can be fuzzed without dlopen().
 */
#ifndef SYMPROV_LIST_H
#define SYMPROV_LIST_H

#include <stddef.h>

/* Longest entry accepted, as a path. */
#define SYMPROV_ENTRY_MAX 4095

enum symprov_list_verdict {
	SYMPROV_ENTRY_OK = 0,
	SYMPROV_ENTRY_EMPTY, /* "a::b", leading or trailing separator */
	SYMPROV_ENTRY_TOO_LONG, /* longer than SYMPROV_ENTRY_MAX */
	SYMPROV_ENTRY_CONTROL, /* holds a control character */
};

/*
 * Call @cb for each entry of @list separated by @sep, in order: @entry
 * points into @list and is not NUL-terminated, @len is its length,
 * @verdict whether it may be used as a file name.  Returns the number of
 * entries seen.
 */
size_t symprov_list_split(const char *list, char sep,
			  void (*cb)(const char *entry, size_t len, int verdict,
				     void *arg),
			  void *arg);

const char *symprov_list_verdict_str(int verdict);

#endif /* SYMPROV_LIST_H */
