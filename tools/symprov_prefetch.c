// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symprov prefetch: on a machine with a network, ask the providers for
 * every file the build ID table of a perf.data file names, from several
 * threads, and copy what they find into a tree laid out as a debuginfod
 * server's (DIR/buildid/HEX/debuginfo, .../executable), which the
 * buildiddir provider reads on a machine without one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libsymprov.h"
#include "symprov_cli.h"
#include "symprov_copy.h"
#include "symprov_perfcache.h"
#include "symprov_perfdata.h"
#include "symprov_prefetch.h"

#define PF_JOBS_DEFAULT 4
#define PF_JOBS_MAX 64
/* the progress line is drawn at most this often, in ns */
#define PF_DRAW_EVERY 100000000LL

/* One request, or one entry skipped; in the order of the table. */
struct pf_job {
	uint32_t kind; /* enum symprov_kind; 0: skipped */
	bool needed; /* a miss makes the exit code */
	const struct perfdata_build_id *id;
	/* the answer, under pf.lock: */
	bool done;
	int status; /* enum symprov_status, of a request */
	char *path; /* found: the file, or its copy in --into */
	char *why; /* not found or skipped: why, malloc()ed or NULL */
	const char *skip; /* skipped: why, static */
	uint64_t bytes; /* found: its size */
};

struct pf {
	struct cli *cli;
	struct symprov_session *session;
	const char *into;
	struct perfcache *cache; /* --perf-cache: perf's build-id cache */
	struct pf_job *jobs;
	size_t nr;
	size_t *job_of; /* of each object asked for, its job */
	pthread_mutex_t lock; /* the jobs' answers and what follows */
	size_t printed; /* jobs printed: every one before is done */
	size_t nr_done;
	uint64_t bytes_found; /* of the jobs done */
	uint64_t bytes_shown; /* found and under way, as last reported */
	long long drawn_at; /* ns, CLOCK_MONOTONIC */
};

static const char *pf_kind_name(uint32_t kind)
{
	switch (kind) {
	case SYMPROV_KIND_KERNEL:
		return "kernel";
	case SYMPROV_KIND_KERNEL_MODULE:
		return "module";
	case SYMPROV_KIND_DEBUGINFO:
		return "debuginfo";
	case SYMPROV_KIND_EXECUTABLE:
		return "executable";
	default:
		return "skipped";
	}
}

static bool pf_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !memcmp(s + n - m, tail, m);
}

/* Names that are no file: nothing to ask for. */
static const char *pf_not_a_file(const char *name)
{
	static const char *const vdsos[] = { "[vdso]", "[vdso32]", "[vdsox32]",
					     "[vsyscall]" };
	size_t i;

	if (!*name)
		return "no name";
	for (i = 0; i < sizeof(vdsos) / sizeof(vdsos[0]); i++) {
		if (!strcmp(name, vdsos[i]))
			return "the kernel's vDSO, in perf's own cache";
	}
	if (!strcmp(name, "//anon"))
		return "anonymous memory";
	if (!strncmp(name, "/tmp/perf-", 10) && pf_ends_with(name, ".map"))
		return "a perf map of JIT code";
	if (!strcmp(name, "[unknown]"))
		return "no file";
	return NULL;
}

static bool pf_is_kernel(const char *name)
{
	/* guests other than the default one: [guest.kernel.kallsyms.PID] */
	return !strcmp(name, "[kernel.kallsyms]") ||
	       (!strncmp(name, "[guest.kernel.kallsyms", 22) &&
		pf_ends_with(name, "]"));
}

static bool pf_is_module(const char *name)
{
	static const char *const tails[] = { ".ko", ".ko.xz", ".ko.gz",
					     ".ko.zst" };
	size_t i;

	/* perf names a module it found no file of "[name]" */
	if (name[0] == '[')
		return pf_ends_with(name, "]");
	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		if (pf_ends_with(name, tails[i]))
			return true;
	}
	return false;
}

/*
 * The kinds to ask for @id in @kinds, with whether each is needed; 0 and
 * *@skip the reason when there is nothing to ask.
 */
