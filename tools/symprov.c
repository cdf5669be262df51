// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symprov: ask symbol providers for a file by build ID, without perf.
 * A host of libsymprov as perf is, with the same host flags.
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

#include "symprov_check.h"
#include "symprov_cli.h"
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

/* What usage says after the synopses, each where a command needs it. */
enum cli_note {
	CLI_NOTE_LIST = 1 << 0,
	CLI_NOTE_SYMBOLS_ONLY = 1 << 1,
};

static const char *const cli_notes[] = {
	"LIST is a ':'-separated list of providers (default: $" SYMPROV_LIST_ENV
	").\n",
	"--symbols-only: a file with the symbol table will do (a kernel: a few MB\n"
	"instead of its whole debuginfo, a module: kB); -v says what was found\n"
	"and its size.\n",
};

static int cmd_find(struct cli *cli, int argc, char **argv);
static int cmd_list(struct cli *cli, int argc, char **argv);
static int cmd_check(struct cli *cli, int argc, char **argv);

/*
 * The sub-commands, in the order usage lists them.  `symprov --help`
 * prints every synopsis of this table: a command added here has its
 * usage, its --help and its test.
 */
static const struct cli_command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *synopsis; /* after "symprov [-v] " */
	unsigned int notes; /* enum cli_note */
	const char *help; /* what it does and how it exits */
} cli_commands[] = {
	{ "find", cmd_find,
	  "find [--kind kernel|module|debuginfo|executable]\n"
	  "                         [--providers LIST] [--no-debuginfod] [--no-cache]\n"
	  "                         [--symbols-only] BUILD_ID\n",
	  CLI_NOTE_LIST | CLI_NOTE_SYMBOLS_ONLY,
	  "find exits 0 (found, path on stdout), 1 (bad input), 2 (not found),\n"
	  "3 (no provider enabled), 4 (unavailable: network or server), 5 (cancelled: Ctrl-C).\n" },
	{ "prefetch", symprov_prefetch_main,
	  "prefetch [-i perf.data] [--into DIR | --perf-cache[=DIR]] [--jobs N]\n"
	  "                         [--providers LIST] [--no-debuginfod] [--no-cache]\n"
	  "                         [--symbols-only | --full]\n",
	  CLI_NOTE_LIST | CLI_NOTE_SYMBOLS_ONLY,
	  "prefetch asks for every file the profile names, in its build ID table or\n"
	  "its events (the kernel's and modules' symbols only unless --full).\n"
	  "--perf-cache puts what this machine lacks into perf's own build-id\n"
	  "cache (buildid.dir in perf's config, else ~/.debug), where the perf you\n"
	  "have reads them: run perf report afterwards (perf 6.1 records the\n"
	  "build IDs of kernel modules with perf record --buildid-all only).\n"
	  "--into copies them into DIR in a debuginfod server's layout, for\n"
	  "libbuildiddirprov.so on a machine without a network.\n"
	  "It exits as find does: 0 when every kernel, module and executable was\n"
	  "found, 2 when one was not.\n" },
	{ "list", cmd_list, "list [--providers LIST]\n", CLI_NOTE_LIST,
	  "list shows each provider of LIST: its name, version, ABI, file and\n"
	  "description, or why it did not load; it exits 0, or 1 (bad input).\n" },
	{ "check", cmd_check, "check [--timeout SECONDS] FILE.so\n", 0,
	  "check loads one provider as perf would and asks it odd questions, each in\n"
	  "a new process (--timeout: 60 s by default); it exits 0 (conforms), 1 (bad\n"
	  "input), 2 (does not conform or does not load).\n" },
};

#define CLI_NR_COMMANDS (sizeof(cli_commands) / sizeof(cli_commands[0]))

