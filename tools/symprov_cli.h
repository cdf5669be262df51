/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the symprov sub-commands share: tools/symprov.c has it. */
#ifndef SYMPROV_CLI_H
#define SYMPROV_CLI_H

#include <stdbool.h>

#include "libsymprov.h"

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

/*
 * The options find and prefetch share, getopt's @c: --providers (-p),
 * --no-debuginfod (D), --no-cache (C), --symbols-only (S).  True when @c
 * is one of them.
 */
bool cli_session_option(int c, struct symprov_session_opts *so,
			const char **list, const char **content);

/*
 * --help of the sub-command @command, of every one when @command is none
 * (""): the usage on stdout, and the exit code, 0.
 */
int cli_help(const char *command);

/* "symprov: " @fmt with @arg, a hint, and EXIT_USAGE. */
int cli_usage_error(const char *fmt, const char *arg);

/* The exit code of a lookup's status, as "symprov find" exits. */
int cli_exit_of(int status);

/* Bare provider names are looked for here (malloc()ed, or NULL). */
char *cli_provider_dir(void);

/*
 * A session of @list (--providers), or of $PERF_SYMBOL_PROVIDERS when
 * NULL, with @opts (host_name, flags and callbacks) and a kernel's
 * @content ("symbols" or "full"), its providers loaded; NULL, said on
 * stderr, when none loaded (*@exit EXIT_DISABLED) or out of memory.
 */
struct symprov_session *cli_session_new(const char *list,
					struct symprov_session_opts *opts,
					const char *content, int *exit);

#endif /* SYMPROV_CLI_H */
