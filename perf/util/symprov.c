// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol providers: shared objects that perf asks, as a last resort, for the
 * vmlinux of a kernel whose symbols are not available locally, keyed by its
 * build ID, e.g. to fetch it from a debuginfod server.  The ABI is
 * util/symprov/symprov.h and util/symprov/symprov_loader.c loads and asks
 * the providers; both are shared with the symprov project.  This is the
 * perf side:
 *
 *  - the provider list: $PERF_SYMBOL_PROVIDERS, else the symprov.providers
 *    config key.  When perf runs with elevated privileges (AT_SECURE:
 *    setuid, setgid, file capabilities) the environment is ignored and the
 *    symprov.* keys are only read from the system-wide config file;
 *  - a bare provider name is looked for in <exec-path>/symprov/ first,
 *    except under AT_SECURE;
 *  - the host services: perf config lookup, logging through pr_*(), and
 *    in stdio mode on a terminal a progress line with the keys 's' (skip
 *    this fetch) and 'd' (disable the providers for this session);
 *  - the opt-outs passed to the providers as host flags: --no-debuginfod
 *    or core.debuginfod=false, and buildid.dir=/dev/null (no build-id
 *    cache);
 *  - one request at a time, for the progress line and the keys; the loader
 *    remembers the answers, so a build ID is asked for once a session.
 *
 * Nothing is loaded before a kernel's symbols are found missing, and
 * nothing at all when no provider is configured.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <subcmd/exec-cmd.h>

#include "build-id.h"
#include "config.h"
#include "debug.h"
#include "mutex.h"
#include "symbol_conf.h"
#include "symprov.h"
#include "term.h"
#include "symprov/symprov_loader.h"
#include "../ui/ui.h"

#define SYMPROV_CONFIG_PROVIDERS "symprov.providers"
#define SYMPROV_PROGRESS_INTERVAL_NS (200 * NSEC_PER_MSEC)

struct symprov_config_item {
	char *key;
	char *value;
};

static pthread_once_t symprov_once = PTHREAD_ONCE_INIT;

static struct {
	/* Serializes the requests, taken before lock */
	struct mutex fetch_lock;
	/* Protects the rest */
	struct mutex lock;
	bool initialized;
	struct symprov_loader *loader;
	struct symprov_config_item *config;
	size_t nr_config;
} symprov;

/* The request under way, for the progress callback */
static struct {
	struct mutex lock;
	bool interactive;
	bool shown;
	int action;
	u64 last_ns;
	struct termios old_term;
	char sbuild_id[SBUILD_ID_SIZE];
} symprov_fetch;

/* SIGINT or SIGTERM came during a request: stop asking */
static volatile sig_atomic_t symprov_interrupted;

static void symprov__init_locks(void)
{
	mutex_init(&symprov.fetch_lock);
	mutex_init(&symprov.lock);
	mutex_init(&symprov_fetch.lock);
}

static const char *symprov__config(void *data __maybe_unused, const char *key)
{
	size_t i;

	for (i = 0; i < symprov.nr_config; i++) {
		if (!strcmp(symprov.config[i].key, key))
			return symprov.config[i].value;
	}
	return NULL;
}

static int symprov__add_config(const char *key, const char *value,
			       void *data __maybe_unused)
{
	struct symprov_config_item *items;
	char *k = strdup(key), *v = strdup(value);

	items = realloc(symprov.config,
			(symprov.nr_config + 1) * sizeof(*items));
	if (!k || !v || !items) {
		free(k);
		free(v);
		if (items)
			symprov.config = items;
		return 0;
	}
	items[symprov.nr_config].key = k;
	items[symprov.nr_config].value = v;
	symprov.config = items;
	symprov.nr_config++;
	return 0;
}

/* What providers may read: their own keys and perf's debuginfod switch */
static bool symprov__config_key(const char *key)
{
	return strstarts(key, "symprov.") || !strcmp(key, "core.debuginfod");
}

