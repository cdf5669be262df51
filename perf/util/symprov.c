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
 *    progress through ui/symprov.c, which shows the fetch and reads its
 *    keys;
 *  - the opt-outs passed to the providers as host flags: --no-debuginfod
 *    or core.debuginfod=false, and buildid.dir=/dev/null (no build-id
 *    cache);
 *  - what is asked for: the symbols only, unless the tool needs the
 *    kernel's DWARF or code (symbol_conf.symprov_full) or the user wants
 *    the whole file (symprov.content=full); a file with the symbols only
 *    is swapped for the whole one when perf annotate needs its code;
 *  - one request at a time, for the progress and the keys; the loader
 *    remembers the answers, so a build ID is asked for once a session.
 *
 * Nothing is loaded before a kernel's symbols are found missing, and
 * nothing at all when no provider is configured.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <subcmd/exec-cmd.h>

#include "build-id.h"
#include "callchain.h"
#include "config.h"
#include "debug.h"
#include "mutex.h"
#include "sort.h"
#include "symbol_conf.h"
#include "symprov.h"
#include "symprov/symprov_loader.h"
#include "../ui/symprov.h"

#define SYMPROV_CONFIG_PROVIDERS "symprov.providers"
#define SYMPROV_CONFIG_CONTENT "symprov.content"

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
	/* The requests told about, for one line each a session */
	struct symprov_told *told;
	size_t nr_told;
} symprov;

struct symprov_told {
	char sbuild_id[SBUILD_ID_SIZE];
	u32 content; /* asked */
	char *symbols_only; /* the file found, when it holds the symbols only */
};

