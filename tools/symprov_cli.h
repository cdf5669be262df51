/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the symprov sub-commands share: tools/symprov.c has it. */
#ifndef SYMPROV_CLI_H
#define SYMPROV_CLI_H

#include <stdbool.h>

#include "symprov_loader.h"

enum symprov_exit {
	EXIT_FOUND = 0,
	EXIT_USAGE = 1,
	EXIT_NOT_FOUND = 2,
	EXIT_DISABLED = 3,
	EXIT_UNAVAILABLE = 4,
	EXIT_CANCELLED = 5,
};

struct cli {
	int verbose;
	bool progress_shown; /* a progress line is on stderr: its lock held */
	bool tty;
};

/* Ctrl-C, once cli_catch_sigint() is called: stop asking.  Thread-safe. */
void cli_catch_sigint(void);
bool cli_was_interrupted(void);

/*
 * The loader's log line on stderr, with the progress line ended first;
 * @data is the struct cli.  Thread-safe: under the lock of stderr.
 */
void cli_log(void *data, int level, const char *provider, const char *msg);
/* Ends a progress line on stderr; under the lock of stderr with threads. */
void cli_end_progress(struct cli *cli);

/* "symprov: " @fmt with @arg, a hint, and EXIT_USAGE. */
int cli_usage_error(const char *fmt, const char *arg);

/* The exit code of a lookup's status, as "symprov find" exits. */
int cli_exit_of(int status);

/* Bare provider names are looked for here (malloc()ed, or NULL). */
char *cli_provider_dir(void);

/*
 * A loader of @list (--providers), or of $PERF_SYMBOL_PROVIDERS when
 * NULL, for @host; NULL, said on stderr, when out of memory.
 */
struct symprov_loader *cli_loader_new(const char *list,
				      const struct symprov_loader_host *host);

/* Whether any provider loaded; if not, says so on stderr. */
bool cli_have_providers(struct symprov_loader *loader);

#endif /* SYMPROV_CLI_H */