static int pf_kinds_of(const struct perfdata_build_id *id, uint32_t kinds[2],
		       const char **skip)
{
	*skip = pf_not_a_file(id->name);
	if (*skip)
		return 0;
	switch (id->cpumode) {
	case PERFDATA_MISC_KERNEL:
	case PERFDATA_MISC_GUEST_KERNEL:
		if (pf_is_kernel(id->name)) {
			kinds[0] = SYMPROV_KIND_KERNEL;
			return 1;
		}
		if (pf_is_module(id->name)) {
			kinds[0] = SYMPROV_KIND_KERNEL_MODULE;
			return 1;
		}
		*skip = "neither the kernel nor a module";
		return 0;
	case PERFDATA_MISC_USER:
	case PERFDATA_MISC_GUEST_USER:
		if (id->name[0] == '[') {
			*skip = "no file";
			return 0;
		}
		/* the debuginfo is often not to be had: the executable is */
		kinds[0] = SYMPROV_KIND_EXECUTABLE;
		kinds[1] = SYMPROV_KIND_DEBUGINFO;
		return 2;
	default:
		*skip = "neither a kernel nor a user cpumode";
		return 0;
	}
}

/* Order of jobs by what is asked, then by place: for the duplicates. */
static int pf_job_cmp(const void *a, const void *b)
{
	const struct pf_job *x = *(struct pf_job *const *)a;
	const struct pf_job *y = *(struct pf_job *const *)b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id->len != y->id->len)
		return x->id->len < y->id->len ? -1 : 1;
	c = memcmp(x->id->build_id, y->id->build_id, x->id->len);
	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

/*
 * Drop the jobs that ask what an earlier one asks (the same file mapped
 * by several machines, or under two names); sorting, not comparing each
 * pair: a hostile table may hold a million entries.
 */
static int pf_drop_duplicates(struct pf *pf)
{
	/* pointers to the jobs */
	struct pf_job **order = calloc(pf->nr + 1, sizeof(void *));
	const struct pf_job *first;
	size_t i, kept = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < pf->nr; i++)
		order[i] = &pf->jobs[i];
	qsort(order, pf->nr, sizeof(void *), pf_job_cmp);
	/*
	 * Each against the first of its run, which is kept: the one before
	 * may be gone already, its kind overwritten (a file at three paths).
	 */
	for (i = 1, first = order[0]; i < pf->nr; i++) {
		const struct pf_job *b = order[i];

		if (first->kind == b->kind && first->id->len == b->id->len &&
		    !memcmp(first->id->build_id, b->id->build_id,
			    first->id->len))
			order[i]->kind = UINT32_MAX; /* gone */
		else
			first = b;
	}
	free(order);
	for (i = 0; i < pf->nr; i++) {
		if (pf->jobs[i].kind != UINT32_MAX)
			pf->jobs[kept++] = pf->jobs[i];
	}
	pf->nr = kept;
	return 0;
}

/* The jobs of the table @ids, skipped entries done already. */
static int pf_plan(struct pf *pf, const struct perfdata_build_ids *ids)
{
	size_t i;

	/* an entry makes two requests at most; calloc(0) may give NULL */
	pf->jobs = calloc(2 * ids->nr + 1, sizeof(*pf->jobs));
	if (!pf->jobs)
		return -ENOMEM;
	for (i = 0; i < ids->nr; i++) {
		uint32_t kinds[2];
		const char *skip;
		int k, n = pf_kinds_of(&ids->ids[i], kinds, &skip);

		if (!n) {
			struct pf_job *job = &pf->jobs[pf->nr++];

			job->id = &ids->ids[i];
			job->skip = skip;
			job->done = true;
			continue;
		}
		for (k = 0; k < n; k++) {
			struct pf_job *job = &pf->jobs[pf->nr++];

			job->id = &ids->ids[i];
			job->kind = kinds[k];
			job->needed = kinds[k] != SYMPROV_KIND_DEBUGINFO;
			/* a second run asks nothing */
			if (pf->cache &&
			    perfcache_perf_reads(
				    pf->cache, job->kind, job->id->name,
				    job->id->build_id, job->id->len)) {
				job->kind = 0;
				job->skip = "perf reads it already";
				job->done = true;
			}
		}
	}
	return pf_drop_duplicates(pf);
}

static long long pf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The progress line, on a terminal only; pf.lock held. */
static void pf_draw(struct pf *pf, bool now)
{
	long long t;

	if (!pf->cli->tty)
		return;
	t = pf_now();
	if (!now && t - pf->drawn_at < PF_DRAW_EVERY)
		return;
	pf->drawn_at = t;
	flockfile(stderr);
	fprintf(stderr, "\rsymprov: prefetch: %zu of %zu done, %.1f MiB ",
		pf->nr_done, pf->nr,
		(double)pf->bytes_shown / (1 << 20));
	pf->cli->progress_shown = true;
	funlockfile(stderr);
}