static int symprov__add_user_config(const char *key, const char *value,
				    void *data)
{
	bool secure = *(bool *)data;

	/* Under AT_SECURE the symprov keys come from the system config only */
	if (!symprov__config_key(key) || (secure && strstarts(key, "symprov.")))
		return 0;
	return symprov__add_config(key, value, NULL);
}

static int symprov__add_system_config(const char *key, const char *value,
				      void *data __maybe_unused)
{
	if (!strstarts(key, "symprov."))
		return 0;
	return symprov__add_config(key, value, NULL);
}

static void symprov__read_config(bool secure)
{
	struct perf_config_set *set;

	perf_config(symprov__add_user_config, &secure);
	if (!secure || !perf_config_system())
		return;

	/* $HOME and $PERF_CONFIG are the user's: read the system file alone */
	set = perf_config_set__load_file(perf_etc_perfconfig());
	if (set) {
		perf_config_set(set, symprov__add_system_config, NULL);
		perf_config_set__delete(set);
	}
}

/* Clear the progress line before anything else is printed */
static void symprov__clear_progress(void)
{
	mutex_lock(&symprov_fetch.lock);
	if (symprov_fetch.shown) {
		fputs("\r\033[K", stderr);
		symprov_fetch.shown = false;
	}
	mutex_unlock(&symprov_fetch.lock);
}

static void symprov__log(void *data __maybe_unused, int level,
			 const char *provider, const char *msg)
{
	const char *sep = provider ? ": " : "";

	if (!provider)
		provider = "";
	symprov__clear_progress();
	switch (level) {
	case SYMPROV_LOG_ERROR:
		pr_err("symprov: %s%s%s\n", provider, sep, msg);
		break;
	case SYMPROV_LOG_WARN:
		pr_warning("symprov: %s%s%s\n", provider, sep, msg);
		break;
	case SYMPROV_LOG_INFO:
		pr_debug("symprov: %s%s%s\n", provider, sep, msg);
		break;
	default:
		pr_debug2("symprov: %s%s%s\n", provider, sep, msg);
		break;
	}
}

static u64 symprov__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void symprov__read_keys(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 's' &&
		    symprov_fetch.action == SYMPROV_PROGRESS_CONTINUE)
			symprov_fetch.action = SYMPROV_PROGRESS_SKIP;
		else if (c == 'd')
			symprov_fetch.action = SYMPROV_PROGRESS_STOP;
	}
}

static void symprov__show_progress(const char *provider, uint64_t done,
				   uint64_t total)
{
	const double mib = 1024 * 1024;
	u64 now = symprov__now_ns();
	char size[64];

	if (symprov_fetch.shown && done != total &&
	    now - symprov_fetch.last_ns < SYMPROV_PROGRESS_INTERVAL_NS)
		return;
	symprov_fetch.last_ns = now;
	symprov_fetch.shown = true;

	if (total)
		scnprintf(size, sizeof(size), "%.1f/%.1f MiB", done / mib,
			  total / mib);
	else
		scnprintf(size, sizeof(size), "%.1f MiB", done / mib);
	fprintf(stderr,
		"\rsymprov: %.16s: vmlinux %.12s: %s  [s]kip [d]isable\033[K",
		provider ?: "?", symprov_fetch.sbuild_id, size);
}

static int symprov__progress(void *data __maybe_unused, const char *provider,
			     const struct symprov_request *req __maybe_unused,
			     uint64_t done, uint64_t total)
{
	int action;

	mutex_lock(&symprov_fetch.lock);
	if (symprov_fetch.interactive) {
		symprov__read_keys();
		symprov__show_progress(provider, done, total);
	}
	if (symprov_interrupted)
		symprov_fetch.action = SYMPROV_PROGRESS_STOP;
	action = symprov_fetch.action;
	mutex_unlock(&symprov_fetch.lock);
	return action;
}

static struct sigaction symprov_old_sigint, symprov_old_sigterm;

