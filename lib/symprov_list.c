// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Provider list splitting.  Non-UTF-8 bytes are left alone: a file name
 * is bytes, and dlopen() tells whether it exists.
 */
#include "symprov_list.h"

static int symprov_entry_verdict(const char *entry, size_t len)
{
	size_t i;

	if (len == 0)
		return SYMPROV_ENTRY_EMPTY;
	if (len > SYMPROV_ENTRY_MAX)
		return SYMPROV_ENTRY_TOO_LONG;
	for (i = 0; i < len; i++) {
		unsigned char c = entry[i];

		if (c < 0x20 || c == 0x7f)
			return SYMPROV_ENTRY_CONTROL;
	}
	return SYMPROV_ENTRY_OK;
}

size_t symprov_list_split(const char *list, char sep,
			  void (*cb)(const char *entry, size_t len, int verdict,
				     void *arg),
			  void *arg)
{
	const char *start = list;
	size_t n = 0;

	if (!list || !*list)
		return 0;

	for (;;) {
		const char *end = start;

		while (*end && *end != sep)
			end++;
		cb(start, end - start,
		   symprov_entry_verdict(start, end - start), arg);
		n++;
		if (!*end)
			break;
		start = end + 1;
	}
	return n;
}

const char *symprov_list_verdict_str(int verdict)
{
	switch (verdict) {
	case SYMPROV_ENTRY_OK:
		return "ok";
	case SYMPROV_ENTRY_EMPTY:
		return "empty entry";
	case SYMPROV_ENTRY_TOO_LONG:
		return "entry too long";
	case SYMPROV_ENTRY_CONTROL:
		return "control character in entry";
	default:
		return "invalid entry";
	}
}
