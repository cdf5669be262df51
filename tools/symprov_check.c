// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symprov check FILE.so: load one provider with the loader perf uses,
 * show what it is, then ask it questions whose right answers are known
 * (a build ID that cannot exist, a kind nobody serves, the requests of an
 * older and of a newer host) and say plainly what it got wrong.
 *
 * Each question is asked in a child process with a fresh loader, so that
 * a provider that crashes, hangs, exits or writes to stdout is reported
 * as such, not fatal to the check.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libsymprov.h"
#include "symprov_check.h"
#include "symprov_cli.h"

#define CHK_EXIT_OK 0
#define CHK_EXIT_USAGE 1
#define CHK_EXIT_FAILED 2

/* Bytes of a probe's report kept; the rest is cut. */
#define CHK_REPORT_MAX 16384

/* "symprov-check-000000" in ASCII: no real file has this build ID. */
static const unsigned char chk_no_such_id[20] = "symprov-check-000000";

enum chk_shape {
	CHK_PLAIN, /* a request as this host builds it */
	CHK_OLDER, /* an ABI 1.0 host's: shorter, at the end of a page */
	CHK_NEWER, /* a newer host's, with a field set this one lacks */
};

enum chk_verdict { CHK_OK, CHK_WARN, CHK_FAIL };

struct chk_probe {
	const char *what;
	uint32_t kind;
	enum chk_shape shape;
	uint32_t content; /* enum symprov_content */
};

static const struct chk_probe chk_probes[] = {
	{ "kernel, a build ID that cannot exist", SYMPROV_KIND_KERNEL,
	  CHK_PLAIN, SYMPROV_CONTENT_FULL },
	{ "kernel module, a build ID that cannot exist",
	  SYMPROV_KIND_KERNEL_MODULE, CHK_PLAIN, SYMPROV_CONTENT_FULL },
	{ "debuginfo, a build ID that cannot exist", SYMPROV_KIND_DEBUGINFO,
	  CHK_PLAIN, SYMPROV_CONTENT_FULL },
	{ "executable, a build ID that cannot exist", SYMPROV_KIND_EXECUTABLE,
	  CHK_PLAIN, SYMPROV_CONTENT_FULL },
	{ "kernel symbols only, a build ID that cannot exist",
	  SYMPROV_KIND_KERNEL, CHK_PLAIN, SYMPROV_CONTENT_SYMBOLS },
	{ "malformed: kind 0, which no ABI defines", 0, CHK_PLAIN,
	  SYMPROV_CONTENT_FULL },
	{ "malformed: kind 99, unknown to this ABI", 99, CHK_PLAIN,
	  SYMPROV_CONTENT_FULL },
	{ "a shorter request, as an ABI 1.0 host sends", SYMPROV_KIND_KERNEL,
	  CHK_OLDER, SYMPROV_CONTENT_FULL },
	{ "malformed: a request with a field this ABI does not know",
	  SYMPROV_KIND_KERNEL, CHK_NEWER, SYMPROV_CONTENT_FULL },
};

/* What one probe gave, parsed from its child's report. */
struct chk_result {
	int status; /* -1: no answer */
	int error; /* the answer's detail */
	char path[4096];
	char loader_warning[512]; /* the loader's first complaint */
	long stdout_bytes;
	char report[CHK_REPORT_MAX];
};

struct chk {
	const char *spec;
	char *dir; /* the host's provider directory, or NULL */
	int verbose;
	int timeout;
	int passed, warned, failed;
};

