// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symprov: ask symbol providers for a file by build ID, without perf.
 * Runs the very loader perf runs, with the same host flags.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprov_buildid.h"
#include "symprov_check.h"
#include "symprov_cli.h"
#include "symprov_loader.h"
#include "symprov_prefetch.h"

/*
 * Ctrl-C cancels a fetch cleanly; a second one kills as usual.  Atomic:
 * threads asking at once read it while the handler runs in another.
 */
static sig_atomic_t cli_interrupted;

static void cli_on_sigint(int sig)
{
	int saved = errno;

	(void)sig;
	__atomic_store_n(&cli_interrupted, 1, __ATOMIC_RELAXED);
	errno = saved;
}

bool cli_was_interrupted(void)
{
	return __atomic_load_n(&cli_interrupted, __ATOMIC_RELAXED);
}

void cli_catch_sigint(void)
{
	sigaction(SIGINT,
		  &(struct sigaction){ .sa_handler = cli_on_sigint,
				       .sa_flags = SA_RESETHAND },
		  NULL);
}

static const char usage_text[] =
	"usage: symprov [-v] find [--kind kernel|module|debuginfo|executable]\n"
	"                         [--providers LIST] [--no-debuginfod] [--no-cache]\n"
	"                         [--symbols-only] BUILD_ID\n"
	"       symprov [-v] prefetch [-i perf.data] [--into DIR] [--jobs N]\n"
	"                         [--providers LIST] [--no-debuginfod] [--no-cache]\n"
	"                         [--symbols-only | --full]\n"
	"       symprov [-v] list [--providers LIST]\n"
	"       symprov [-v] check [--timeout SECONDS] FILE.so\n"
	"\n"
	"LIST is a '"
	":"
	"'-separated list of providers (default: $" SYMPROV_LIST_ENV ").\n"
	"--symbols-only: a file with the symbol table will do (a kernel: a few MB\n"
	"instead of its whole debuginfo); -v says what was found and its size.\n"
	"find exits 0 (found, path on stdout), 1 (bad input), 2 (not found),\n"
	"3 (no provider enabled), 4 (unavailable: network or server), 5 (cancelled: Ctrl-C).\n"
	"prefetch asks for every file the profile's build ID table names (kernel\n"
	"symbols only unless --full), copies them into DIR in a debuginfod server's\n"
	"layout, and exits as find does: 0 when every kernel, module and executable\n"
	"was found, 2 when one was not.\n";

void cli_end_progress(struct cli *cli)
{
	if (cli->progress_shown) {
		fputc('\n', stderr);
		cli->progress_shown = false;
	}
}

void cli_log(void *data, int level, const char *provider, const char *msg)
{
	struct cli *cli = data;

	if (level > SYMPROV_LOG_WARN + cli->verbose)
		return;
	/* threads asking at once log at once */
	flockfile(stderr);
	cli_end_progress(cli);
	fprintf(stderr, "symprov: %s%s%s\n", provider ?: "",
		provider ? ": " : "", msg);
	funlockfile(stderr);
}

/* A progress line on stderr, only when a person can see it. */
static int cli_progress(void *data, const char *provider,
			const struct symprov_request *req, uint64_t done,
			uint64_t total)
{
	struct cli *cli = data;
	char hex[SYMPROV_BUILD_ID_HEX_MAX];

	if (cli_was_interrupted())
		return SYMPROV_PROGRESS_STOP;
	if (!cli->tty)
		return SYMPROV_PROGRESS_CONTINUE;
	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	/* Until a server answers there is no size to show. */
	if (total)
		fprintf(stderr, "\r%s: fetching %s: %llu/%llu KiB ", provider,
			hex, (unsigned long long)done >> 10,
			(unsigned long long)total >> 10);
	else
		fprintf(stderr, "\r%s: fetching %s... ", provider, hex);
	cli->progress_shown = true;
	return SYMPROV_PROGRESS_CONTINUE;
}