/*
 * Ctrl-C or SIGTERM during a request stops the providers for the session,
 * then does what it did before: perf report's handler ends the session; a
 * default action ends perf, with the terminal's echo put back first.
 */
static void symprov__signal(int sig)
{
	struct sigaction *old = sig == SIGINT ? &symprov_old_sigint :
						&symprov_old_sigterm;

	symprov_interrupted = 1;
	if (old->sa_handler == SIG_IGN)
		return;
	if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &symprov_fetch.old_term);
	sigaction(sig, old, NULL);
	raise(sig);
}

static void symprov__catch_signals(bool catch)
{
	struct sigaction sa = { .sa_handler = symprov__signal };

	if (catch) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &symprov_old_sigint);
		sigaction(SIGTERM, &sa, &symprov_old_sigterm);
	} else {
		sigaction(SIGINT, &symprov_old_sigint, NULL);
		sigaction(SIGTERM, &symprov_old_sigterm, NULL);
	}
}

static void symprov__fetch_begin(const struct build_id *bid)
{
	struct termios term;

	mutex_lock(&symprov_fetch.lock);
	build_id__sprintf(bid, symprov_fetch.sbuild_id);
	symprov_fetch.action = SYMPROV_PROGRESS_CONTINUE;
	symprov_fetch.shown = false;
	/*
	 * Keys are read in stdio mode on a terminal, unless something else
	 * reads them already, like the 'perf top' display thread, which
	 * turns canonical mode off.
	 */
	symprov_fetch.interactive = use_browser <= 0 && isatty(STDIN_FILENO) &&
				    isatty(STDERR_FILENO) &&
				    !tcgetattr(STDIN_FILENO, &term) &&
				    (term.c_lflag & ICANON);
	if (symprov_fetch.interactive) {
		set_term_quiet_input(&symprov_fetch.old_term);
		symprov__catch_signals(true);
	}
	mutex_unlock(&symprov_fetch.lock);
}

static int symprov__fetch_end(void)
{
	int action;

	mutex_lock(&symprov_fetch.lock);
	if (symprov_fetch.interactive) {
		if (symprov_fetch.shown)
			fputs("\r\033[K", stderr);
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &symprov_fetch.old_term);
		symprov__catch_signals(false);
	}
	symprov_fetch.interactive = false;
	symprov_fetch.shown = false;
	action = symprov_fetch.action;
	mutex_unlock(&symprov_fetch.lock);
	return action;
}

/*
 * $PERF_SYMBOL_PROVIDERS, else symprov.providers; setting the variable to
 * the empty string disables the providers of the config.
 */
static const char *symprov__list(const struct symprov_loader_host *host,
				 bool secure)
{
	const char *env = secure ? NULL : getenv(SYMPROV_LIST_ENV);
	const char *list = symprov_list_from_env(SYMPROV_LIST_ENV, host);

	if (list)
		return list;
	if (env)
		return NULL;
	list = symprov__config(NULL, SYMPROV_CONFIG_PROVIDERS);
	return list && *list ? list : NULL;
}

/*
 * <exec-path>/symprov, like <exec-path>/dlfilters for --dlfilter.  Not under
 * AT_SECURE: --exec-path and $PERF_EXEC_PATH are the user's.
 */
static char *symprov__dir(bool secure)
{
	char *exec_path, *dir;

	if (secure)
		return NULL;
	exec_path = get_argv_exec_path();
	if (!exec_path || asprintf(&dir, "%s/symprov", exec_path) < 0)
		dir = NULL;
	free(exec_path);
	return dir;
}

static u32 symprov__host_flags(void)
{
	const char *debuginfod = symprov__config(NULL, "core.debuginfod");
	u32 flags = 0;

	if (symbol_conf.no_debuginfod ||
	    (debuginfod && !perf_config_bool("core.debuginfod", debuginfod)))
		flags |= SYMPROV_HOST_NO_DEBUGINFOD;
	if (!strcmp(buildid_dir, "/dev/null"))
		flags |= SYMPROV_HOST_NO_BUILDID_CACHE;
	return flags;
}