static void chk_say(struct chk *c, enum chk_verdict v, const char *what,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void chk_say(struct chk *c, enum chk_verdict v, const char *what,
		    const char *fmt, ...)
{
	static const char *const tag[] = { "ok  ", "warn", "FAIL" };
	va_list ap;

	if (v == CHK_OK)
		c->passed++;
	else if (v == CHK_WARN)
		c->warned++;
	else
		c->failed++;
	printf("  %s  %s: ", tag[v], what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Where the child reports, and how much of the log (as chk_load_log()). */
struct chk_child_out {
	FILE *file;
	int verbose;
};

/*
 * The child's log: one line each, "L<level>\t<provider or ->\t<msg>".
 * Warnings are judged; the rest is for -v only, and would crowd out the
 * answer, which comes last.
 */
static void chk_child_log(void *data, int level, const char *provider,
			  const char *msg)
{
	const struct chk_child_out *child = data;
	FILE *out = child->file;
	const char *p;

	if (level > SYMPROV_LOG_WARN + child->verbose)
		return;
	fprintf(out, "L%d\t%s\t", level, provider ?: "-");
	for (p = msg; *p; p++)
		fputc(*p == '\n' ? ' ' : *p, out);
	fputc('\n', out);
}

/* A request of @shape for @kind; in @page (two pages, the second none). */
static struct symprov_request *chk_request(const struct chk_probe *p,
					   void *page, size_t page_size)
{
	struct symprov_request *req = page;
	size_t size = sizeof(*req);

	if (p->shape == CHK_OLDER) {
		/* ABI 1.0 ends before content: anything past it faults */
		size = offsetof(struct symprov_request, content);
		req = (void *)((char *)page + page_size - size);
	}
	memset(req, 0, p->shape == CHK_NEWER ? sizeof(*req) + 8 : size);
	req->size = (uint32_t)(p->shape == CHK_NEWER ? sizeof(*req) + 8 : size);
	req->kind = p->kind;
	req->build_id = chk_no_such_id;
	req->build_id_len = sizeof(chk_no_such_id);
	if (p->shape != CHK_OLDER)
		req->content = p->content;
	if (p->shape == CHK_NEWER)
		((unsigned char *)req)[sizeof(*req)] = 1;
	else if (p->shape == CHK_PLAIN &&
		 (p->kind == SYMPROV_KIND_KERNEL ||
		  p->kind == SYMPROV_KIND_KERNEL_MODULE))
		req->dso_name = "[kernel.kallsyms]";
	return req;
}

/* In the child: load, ask once, report on @out, never return. */
static void chk_child(const struct chk *c, const struct chk_probe *p, FILE *out)
{
	struct chk_child_out child = { .file = out, .verbose = c->verbose };
	struct symprov_session_opts so = {
		.size = sizeof(so),
		.host_name = "symprov",
		.providers = c->spec,
		.provider_dirs = c->dir,
		.data = &child,
		.log = chk_child_log,
	};
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct symprov_answer ans = { .size = sizeof(ans), .status = -1 };
	struct symprov_session *s;
	FILE *captured = tmpfile();
	struct stat st;

	if (page == MAP_FAILED ||
	    mprotect((char *)page + page_size, page_size, PROT_NONE))
		_exit(127);
	/* What a provider writes to stdout would be in perf's output. */
	if (!captured || dup2(fileno(captured), STDOUT_FILENO) < 0)
		_exit(127);
	s = symprov_session_new(&so);
	if (s && symprov_session_load(s) == 1)
		symprov_session_request(s, chk_request(p, page, page_size),
					&ans);
	fflush(out);
	/* the provider's errno detail, positive as it gave it */
	fprintf(out, "S\t%d\t%d\t%s\n", ans.status, -ans.err,
		ans.path ?: "");
	symprov_answer_fini(&ans);
	symprov_session_free(s);
	fflush(stdout);
	fprintf(out, "O\t%lld\n",
		fstat(STDOUT_FILENO, &st) ? -1LL : (long long)st.st_size);
	fflush(out);
	_exit(0);
}

static long chk_ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Parse the child's report into @r. */
static void chk_parse(struct chk_result *r)
{
	char *line, *save = NULL;

	for (line = strtok_r(r->report, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == 'S' && line[1] == '\t') {
			char *end;

			r->status = (int)strtol(line + 2, &end, 10);
			if (*end == '\t')
				r->error = (int)strtol(end + 1, &end, 10);
			if (*end == '\t')
				snprintf(r->path, sizeof(r->path), "%s",
					 end + 1);
		} else if (line[0] == 'O' && line[1] == '\t') {
			r->stdout_bytes = strtol(line + 2, NULL, 10);
		} else if (line[0] == 'L' &&
			   line[1] - '0' <= SYMPROV_LOG_WARN &&
			   !strncmp(line + 2, "\t-\t", 3) &&
			   !r->loader_warning[0]) {
			snprintf(r->loader_warning, sizeof(r->loader_warning),
				 "%s", line + 5);
		}
	}
}

/*
 * Ask probe @p in a child; -1 with @why when the child did not answer
 * (crashed, hung, exited), else 0 and @r filled.
 */
static int chk_run(struct chk *c, const struct chk_probe *p,
		   struct chk_result *r, char *why, size_t why_size)
{
	struct timespec deadline;
	char drop[4096];
	size_t len = 0;
	int fds[2], ws = 0, ret = -1;
	bool timed_out = false;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->stdout_bytes = -1;
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(why, why_size, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, why_size, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		FILE *out;

		close(fds[0]);
		out = fdopen(fds[1], "w");
		if (!out)
			_exit(127);
		chk_child(c, p, out);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += c->timeout;
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long left = chk_ms_left(&deadline);
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		/*
		 * Past the report's room, read on and drop: a child whose pipe
		 * is full or closed would hang or die of SIGPIPE, not answer.
		 */
		if (len < sizeof(r->report) - 1)
			n = read(fds[0], r->report + len,
				 sizeof(r->report) - 1 - len);
		else
			n = read(fds[0], drop, sizeof(drop));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < sizeof(r->report) - 1)
			len += (size_t)n;
	}
	close(fds[0]);
	waitpid(pid, &ws, 0);
	r->report[len] = '\0';
	if (c->verbose)
		fputs(r->report, stdout);
	chk_parse(r);
	if (timed_out)
		snprintf(why, why_size, "no answer in %d s (--timeout)",
			 c->timeout);
	else if (WIFSIGNALED(ws))
		snprintf(
			why, why_size, "crashed: %s%s", strsignal(WTERMSIG(ws)),
			p->shape == CHK_OLDER ?
				" (it reads past the end of a shorter request: check sizes with SYMPROV_HAS() or copy with symprov_copy_struct())" :
				"");
	else if (!WIFEXITED(ws) || WEXITSTATUS(ws))
		snprintf(
			why, why_size,
			"the process exited (status %d) inside the provider: a provider must not call exit()",
			WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
	else if (r->stdout_bytes < 0)
		snprintf(
			why, why_size,
			"the process ended inside the provider: a provider must not call exit()");
	else
		ret = 0;
	return ret;
}

/* The verdict on the status a probe got, and why. */
static enum chk_verdict chk_judge(const struct chk_probe *p, int status,
				  const char **advice)
{
	*advice = "";
	switch (status) {
	case SYMPROV_FOUND:
		*advice =
			p->shape == CHK_NEWER ?
				": it must refuse a request with a field it does not know" :
				": a file for a build ID that cannot exist";
		return CHK_FAIL;
	case SYMPROV_CANCELLED:
		*advice = ": the host never asked to stop";
		return CHK_FAIL;
	case SYMPROV_UNAVAILABLE:
		if (p->shape == CHK_NEWER)
			return CHK_OK;
		*advice =
			": a transient failure; is its configuration right (network, server, directories)?";
		return CHK_WARN;
	case SYMPROV_NOT_FOUND:
		if (p->shape == CHK_NEWER) {
			*advice =
				": it should refuse a request with a field it does not know (copy requests with symprov_copy_struct())";
			return CHK_WARN;
		}
		if (p->kind != SYMPROV_KIND_KERNEL &&
		    p->kind != SYMPROV_KIND_KERNEL_MODULE &&
		    p->kind != SYMPROV_KIND_DEBUGINFO &&
		    p->kind != SYMPROV_KIND_EXECUTABLE) {
			*advice =
				": a kind it does not serve should be 'disabled'";
			return CHK_WARN;
		}
		return CHK_OK;
	case SYMPROV_DISABLED:
		return CHK_OK;
	default:
		*advice = ": no answer";
		return CHK_FAIL;
	}
}

static void chk_probe(struct chk *c, const struct chk_probe *p)
{
	struct chk_result *r = malloc(sizeof(*r));
	enum chk_verdict v;
	const char *advice;
	char why[512];

	if (!r) {
		chk_say(c, CHK_FAIL, p->what, "out of memory");
		return;
	}
	if (chk_run(c, p, r, why, sizeof(why))) {
		chk_say(c, CHK_FAIL, p->what, "%s", why);
	} else if (r->status == -1) {
		chk_say(c, CHK_FAIL, p->what,
			"did not load in a new process%s%s",
			r->loader_warning[0] ? ": " : "", r->loader_warning);
	} else if (r->loader_warning[0]) {
		/*
		 * the loader turned a wrong answer into "unavailable"; a file
		 * it refused (EBADMSG) was found, for a build ID that cannot
		 * exist
		 */
		if (r->status == SYMPROV_UNAVAILABLE && r->error == EBADMSG)
			chk_judge(p, SYMPROV_FOUND, &advice);
		else
			advice = "";
		chk_say(c, CHK_FAIL, p->what, "%s%s", r->loader_warning,
			advice);
	} else if (r->stdout_bytes > 0) {
		chk_say(c, CHK_FAIL, p->what,
			"wrote %ld bytes to stdout, which is perf's output: log through host->log",
			r->stdout_bytes);
	} else {
		v = chk_judge(p, r->status, &advice);
		chk_say(c, v, p->what, "%s%s%s%s",
			symprov_status_str(r->status), r->path[0] ? " " : "",
			r->path, advice);
	}
	free(r);
}

/* Collect the loader's lines while the provider loads here. */
struct chk_load_log {
	char first_warning[512];
	int verbose;
};

static void chk_load_log(void *data, int level, const char *provider,
			 const char *msg)
{
	struct chk_load_log *log = data;

	/* the loader's own complaint comes as the verdict below */
	if (level <= SYMPROV_LOG_WARN + log->verbose &&
	    (provider || log->verbose))
		printf("  log   %s%s%s\n", provider ?: "", provider ? ": " : "",
		       msg);
	if (level <= SYMPROV_LOG_WARN && !log->first_warning[0])
		snprintf(log->first_warning, sizeof(log->first_warning), "%s",
			 msg);
}

/* Load it as perf would and show what it says it is; -1 if it won't. */
static int chk_describe(struct chk *c)
{
	struct chk_load_log log = { .verbose = c->verbose };
	struct symprov_session_opts so = {
		.size = sizeof(so),
		.host_name = "symprov",
		.providers = c->spec,
		.provider_dirs = c->dir,
		.data = &log,
		.log = chk_load_log,
	};
	struct symprov_session *s = symprov_session_new(&so);
	const struct symprov_entry_info *e;
	int ret = -1;

	if (!s || symprov_session_load(s) < 0) {
		chk_say(c, CHK_FAIL, "load", "out of memory");
		goto out;
	}
	e = symprov_session_entry(s, 0);
	if (!e || e->error) {
		chk_say(c, CHK_FAIL, "load", "%s",
			e ? e->error : "nothing to load");
		goto out;
	}
	printf("  provider     %s %s, ABI %u.%u (this host: ABI %d.%d)\n",
	       e->name, e->version, e->abi_major, e->abi_minor,
	       SYMPROV_ABI_MAJOR, SYMPROV_ABI_MINOR);
	printf("  description  %s\n  file         %s\n", e->description,
	       e->path);
	chk_say(c, CHK_OK, "load",
		"entry point, struct, ABI and init() accepted");
	if (!*e->version || !*e->description || !strcmp(e->name, e->spec))
		chk_say(c, CHK_WARN, "metadata",
			"set .name, .version and .description: symprov list and perf -v show them");
	ret = 0;
out:
	/* fini() now: the questions are asked in fresh processes */
	symprov_session_free(s);
	return ret;
}

int symprov_check_main(int argc, char **argv, int verbose,
		       char *(*provider_dir)(void))
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct chk c = { .verbose = verbose, .timeout = 60 };
	int opt;

	while ((opt = getopt_long(argc, argv, "+ht:", opts, NULL)) != -1) {
		char *end;

		if (opt == 'h')
			return cli_help(argv[0]);
		if (opt != 't') {
			fprintf(stderr,
				"symprov: check: unknown or incomplete option '%s' (see symprov --help)\n",
				argv[optind - 1]);
			return CHK_EXIT_USAGE;
		}
		c.timeout = (int)strtol(optarg, &end, 10);
		if (*end || c.timeout <= 0 || c.timeout > 86400) {
			fprintf(stderr,
				"symprov: check: --timeout '%s': not a number of seconds (1 to 86400)\n",
				optarg);
			return CHK_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr,
			"symprov: check takes one provider (see symprov --help)\n");
		return CHK_EXIT_USAGE;
	}
	c.spec = argv[optind];
	if (!*c.spec || strchr(c.spec, SYMPROV_LIST_SEP)) {
		fprintf(stderr,
			"symprov: check: '%s': one provider, a path or a bare name without '%c'\n",
			c.spec, SYMPROV_LIST_SEP);
		return CHK_EXIT_USAGE;
	}

	c.dir = provider_dir();
	printf("%s\n", c.spec);
	if (!chk_describe(&c)) {
		for (size_t i = 0;
		     i < sizeof(chk_probes) / sizeof(chk_probes[0]); i++)
			chk_probe(&c, &chk_probes[i]);
	}
	if (c.failed)
		printf("%s: does NOT conform: %d of %d checks failed, %d warning%s\n",
		       c.spec, c.failed, c.passed + c.warned + c.failed,
		       c.warned, c.warned == 1 ? "" : "s");
	else
		printf("%s: conforms: %d checks, %d warning%s\n", c.spec,
		       c.passed + c.warned, c.warned, c.warned == 1 ? "" : "s");
	free(c.dir);
	return c.failed ? CHK_EXIT_FAILED : CHK_EXIT_OK;
}