/* One line on stdout: kind, build ID, name, the file or why not. */
static void pf_print(struct pf *pf, const struct pf_job *job)
{
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	const char *what = job->path;

	if (!what)
		what = job->why ?: symprov_status_str(job->status);
	if (!job->kind)
		what = job->skip;
	symprov_build_id_hex(job->id->build_id, job->id->len, hex);
	/* the line in place of the progress line, which comes back after */
	flockfile(stderr);
	if (pf->cli->progress_shown) {
		fputs("\r\033[K", stderr);
		pf->cli->progress_shown = false;
	}
	funlockfile(stderr);
	printf("%s\t%s\t%s\t%s\n", pf_kind_name(job->kind), hex, job->id->name,
	       what);
	fflush(stdout);
}

/* Print the jobs done since the last one printed, in order; pf.lock held. */
static void pf_print_ready(struct pf *pf)
{
	while (pf->printed < pf->nr && pf->jobs[pf->printed].done)
		pf_print(pf, &pf->jobs[pf->printed++]);
}

static int pf_progress(void *data, const struct symprov_progress *p)
{
	struct pf *pf = data;

	if (cli_was_interrupted())
		return SYMPROV_PROGRESS_STOP;
	if (!pf->cli->tty || p->phase != SYMPROV_FETCH_UPDATE)
		return SYMPROV_PROGRESS_CONTINUE;
	pthread_mutex_lock(&pf->lock);
	pf->bytes_shown = p->done;
	pf_draw(pf, false);
	pthread_mutex_unlock(&pf->lock);
	return SYMPROV_PROGRESS_CONTINUE;
}

static void pf_log(void *data, int level, const char *provider, const char *msg)
{
	const struct pf *pf = data;

	cli_log(pf->cli, level, provider, msg);
}

/*
 * Copy @src, found for @job, to DIR/buildid/HEX/NAME as a debuginfod
 * server lays files out (a kernel, a module and debuginfo as debuginfo),
 * atomically: a temporary file in the same directory, synced, checked
 * again, renamed over the name.  The symbols only of a kernel or a module
 * do not replace a file with its build ID that is there: it may be the
 * whole.
 * Returns 0 with *@dest the name, or a negative errno with *@step what
 * failed.
 */