/* Called once, with symprov.lock held */
static void symprov__init(void)
{
	struct symprov_loader_host host = {
		.name = "perf",
		.log = symprov__log,
		.config = symprov__config,
		.progress = symprov__progress,
	};
	bool secure = getauxval(AT_SECURE) != 0;
	const char *list;
	char *dir;

	symprov.initialized = true;
	symprov__read_config(secure);
	list = symprov__list(&host, secure);
	if (!list)
		return;

	host.flags = symprov__host_flags();
	dir = symprov__dir(secure);
	pr_debug("symprov: loading symbol providers %s\n", list);
	symprov.loader = symprov_loader_new(list, dir, &host);
	free(dir);
	if (symprov.loader && !symprov_loader_nr_providers(symprov.loader)) {
		symprov_loader_delete(symprov.loader);
		symprov.loader = NULL;
	}
}

bool symprov__enabled(void)
{
	bool enabled;

	pthread_once(&symprov_once, symprov__init_locks);
	mutex_lock(&symprov.lock);
	if (!symprov.initialized)
		symprov__init();
	enabled = symprov.loader && !symprov_loader_stopped(symprov.loader);
	mutex_unlock(&symprov.lock);
	return enabled;
}

char *symprov__find_vmlinux(const struct build_id *bid, bool guest)
{
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = SYMPROV_KIND_KERNEL,
		.build_id = bid->data,
		.build_id_len = bid->size,
		.dso_name = guest ? "[guest.kernel.kallsyms]" :
				    "[kernel.kallsyms]",
	};
	struct symprov_answer ans;
	struct symprov_loader *loader;
	char sbuild_id[SBUILD_ID_SIZE];
	char *path = NULL;
	int status, action;

	if (!bid->size || bid->size > SYMPROV_BUILD_ID_MAX)
		return NULL;

	pthread_once(&symprov_once, symprov__init_locks);
	mutex_lock(&symprov.fetch_lock);
	mutex_lock(&symprov.lock);
	if (!symprov.initialized)
		symprov__init();
	loader = symprov.loader;
	mutex_unlock(&symprov.lock);
	if (!loader || symprov_loader_stopped(loader))
		goto out;

	build_id__sprintf(bid, sbuild_id);
	pr_debug("symprov: looking for the vmlinux with build ID %s\n",
		 sbuild_id);
	symprov__fetch_begin(bid);
	/* The loader remembers the answer: asked once a session */
	status = symprov_loader_find(loader, &req, &ans);
	path = ans.path;
	action = symprov__fetch_end();

	if (status == SYMPROV_FOUND)
		pr_debug("symprov: vmlinux with build ID %s: %s\n", sbuild_id,
			 path);
	else
		pr_debug("symprov: vmlinux with build ID %s: %s\n", sbuild_id,
			 symprov_status_str(status));
	if (symprov_loader_stopped(loader))
		pr_warning("symprov: providers disabled for this session\n");
	else if (action == SYMPROV_PROGRESS_SKIP)
		pr_warning("symprov: skipped the vmlinux with build ID %s\n",
			   sbuild_id);
out:
	mutex_unlock(&symprov.fetch_lock);
	return path;
}

void symprov__exit(void)
{
	size_t i;

	pthread_once(&symprov_once, symprov__init_locks);
	mutex_lock(&symprov.fetch_lock);
	mutex_lock(&symprov.lock);
	symprov_loader_delete(symprov.loader);
	symprov.loader = NULL;
	for (i = 0; i < symprov.nr_config; i++) {
		free(symprov.config[i].key);
		free(symprov.config[i].value);
	}
	zfree(&symprov.config);
	symprov.nr_config = 0;
	symprov.initialized = false;
	mutex_unlock(&symprov.lock);
	mutex_unlock(&symprov.fetch_lock);
}
