// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>

#include "symprov_buildid.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int symprov_build_id_parse(const char *hex, unsigned char *out,
			   const char **why)
{
	size_t len = strnlen(hex, (size_t)2 * SYMPROV_BUILD_ID_MAX + 1);
	size_t i;

	if (len < 2) {
		*why = "too short: a build ID has 2 to 64 hex digits";
		return -EINVAL;
	}
	if (len > (size_t)2 * SYMPROV_BUILD_ID_MAX) {
		*why = "too long: a build ID has 2 to 64 hex digits";
		return -EINVAL;
	}
	if (len % 2) {
		*why = "odd number of hex digits";
		return -EINVAL;
	}
	for (i = 0; i < len; i += 2) {
		int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);

		if (hi < 0 || lo < 0) {
			*why = "not a hex digit";
			return -EINVAL;
		}
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return (int)(len / 2);
}

char *symprov_build_id_hex(const unsigned char *id, size_t len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (len > SYMPROV_BUILD_ID_MAX)
		len = SYMPROV_BUILD_ID_MAX;
	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 0xf];
	}
	buf[2 * len] = '\0';
	return buf;
}