static int pf_copy(const struct pf *pf, const struct pf_job *job,
		   const char *src, uint32_t content, char **dest,
		   const char **step)
{
	const char *name = job->kind == SYMPROV_KIND_EXECUTABLE ? "executable" :
								  "debuginfo";
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	char *dir = NULL, *path = NULL;
	int err = -ENOMEM;

	*step = "out of memory";
	symprov_build_id_hex(job->id->build_id, job->id->len, hex);
	if (asprintf(&dir, "%s/buildid/%s", pf->into, hex) < 0 ||
	    asprintf(&path, "%s/%s", dir, name) < 0)
		goto out;
	*step = "making its directory";
	if (mkdir(dir, 0755) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	/* the one there is complete: it was renamed in */
	if (content == SYMPROV_CONTENT_SYMBOLS &&
	    copy_is_checked_file(path, job->kind, job->id->build_id,
				 job->id->len)) {
		err = 0;
		goto out;
	}
	err = copy_checked(src, dir, name, job->kind, job->id->build_id,
			   job->id->len, true, step);
out:
	if (!err) {
		*dest = path;
		path = NULL;
	}
	free(path);
	free(dir);
	return err;
}

/*
 * Why not: the status and, for a failure, its detail (a miss's, ENOENT,
 * says nothing more).
 */
static char *pf_why_not(int status, const struct symprov_answer *ans)
{
	char *why = NULL;

	if (status == SYMPROV_UNAVAILABLE && ans->err && ans->source) {
		if (asprintf(&why, "%s: %s: %s", symprov_status_str(status),
			     ans->source, strerror(-ans->err)) < 0)
			why = NULL;
	}
	return why;
}

/* The job asked for as @idx: copy what is found; the answer into it. */
static void pf_answered(void *data, size_t idx,
			const struct symprov_find_opts *req,
			const struct symprov_answer *ans)
{
	struct pf *pf = data;
	struct pf_job *job = &pf->jobs[pf->job_of[idx]];
	char *path = NULL, *why = NULL, *copy = NULL;
	int status = ans->status, err;
	const char *step;
	uint64_t bytes = 0;
	struct stat st;

	(void)req;
	if (status != SYMPROV_FOUND) {
		why = pf_why_not(status, ans);
		goto out;
	}
	path = strdup(ans->path);
	if (!path) {
		status = SYMPROV_UNAVAILABLE;
		goto out;
	}
	if (pf->cache || pf->into) {
		if (pf->cache)
			err = perfcache_add(pf->cache, job->kind, job->id->name,
					    job->id->build_id, job->id->len,
					    path, &copy, &step);
		else
			err = pf_copy(pf, job, path, ans->content, &copy,
				      &step);
		if (err) {
			status = SYMPROV_UNAVAILABLE;
			if (asprintf(&why,
				     "found %s, not copied into %s: %s: %s",
				     path, pf->into, step, strerror(-err)) < 0)
				why = NULL;
			goto out;
		}
		free(path);
		path = copy;
	}
	/* of the file printed: in --into, maybe a whole one kept */
	if (!stat(path, &st))
		bytes = (uint64_t)st.st_size;
out:
	pthread_mutex_lock(&pf->lock);
	job->status = status;
	job->path = status == SYMPROV_FOUND ? path : NULL;
	job->why = why;
	job->bytes = bytes;
	job->done = true;
	if (status == SYMPROV_FOUND)
		pf->bytes_found += bytes;
	pf->nr_done++;
	pf_print_ready(pf);
	pf_draw(pf, true);
	pthread_mutex_unlock(&pf->lock);
	if (status != SYMPROV_FOUND)
		free(path);
}

/* Every job asked, @jobs at a time, side by side; in order on stdout. */
static int pf_run_all(struct pf *pf, unsigned int jobs)
{
	struct symprov_prefetch_opts opts = {
		.size = sizeof(opts),
		.flags = SYMPROV_PREFETCH_AS_LISTED,
		.jobs = jobs,
		.answered = pf_answered,
		.data = pf,
	};
	struct symprov_object *objs = calloc(pf->nr + 1, sizeof(*objs));
	size_t i, nr = 0;
	int err = -ENOMEM;

	pf->job_of = calloc(pf->nr + 1, sizeof(*pf->job_of));
	if (!objs || !pf->job_of)
		goto out;
	for (i = 0; i < pf->nr; i++) {
		const struct pf_job *job = &pf->jobs[i];

		if (!job->kind)
			continue;
		pf->job_of[nr] = i;
		objs[nr++] = (struct symprov_object){
			.kind = job->kind,
			.build_id = job->id->build_id,
			.build_id_len = job->id->len,
			.name = job->id->name,
		};
	}
	pthread_mutex_lock(&pf->lock);
	pf->nr_done = pf->nr - nr;
	pf_print_ready(pf);
	pthread_mutex_unlock(&pf->lock);

	err = symprov_session_prefetch(pf->session, objs, nr, &opts, NULL);

	/* what was not asked for, after Ctrl-C or the providers stopped */
	pthread_mutex_lock(&pf->lock);
	for (i = 0; i < pf->nr; i++) {
		struct pf_job *job = &pf->jobs[i];

		if (!job->done) {
			job->status = SYMPROV_CANCELLED;
			job->done = true;
		}
	}
	pf_print_ready(pf);
	flockfile(stderr);
	cli_end_progress(pf->cli);
	funlockfile(stderr);
	pthread_mutex_unlock(&pf->lock);
out:
	free(objs);
	return err;
}

/* How bad a miss is: the exit code is of the worst needed one. */
static int pf_rank(int status)
{
	switch (status) {
	case SYMPROV_FOUND:
		return 0;
	case SYMPROV_DISABLED:
		return 1;
	case SYMPROV_NOT_FOUND:
		return 2;
	case SYMPROV_CANCELLED:
		return 4;
	default:
		return 3;
	}
}

/* The summary line, and the exit code. */
static int pf_summary(const struct pf *pf)
{
	size_t i, asked = 0, found = 0, missing = 0, skipped = 0;
	int worst = SYMPROV_FOUND;

	for (i = 0; i < pf->nr; i++) {
		const struct pf_job *job = &pf->jobs[i];

		if (!job->kind) {
			skipped++;
			continue;
		}
		asked++;
		if (job->status == SYMPROV_FOUND) {
			found++;
		} else if (job->needed) {
			missing++;
			if (pf_rank(job->status) > pf_rank(worst))
				worst = job->status;
		}
	}
	fprintf(stderr,
		"symprov: prefetch: %zu of %zu found, %llu bytes%s%s; %zu needed not found, %zu skipped\n",
		found, asked, (unsigned long long)pf->bytes_found,
		pf->into ? ", in " : "", pf->into ?: "", missing, skipped);
	return cli_exit_of(worst);
}

/* DIR and DIR/buildid, made if need be. */
static int pf_prepare_into(const char *into)
{
	char *sub = NULL;
	int err = 0;

	if (mkdir(into, 0755) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	if (asprintf(&sub, "%s/buildid", into) < 0) {
		sub = NULL;
		err = -ENOMEM;
		goto out;
	}
	if (mkdir(sub, 0755) && errno != EEXIST)
		err = -errno;
out:
	if (err)
		fprintf(stderr, "symprov: prefetch: --into %s: %s\n", into,
			strerror(-err));
	free(sub);
	return err;
}

/*
 * The profile's build IDs; one line and an error if it is bad, one line
 * if modules have none.
 */
static int pf_read_profile(const char *input, struct perfdata_build_ids *ids)
{
	char why[PERFDATA_WHY_MAX];
	int fd, err;

	/* O_NONBLOCK: a FIFO is refused, not waited on */
	fd = open(input, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, sizeof(why), "%s", strerror(errno));
		goto out;
	}
	err = perfdata_read_build_ids(fd, ids, why);
	close(fd);
out:
	if (err)
		fprintf(stderr, "symprov: prefetch: %s: %s\n", input, why);
	else if (ids->modules_without_id)
		fprintf(stderr,
			"symprov: prefetch: %s: no build ID for the %zu kernel module%s it maps (%s%s): samples in them, if any, stay unnamed; perf before 6.12 writes them with perf record --buildid-all\n",
			input, ids->modules_without_id,
			ids->modules_without_id > 1 ? "s" : "",
			ids->module_without_id,
			ids->modules_without_id > 1 ? ", ..." : "");
	return err;
}

static int pf_jobs_arg(const char *arg, long *jobs)
{
	char *end;

	errno = 0;
	*jobs = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *jobs < 1 || *jobs > PF_JOBS_MAX)
		return -EINVAL;
	return 0;
}

