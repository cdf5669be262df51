// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: the provider list splitter, on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symprov_list.h"

struct walk {
	const char *list;
	size_t size;
	size_t next; /* where the next entry must start */
};

static void check_entry(const char *entry, size_t len, int verdict, void *arg)
{
	struct walk *w = arg;

	/* entries are in order, inside the list, and cut at separators */
	if (entry != w->list + w->next || w->next + len > w->size ||
	    memchr(entry, ':', len) || memchr(entry, '\0', len))
		abort();
	if ((len == 0) != (verdict == SYMPROV_ENTRY_EMPTY))
		abort();
	if (verdict == SYMPROV_ENTRY_OK && len > SYMPROV_ENTRY_MAX)
		abort();
	w->next += len + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = malloc(size + 1);
	struct walk w = { list, 0, 0 };
	size_t n;

	if (!list)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	w.size = strlen(list);
	n = symprov_list_split(list, ':', check_entry, &w);
	if (w.size && w.next != w.size + 1)
		abort();
	if (!w.size && n)
		abort();
	free(list);
	return 0;
}