static void symprov__init_locks(void)
{
	mutex_init(&symprov.fetch_lock);
	mutex_init(&symprov.lock);
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

static void symprov__log(void *data __maybe_unused, int level,
			 const char *provider, const char *msg)
{
	const char *sep = provider ? ": " : "";

	if (!provider)
		provider = "";
	symprov_ui__clear();
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

static int symprov__progress(void *data __maybe_unused, const char *provider,
			     const struct symprov_request *req __maybe_unused,
			     uint64_t done, uint64_t total)
{
	return symprov_ui__progress(provider, done, total);
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

void symprov__no_keys(void)
{
	symprov_ui__no_keys();
}

/* A sort key or field @key needs DWARF: srcline*, srcfile, type* */
static bool symprov__key_needs_full(const char *key, size_t len)
{
	/* perf takes the first key @key is a prefix of: "s" is symbol */
	return len >= 2 &&
	       (!strncasecmp(key, "sr", 2) || !strncasecmp(key, "ty", 2));
}

static bool symprov__keys_need_full(const char *keys)
{
	size_t len;

	while (keys && *keys) {
		keys += strspn(keys, ", +");
		len = strcspn(keys, ", ");
		if (symprov__key_needs_full(keys, len))
			return true;
		keys += len;
	}
	return false;
}

/*
 * Not --inline, on by default: perf expands inlined functions only in
 * callchains unwound with DWARF, which never hold kernel frames.
 */
bool symprov__sort_needs_full(void)
{
	return symprov__keys_need_full(sort_order) ||
	       symprov__keys_need_full(field_order) ||
	       callchain_param.key != CCKEY_FUNCTION;
}

/*
 * What a kernel's file must hold: the symbols, unless the tool needs its
 * DWARF or code (symbol_conf.symprov_full, set by the tools from their
 * options) or the user wants the whole file (symprov.content=full).
 */
static u32 symprov__content(void)
{
	const char *content = symprov__config(NULL, SYMPROV_CONFIG_CONTENT);

	if (symbol_conf.symprov_full)
		return SYMPROV_CONTENT_FULL;
	if (!content || !strcmp(content, "symbols"))
		return SYMPROV_CONTENT_SYMBOLS;
	if (strcmp(content, "full"))
		pr_warning_once(
			"symprov: %s=%s is not 'symbols' or 'full': asking for the whole file\n",
			SYMPROV_CONFIG_CONTENT, content);
	return SYMPROV_CONTENT_FULL;
}

/*
 * Remember the answer to a request, with symprov.lock held.  Returns true
 * the first time, when its line is to be shown.
 */
static bool symprov__tell_once(const char *sbuild_id, u32 content,
			       const struct symprov_answer *ans)
{
	struct symprov_told *told;
	size_t i;

	for (i = 0; i < symprov.nr_told; i++) {
		told = &symprov.told[i];
		if (told->content == content &&
		    !strcmp(told->sbuild_id, sbuild_id))
			return false;
	}
	told = realloc(symprov.told, (symprov.nr_told + 1) * sizeof(*told));
	if (!told)
		return true;
	symprov.told = told;
	told = &symprov.told[symprov.nr_told++];
	strlcpy(told->sbuild_id, sbuild_id, sizeof(told->sbuild_id));
	told->content = content;
	told->symbols_only = NULL;
	if (ans->status == SYMPROV_FOUND &&
	    ans->content == SYMPROV_CONTENT_SYMBOLS)
		told->symbols_only = strdup(ans->path);
	return true;
}

/* @path is a file a provider gave with the symbols only */
static bool symprov__symbols_only(const char *path)
{
	bool found = false;
	size_t i;

	mutex_lock(&symprov.lock);
	for (i = 0; i < symprov.nr_told && !found; i++)
		found = symprov.told[i].symbols_only &&
			!strcmp(symprov.told[i].symbols_only, path);
	mutex_unlock(&symprov.lock);
	return found;
}

/*
 * Ask the providers for the whole file or what symprov__content() says,
 * showing the fetch; the status, also in ans->status.
 */
static int symprov__fetch(const struct build_id *bid, const char *dso_name,
			  bool whole, struct symprov_answer *ans)
{
	struct symprov_request req = {
		.size = sizeof(req),
		.kind = SYMPROV_KIND_KERNEL,
		.build_id = bid->data,
		.build_id_len = bid->size,
		.dso_name = dso_name,
	};
	char sbuild_id[SBUILD_ID_SIZE], what[64];
	struct symprov_loader *loader;
	u32 content;
	bool tell;
	int action;

	memset(ans, 0, sizeof(*ans));
	ans->status = SYMPROV_DISABLED;
	if (!bid->size || bid->size > SYMPROV_BUILD_ID_MAX)
		return ans->status;

	pthread_once(&symprov_once, symprov__init_locks);
	mutex_lock(&symprov.fetch_lock);
	mutex_lock(&symprov.lock);
	if (!symprov.initialized)
		symprov__init();
	loader = symprov.loader;
	mutex_unlock(&symprov.lock);
	if (!loader || symprov_loader_stopped(loader))
		goto out;

	content = whole ? SYMPROV_CONTENT_FULL : symprov__content();
	req.content = content;
	build_id__sprintf(bid, sbuild_id);
	scnprintf(what, sizeof(what), "%svmlinux %.12s",
		  content == SYMPROV_CONTENT_SYMBOLS ? "symbols of " : "",
		  sbuild_id);
	pr_debug("symprov: asking for the %s of the vmlinux with build ID %s\n",
		 content == SYMPROV_CONTENT_SYMBOLS ? "symbols" : "whole file",
		 sbuild_id);

	symprov_ui__begin(what);
	/* The loader remembers the answer: asked once a session */
	symprov_loader_find(loader, &req, ans);
	action = symprov_ui__end();

	mutex_lock(&symprov.lock);
	tell = symprov__tell_once(sbuild_id, content, ans);
	mutex_unlock(&symprov.lock);
	if (tell || ans->status == SYMPROV_CANCELLED)
		symprov_ui__result(sbuild_id, content, ans, action);
out:
	mutex_unlock(&symprov.fetch_lock);
	return ans->status;
}

char *symprov__find_vmlinux(const struct build_id *bid, bool guest)
{
	struct symprov_answer ans;

	symprov__fetch(bid,
		       guest ? "[guest.kernel.kallsyms]" : "[kernel.kallsyms]",
		       false, &ans);
	return ans.path;
}

int symprov__full_vmlinux(const struct build_id *bid, const char *dso_name,
			  char *path, size_t size)
{
	struct symprov_answer ans;
	int err = 0;

	pthread_once(&symprov_once, symprov__init_locks);
	if (!symprov__symbols_only(path))
		return 0;
	if (symprov__fetch(bid, dso_name, true, &ans) == SYMPROV_FOUND)
		strlcpy(path, ans.path, size);
	else
		err = -ENOENT;
	free(ans.path);
	return err;
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
	for (i = 0; i < symprov.nr_told; i++)
		free(symprov.told[i].symbols_only);
	zfree(&symprov.told);
	symprov.nr_told = 0;
	symprov.initialized = false;
	mutex_unlock(&symprov.lock);
	mutex_unlock(&symprov.fetch_lock);
}
