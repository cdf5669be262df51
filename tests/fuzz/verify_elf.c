// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * verify_elf BUILD_ID FILE...: the check symprov runs on every file a
 * provider returns, on each FILE; "-" as BUILD_ID checks the structure
 * only.  One line per file, "ok FILE" or "rejected FILE: WHY"; exits 0
 * when it could check them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symprov_buildid.h"
#include "symprov_verify.h"

int main(int argc, char **argv)
{
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	const char *why = NULL;
	int i, len = 0, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: verify_elf BUILD_ID|- FILE...\n");
		return 2;
	}
	if (strcmp(argv[1], "-") != 0) {
		len = symprov_build_id_parse(argv[1], id, &why);
		if (len < 0) {
			fprintf(stderr, "verify_elf: build ID '%s': %s\n",
				argv[1], why);
			return 2;
		}
	}
	for (i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC), bad;

		if (fd < 0) {
			fprintf(stderr, "verify_elf: %s: %s\n", argv[i],
				strerror(errno));
			ret = 1;
			continue;
		}
		bad = len ? symprov_verify_build_id(fd, id, (size_t)len, &why) :
			    symprov_verify_elf(fd, &why);
		close(fd);
		if (bad)
			printf("rejected %s: %s\n", argv[i], why);
		else
			printf("ok %s\n", argv[i]);
	}
	return ret;
}