/* Bare provider names are looked for beside us: build/bin -> build/lib. */
char *cli_provider_dir(void)
{
	char exe[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dir = dirname(exe);
	if (asprintf(&dir, "%s/../lib", dir) < 0)
		return NULL;
	return dir;
}

struct symprov_loader *cli_loader_new(const char *list,
				      const struct symprov_loader_host *host)
{
	struct symprov_loader *loader;
	char *dir;

	if (!list) {
		list = symprov_list_from_env(SYMPROV_LIST_ENV, host);
	} else if (getauxval(AT_SECURE)) {
		/* An argument loads code as much as the variable does. */
		host->log(
			host->data, SYMPROV_LOG_WARN, NULL,
			"--providers ignored: running with elevated privileges");
		list = NULL;
	}
	dir = cli_provider_dir();
	loader = symprov_loader_new(list, dir, host);
	free(dir);
	if (!loader)
		fprintf(stderr, "symprov: out of memory\n");
	return loader;
}

static struct symprov_loader *cli_loader(struct cli *cli, const char *list,
					 uint32_t flags)
{
	struct symprov_loader_host host = {
		.name = "symprov",
		.flags = flags,
		.data = cli,
		.log = cli_log,
		.progress = cli_progress,
	};

	return cli_loader_new(list, &host);
}

bool cli_have_providers(struct symprov_loader *loader)
{
	if (symprov_loader_nr_providers(loader))
		return true;
	fprintf(stderr,
		"symprov: no symbol provider loaded (set %s or --providers)\n",
		SYMPROV_LIST_ENV);
	return false;
}

int cli_usage_error(const char *fmt, const char *arg)
{
	fputs("symprov: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see symprov --help)\n", stderr);
	return EXIT_USAGE;
}

static int cli_kind(const char *name)
{
	if (!strcmp(name, "kernel"))
		return SYMPROV_KIND_KERNEL;
	if (!strcmp(name, "module"))
		return SYMPROV_KIND_KERNEL_MODULE;
	if (!strcmp(name, "debuginfo"))
		return SYMPROV_KIND_DEBUGINFO;
	if (!strcmp(name, "executable"))
		return SYMPROV_KIND_EXECUTABLE;
	return -1;
}

int cli_exit_of(int status)
{
	switch (status) {
	case SYMPROV_FOUND:
		return EXIT_FOUND;
	case SYMPROV_NOT_FOUND:
		return EXIT_NOT_FOUND;
	case SYMPROV_DISABLED:
		return EXIT_DISABLED;
	case SYMPROV_CANCELLED:
		return EXIT_CANCELLED;
	default:
		return EXIT_UNAVAILABLE;
	}
}

/* -v: whole file or symbols only, and how big. */
static void cli_say_content(struct cli *cli, const struct symprov_answer *ans)
{
	char msg[128];
	struct stat st;

	if (stat(ans->path, &st))
		return;
	snprintf(msg, sizeof(msg), "%s, %lld bytes",
		 ans->content == SYMPROV_CONTENT_SYMBOLS ? "the symbols only" :
							   "the whole file",
		 (long long)st.st_size);
	cli_log(cli, SYMPROV_LOG_INFO, ans->source, msg);
}

static int cmd_find(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "providers", required_argument, NULL, 'p' },
		{ "no-debuginfod", no_argument, NULL, 'D' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "symbols-only", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	struct symprov_request req = { .size = sizeof(req) };
	const char *list = NULL, *why;
	struct symprov_loader *loader;
	uint32_t flags = 0;
	int c, len, kind = SYMPROV_KIND_KERNEL, status;
	struct symprov_answer ans;
	char *path;

	while ((c = getopt_long(argc, argv, "+k:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kind = cli_kind(optarg);
			if (kind < 0)
				return cli_usage_error("unknown kind '%s'",
						       optarg);
			break;
		case 'p':
			list = optarg;
			break;
		case 'D':
			flags |= SYMPROV_HOST_NO_DEBUGINFOD;
			break;
		case 'C':
			flags |= SYMPROV_HOST_NO_BUILDID_CACHE;
			break;
		case 'S':
			req.content = SYMPROV_CONTENT_SYMBOLS;
			break;
		default:
			return cli_usage_error(
				"find: unknown or incomplete option '%s'",
				argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("%s", "find takes one BUILD_ID");
	len = symprov_build_id_parse(argv[optind], build_id, &why);
	if (len < 0) {
		fprintf(stderr, "symprov: build ID '%s': %s\n", argv[optind],
			why);
		return EXIT_USAGE;
	}

	loader = cli_loader(cli, list, flags);
	if (!loader)
		return EXIT_UNAVAILABLE;
	if (!cli_have_providers(loader)) {
		symprov_loader_delete(loader);
		return EXIT_DISABLED;
	}
	req.kind = (uint32_t)kind;
	req.build_id = build_id;
	req.build_id_len = (uint32_t)len;
	cli_catch_sigint();
	status = symprov_loader_find(loader, &req, &ans);
	path = ans.path;
	cli_end_progress(cli);
	/* the loader checked the file: what is printed can be used */
	if (status == SYMPROV_FOUND) {
		if (cli->verbose)
			cli_say_content(cli, &ans);
		printf("%s\n", path);
		free(path);
	} else {
		fprintf(stderr, "symprov: %s: %s\n", argv[optind],
			symprov_status_str(status));
	}
	symprov_loader_delete(loader);
	return cli_exit_of(status);
}

static int cmd_list(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "providers", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct symprov_loader *loader;
	const char *list = NULL;
	size_t i, n;
	int c;

	while ((c = getopt_long(argc, argv, "+p:", opts, NULL)) != -1) {
		if (c != 'p')
			return cli_usage_error(
				"list: unknown or incomplete option '%s'",
				argv[optind - 1]);
		list = optarg;
	}
	if (optind != argc)
		return cli_usage_error("%s", "list takes no argument");

	loader = cli_loader(cli, list, 0);
	if (!loader)
		return EXIT_UNAVAILABLE;
	n = symprov_loader_nr_entries(loader);
	if (!n)
		printf("no symbol providers configured (%s is empty)\n",
		       SYMPROV_LIST_ENV);
	for (i = 0; i < n; i++) {
		const struct symprov_entry_info *e =
			symprov_loader_entry(loader, i);

		if (e->error)
			printf("%s\tnot loaded: %s\n", e->spec, e->error);
		else
			printf("%s\t%s\tABI %u.%u\t%s\t%s\n", e->name,
			       e->version, e->abi_major, e->abi_minor, e->path,
			       e->description);
	}
	symprov_loader_delete(loader);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { .tty = isatty(STDERR_FILENO) };
	const char *cmd;
	int c;

	opterr = 0; /* one error line, ours */
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			cli.verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_usage_error("unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	/* Sub-command options are parsed from argv[optind] on. */
	argc -= optind;
	argv += optind;
	optind = 0; /* glibc: start over */
	if (!strcmp(cmd, "find"))
		return cmd_find(&cli, argc, argv);
	if (!strcmp(cmd, "list"))
		return cmd_list(&cli, argc, argv);
	if (!strcmp(cmd, "prefetch"))
		return symprov_prefetch_main(&cli, argc, argv);
	if (!strcmp(cmd, "check"))
		return symprov_check_main(argc, argv, cli.verbose,
					  cli_provider_dir);
	return cli_usage_error("unknown command '%s'", cmd);
}