int symprov_prefetch_main(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "into", required_argument, NULL, 'o' },
		{ "perf-cache", optional_argument, NULL, 'P' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "providers", required_argument, NULL, 'p' },
		{ "no-debuginfod", no_argument, NULL, 'D' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "symbols-only", no_argument, NULL, 'S' },
		{ "full", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pf pf = { .cli = cli, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct perfcache cache = { 0 };
	const char *cache_dir = NULL;
	bool to_cache = false;
	struct symprov_session_opts so = {
		.host_name = "symprov",
		.data = &pf,
		.log = pf_log,
		.progress = pf_progress,
	};
	const char *content = "symbols";
	struct perfdata_build_ids ids = { 0 };
	const char *input = "perf.data", *list = NULL;
	long jobs = PF_JOBS_DEFAULT;
	int c, ret = EXIT_USAGE;
	size_t i;

	while ((c = getopt_long(argc, argv, "+hi:j:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(argv[0]);
		case 'i':
			input = optarg;
			break;
		case 'o':
			pf.into = optarg;
			break;
		case 'P':
			to_cache = true;
			cache_dir = optarg;
			break;
		case 'j':
			if (pf_jobs_arg(optarg, &jobs))
				return cli_usage_error(
					"--jobs '%s': a number from 1 to 64",
					optarg);
			break;
		case 'F':
			content = "full";
			break;
		default:
			if (cli_session_option(c, &so, &list, &content))
				break;
			return cli_usage_error(
				"prefetch: unknown or incomplete option '%s'",
				argv[optind - 1]);
		}
	}
	if (optind != argc)
		return cli_usage_error(
			"prefetch takes no argument: '%s' (the profile is -i FILE)",
			argv[optind]);
	if (to_cache && pf.into)
		return cli_usage_error(
			"%s", "--into and --perf-cache: one or the other");

	if (pf_read_profile(input, &ids))
		goto out;
	if (pf.into && pf_prepare_into(pf.into))
		goto out;
	if (to_cache) {
		if (perfcache_open(&cache, cache_dir))
			goto out;
		pf.cache = &cache;
		/* where the files go, in what is printed */
		pf.into = cache.dir;
	}
	ret = EXIT_UNAVAILABLE;
	if (pf_plan(&pf, &ids)) {
		fprintf(stderr, "symprov: out of memory\n");
		goto out;
	}
	pf.session = cli_session_new(list, &so, content, &ret);
	if (!pf.session)
		goto out;
	cli_catch_sigint();
	if (pf_run_all(&pf, (unsigned int)jobs)) {
		fprintf(stderr, "symprov: out of memory\n");
		ret = EXIT_UNAVAILABLE;
		goto out;
	}
	ret = pf_summary(&pf);
out:
	symprov_session_free(pf.session);
	free(pf.job_of);
	for (i = 0; i < pf.nr; i++) {
		free(pf.jobs[i].path);
		free(pf.jobs[i].why);
	}
	free(pf.jobs);
	perfdata_free(&ids);
	perfcache_close(&cache);
	pthread_mutex_destroy(&pf.lock);
	return ret;
}
