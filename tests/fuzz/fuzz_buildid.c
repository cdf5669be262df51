// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer target: build ID text, parsed and printed back. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symprov_buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	char *text = malloc(size + 1);
	const char *why = NULL;
	int n;
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = symprov_build_id_parse(text, id, &why);
	if (n < 0) {
		if (!why)
			abort();
	} else {
		/* accepted: 1..32 bytes that print back as the input */
		if (n < 1 || n > SYMPROV_BUILD_ID_MAX ||
		    strlen(text) != (size_t)n * 2)
			abort();
		symprov_build_id_hex(id, (size_t)n, hex);
		for (i = 0; i < strlen(text); i++)
			if (hex[i] != tolower((unsigned char)text[i]))
				abort();
	}
	free(text);
	return 0;
}
