// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwfl_after_find PROVIDERS BUILD_ID FILE: a host as perf is, whose libdw
 * makes debuginfod lookups of its own.  With PROVIDERS (not "-"), a
 * session of them asks for BUILD_ID's debug info first; then libdwfl
 * looks for FILE's debug info as perf's does (dwfl_standard_find_debuginfo:
 * its local paths, then the servers of DEBUGINFOD_URLS).  Prints the
 * answer's status and "dwarf" or "no dwarf"; exits 0 unless it could not
 * ask.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libsymprov.h"

static int ask(const char *providers, const char *hex)
{
	struct symprov_session_opts opts = { .size = sizeof(opts),
					     .host_name = "dwfl_after_find",
					     .providers = providers };
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	struct symprov_find_opts req = { .size = sizeof(req),
					 .kind = SYMPROV_KIND_DEBUGINFO,
					 .build_id = id };
	struct symprov_answer ans = { .size = sizeof(ans) };
	struct symprov_session *s = symprov_session_new(&opts);
	size_t i;

	for (i = 0; i < sizeof(id) && sscanf(hex + 2 * i, "%2hhx", &id[i]) == 1;
	     i++)
		;
	req.build_id_len = (uint32_t)i;
	if (!s || symprov_session_load(s) <= 0) {
		fprintf(stderr, "dwfl_after_find: no provider loaded\n");
		return -1;
	}
	symprov_session_find(s, &req, &ans);
	printf("%s\n", ans.status == SYMPROV_FOUND ? "found" : "not found");
	symprov_answer_fini(&ans);
	/* the session stays: perf's does until it exits */
	return 0;
}

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.find_elf = dwfl_build_id_find_elf,
};

int main(int argc, char **argv)
{
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	int fd;

	if (argc != 4) {
		fprintf(stderr,
			"usage: dwfl_after_find PROVIDERS BUILD_ID FILE\n");
		return 2;
	}
	if (strcmp(argv[1], "-") && ask(argv[1], argv[2]))
		return 1;
	fd = open(argv[3], O_RDONLY);
	dwfl = dwfl_begin(&callbacks);
	if (fd < 0 || !dwfl)
		return 1;
	mod = dwfl_report_offline(dwfl, argv[3], argv[3], fd);
	if (!mod || dwfl_report_end(dwfl, NULL, NULL))
		return 1;
	printf("%s\n", dwfl_module_getdwarf(mod, &bias) ? "dwarf" : "no dwarf");
	dwfl_end(dwfl);
	return 0;
}