/* The usage of @only, or of every command when NULL, on @f. */
static void cli_print_usage(FILE *f, const struct cli_command *only)
{
	const char *lead = "usage:";
	unsigned int notes = 0;
	size_t i;

	for (i = 0; i < CLI_NR_COMMANDS; i++) {
		const struct cli_command *cmd = &cli_commands[i];

		if (only && cmd != only)
			continue;
		fprintf(f, "%s symprov [-v] %s", lead, cmd->synopsis);
		lead = "      ";
		notes |= cmd->notes;
	}
	fputc('\n', f);
	for (i = 0; i < sizeof(cli_notes) / sizeof(cli_notes[0]); i++) {
		if (notes & (1U << i))
			fputs(cli_notes[i], f);
	}
	for (i = 0; i < CLI_NR_COMMANDS; i++) {
		if (!only || &cli_commands[i] == only)
			fputs(cli_commands[i].help, f);
	}
	if (!only)
		fputs("symprov COMMAND --help: the usage of one command.\n", f);
}

static const struct cli_command *cli_command_named(const char *name)
{
	size_t i;

	for (i = 0; i < CLI_NR_COMMANDS; i++) {
		if (!strcmp(cli_commands[i].name, name))
			return &cli_commands[i];
	}
	return NULL;
}

int cli_help(const char *command)
{
	cli_print_usage(stdout, cli_command_named(command));
	return EXIT_FOUND;
}

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
static int cli_progress(void *data, const struct symprov_progress *p)
{
	struct cli *cli = data;

	if (cli_was_interrupted())
		return SYMPROV_PROGRESS_STOP;
	if (!cli->tty || p->phase != SYMPROV_FETCH_UPDATE)
		return SYMPROV_PROGRESS_CONTINUE;
	/*
	 * Until a server sends, there is no size to show: it may be
	 * preparing the file (extracting it from a package) for minutes.
	 */
	if (p->total)
		fprintf(stderr, "\r%s: fetching the %s: %llu/%llu KiB \033[K",
			p->provider, p->what,
			(unsigned long long)p->done >> 10,
			(unsigned long long)p->total >> 10);
	else if (p->done)
		fprintf(stderr, "\r%s: fetching the %s: %llu KiB \033[K",
			p->provider, p->what, (unsigned long long)p->done >> 10);
	else
		fprintf(stderr,
			"\r%s: fetching the %s: the server is preparing it... \033[K",
			p->provider, p->what);
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

struct symprov_session *cli_session_new(const char *list,
					struct symprov_session_opts *opts,
					const char *content, int *exit)
{
	struct symprov_session *s = NULL;
	char *dir = cli_provider_dir();
	int n;

	*exit = EXIT_UNAVAILABLE;
	if (list && getauxval(AT_SECURE)) {
		/* An argument loads code as much as the variable does. */
		fprintf(stderr,
			"symprov: --providers ignored: running with elevated privileges\n");
		list = "";
	}
	opts->size = sizeof(*opts);
	opts->providers = list;
	opts->provider_dirs = dir;
	s = symprov_session_new(opts);
	if (!s || symprov_session_set_config(s, SYMPROV_CONFIG_CONTENT,
					     content)) {
		fprintf(stderr, "symprov: out of memory\n");
		goto fail;
	}
	n = symprov_session_load(s);
	if (n > 0)
		goto out;
	if (n < 0) {
		fprintf(stderr, "symprov: loading the providers: %s\n",
			strerror(-n));
	} else {
		fprintf(stderr,
			"symprov: no symbol provider loaded (set %s or --providers)\n",
			SYMPROV_LIST_ENV);
		*exit = EXIT_DISABLED;
	}
fail:
	symprov_session_free(s);
	s = NULL;
out:
	free(dir);
	return s;
}

bool cli_session_option(int c, struct symprov_session_opts *so,
			const char **list, const char **content)
{
	switch (c) {
	case 'p':
		*list = optarg;
		return true;
	case 'D':
		so->host_flags |= SYMPROV_HOST_NO_DEBUGINFOD;
		return true;
	case 'C':
		so->host_flags |= SYMPROV_HOST_NO_BUILDID_CACHE;
		return true;
	case 'S':
		*content = "symbols";
		return true;
	default:
		return false;
	}
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct symprov_session_opts so = {
		.host_name = "symprov",
		.data = cli,
		.log = cli_log,
		.progress = cli_progress,
	};
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	struct symprov_find_opts req = { .size = sizeof(req) };
	struct symprov_answer ans = { .size = sizeof(ans) };
	const char *list = NULL, *why, *content = "full";
	struct symprov_session *s;
	int c, len, kind = SYMPROV_KIND_KERNEL, ret;

	while ((c = getopt_long(argc, argv, "+hk:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(argv[0]);
		case 'k':
			kind = cli_kind(optarg);
			if (kind < 0)
				return cli_usage_error("unknown kind '%s'",
						       optarg);
			break;
		default:
			if (cli_session_option(c, &so, &list, &content))
				break;
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

	s = cli_session_new(list, &so, content, &ret);
	if (!s)
		return ret;
	req.kind = (uint32_t)kind;
	req.build_id = build_id;
	req.build_id_len = (uint32_t)len;
	cli_catch_sigint();
	symprov_session_find(s, &req, &ans);
	cli_end_progress(cli);
	/* the library checked the file: what is printed can be used */
	if (ans.status == SYMPROV_FOUND) {
		if (cli->verbose)
			cli_say_content(cli, &ans);
		printf("%s\n", ans.path);
	} else {
		fprintf(stderr, "symprov: %s: %s\n", argv[optind],
			symprov_status_str(ans.status));
	}
	ret = cli_exit_of(ans.status);
	symprov_answer_fini(&ans);
	symprov_session_free(s);
	return ret;
}

static int cmd_list(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "providers", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct symprov_session_opts so = {
		.size = sizeof(so),
		.host_name = "symprov",
		.data = cli,
		.log = cli_log,
	};
	struct symprov_session *s;
	const char *list = NULL;
	char *dir;
	size_t i, n;
	int c;

	while ((c = getopt_long(argc, argv, "+hp:", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help(argv[0]);
		if (c != 'p')
			return cli_usage_error(
				"list: unknown or incomplete option '%s'",
				argv[optind - 1]);
		list = optarg;
	}
	if (optind != argc)
		return cli_usage_error("%s", "list takes no argument");

	/* every entry, also when none loads */
	if (list && getauxval(AT_SECURE)) {
		fprintf(stderr,
			"symprov: --providers ignored: running with elevated privileges\n");
		list = "";
	}
	dir = cli_provider_dir();
	so.providers = list;
	so.provider_dirs = dir;
	s = symprov_session_new(&so);
	free(dir);
	if (!s || symprov_session_load(s) < 0) {
		fprintf(stderr, "symprov: out of memory\n");
		symprov_session_free(s);
		return EXIT_UNAVAILABLE;
	}
	n = symprov_session_nr_entries(s);
	if (!n)
		printf("no symbol providers configured (%s is empty)\n",
		       SYMPROV_LIST_ENV);
	for (i = 0; i < n; i++) {
		const struct symprov_entry_info *e = symprov_session_entry(s, i);

		if (e->error)
			printf("%s\tnot loaded: %s\n", e->spec, e->error);
		else
			printf("%s\t%s\tABI %u.%u\t%s\t%s\n", e->name,
			       e->version, e->abi_major, e->abi_minor, e->path,
			       e->description);
	}
	symprov_session_free(s);
	return 0;
}

static int cmd_check(struct cli *cli, int argc, char **argv)
{
	return symprov_check_main(argc, argv, cli->verbose, cli_provider_dir);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { .tty = isatty(STDERR_FILENO) };
	const struct cli_command *cmd;
	int c;

	opterr = 0; /* one error line, ours */
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			cli.verbose++;
			break;
		case 'h':
			return cli_help("");
		default:
			return cli_usage_error("unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		cli_print_usage(stderr, NULL);
		return EXIT_USAGE;
	}
	cmd = cli_command_named(argv[optind]);
	if (!cmd)
		return cli_usage_error("unknown command '%s'", argv[optind]);
	/* Sub-command options are parsed from argv[optind] on. */
	argc -= optind;
	argv += optind;
	optind = 0; /* glibc: start over */
	return cmd->run(&cli, argc, argv);
}
