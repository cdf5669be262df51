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

/* The session, loaded and asked; it stays until libdw has looked, as perf's */
static struct symprov_session *ask(const char *providers, const char *hex)
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
		symprov_session_free(s);
		return NULL;
	}
	symprov_session_find(s, &req, &ans);
	printf("%s\n", ans.status == SYMPROV_FOUND ? "found" : "not found");
	symprov_answer_fini(&ans);
	return s;
}

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.find_elf = dwfl_build_id_find_elf,
};

int main(int argc, char **argv)
{
	struct symprov_session *s = NULL;
	Dwfl *dwfl = NULL;
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	int fd, ret = 1;

	if (argc != 4) {
		fprintf(stderr,
			"usage: dwfl_after_find PROVIDERS BUILD_ID FILE\n");
		return 2;
	}
	if (strcmp(argv[1], "-") && !(s = ask(argv[1], argv[2])))
		return 1;
	fd = open(argv[3], O_RDONLY);
	if (fd >= 0)
		dwfl = dwfl_begin(&callbacks);
	mod = dwfl ? dwfl_report_offline(dwfl, argv[3], argv[3], fd) : NULL;
	if (mod && !dwfl_report_end(dwfl, NULL, NULL)) {
		printf("%s\n",
		       dwfl_module_getdwarf(mod, &bias) ? "dwarf" : "no dwarf");
		ret = 0;
	} else if (fd >= 0 && !mod) {
		close(fd);
	}
	dwfl_end(dwfl);
	symprov_session_free(s);
	return ret;
}
