// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbol provider loader: the host side of symprov.h, shared by perf and
 * the symprov command.  Nothing here knows about either: the host passes
 * its services in struct symprov_loader_host.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprov_buildid.h"
#include "symprov_list.h"
#include "symprov_loader.h"
#include "symprov_memo.h"
#include "symprov_request.h"
#include "symprov_verify.h"

/*
 * RTLD_LOCAL: two providers may use the same symbol names.  Sanitizer
 * builds add RTLD_NODELETE, so that leak reports at exit can still name
 * the code of a provider.
 */
#ifndef SYMPROV_DLOPEN_FLAGS
#define SYMPROV_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif

/*
 * Where "make install" puts providers: $(LIBDIR)/symprov, compiled in.  A
 * host built apart from symprov (perf) gets symprov's default LIBDIR.
 */
#ifndef SYMPROV_LIBDIR
#define SYMPROV_LIBDIR "/usr/local/lib"
#endif
#define SYMPROV_INSTALLED_DIR SYMPROV_LIBDIR "/symprov"

/* One entry of the list, loaded or not. */
struct symprov_slot {
	struct symprov_entry_info info;
	char *spec;
	char *path;
	char *error;
	void *handle;
	struct symprov_provider prov; /* zero-extended copy */
	void *state;
	/* what this provider gets: its services point back to the slot */
	struct symprov_host host;
	struct symprov_loader *loader;
	int idx;
};

struct symprov_loader {
	struct symprov_loader_host host;
	char *provider_dirs;
	struct symprov_slot *slots;
	size_t nr_slots;
	size_t nr_loaded;
	int stopped; /* atomic: progress said STOP */
	/* every answer, by kind and build ID, for the loader's life */
	struct symprov_memo session;
	bool warned_empty;
};

/* Smallest provider struct that has every field of ABI 1.0. */
#define SYMPROV_PROVIDER_MIN_SIZE                  \
	(offsetof(struct symprov_provider, fini) + \
	 sizeof(((struct symprov_provider *)0)->fini))

static void loader_vlog(const struct symprov_loader_host *host, int level,
			const char *provider, const char *fmt, va_list ap)
{
	char msg[1024];

	if (!host->log)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	host->log(host->data, level, provider, msg);
}

__attribute__((format(printf, 3, 4))) static void
loader_log(const struct symprov_loader_host *host, int level, const char *fmt,
	   ...)
{
	va_list ap;

	va_start(ap, fmt);
	loader_vlog(host, level, NULL, fmt, ap);
	va_end(ap);
}

/* Services handed to a provider: prefix with its name, then the host's. */
__attribute__((format(printf, 3, 4))) static void
slot_log(void *data, int level, const char *fmt, ...)
{
	struct symprov_slot *slot = data;
	va_list ap;

	va_start(ap, fmt);
	loader_vlog(&slot->loader->host, level, slot->info.name, fmt, ap);
	va_end(ap);
}

static const char *slot_config(void *data, const char *key)
{
	struct symprov_slot *slot = data;
	const struct symprov_loader_host *host = &slot->loader->host;

	if (!host->config || !key)
		return NULL;
	return host->config(host->data, key);
}

static int slot_progress(void *data, const struct symprov_request *req,
			 uint64_t done, uint64_t total)
{
	struct symprov_slot *slot = data;
	struct symprov_loader *loader = slot->loader;
	int action = SYMPROV_PROGRESS_CONTINUE;

	if (__atomic_load_n(&loader->stopped, __ATOMIC_ACQUIRE))
		return SYMPROV_PROGRESS_STOP;
	if (loader->host.progress)
		action = loader->host.progress(
			loader->host.data, slot->info.name, req, done, total);
	if (action == SYMPROV_PROGRESS_STOP)
		__atomic_store_n(&loader->stopped, 1, __ATOMIC_RELEASE);
	else if (action != SYMPROV_PROGRESS_CONTINUE)
		action = SYMPROV_PROGRESS_SKIP;
	return action;
}

const char *symprov_list_from_env(const char *var, bool secure,
				  const struct symprov_loader_host *host)
{
	const char *list;

	if (secure) {
		list = getenv(var);
		if (list && *list)
			loader_log(
				host, SYMPROV_LOG_WARN,
				"%s ignored: running with elevated privileges (setuid, setgid or file capabilities)",
				var);
		return NULL;
	}
	list = secure_getenv(var);
	return list && *list ? list : NULL;
}

static int slot_fail(struct symprov_slot *slot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record why @slot did not load and warn once, naming the entry. */
static int slot_fail(struct symprov_slot *slot, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	free(slot->error);
	slot->error = strdup(reason);
	slot->info.error = slot->error ? slot->error : "out of memory";
	loader_log(&slot->loader->host, SYMPROV_LOG_WARN,
		   "symbol provider '%s' skipped: %s", slot->spec, reason);
	if (slot->handle) {
		dlclose(slot->handle);
		slot->handle = NULL;
	}
	return -1;
}

/* @dir/@spec, when that file exists. */
static char *slot_in_dir(const char *dir, size_t len, const char *spec)
{
	char *path;

	if (asprintf(&path, "%.*s/%s", (int)len, dir, spec) < 0)
		return NULL;
	if (access(path, F_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/*
 * Where this library is, for its symprov/ directory: LIBDIR/symprov once
 * installed, build/lib/symprov in a build tree.  NULL if not known.
 */
static char *loader_own_dir(void)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)loader_own_dir, &info) || !info.dli_fname)
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return NULL;
	return strndup(info.dli_fname, (size_t)(slash - info.dli_fname));
}

/*
 * A bare name: the host's provider directories in order, then symprov/
 * next to this library, then the directory it was installed with, then
 * dlopen()'s own search.
 */
static char *slot_resolve(const struct symprov_loader *loader, const char *spec)
{
	const char *dir = loader->provider_dirs;
	char *path = NULL, *own;
	size_t len;

	if (strchr(spec, '/'))
		return strdup(spec);
	for (; dir && *dir && !path; dir += len + (dir[len] == ':')) {
		len = strcspn(dir, ":");
		if (len)
			path = slot_in_dir(dir, len, spec);
	}
	own = path ? NULL : loader_own_dir();
	if (own) {
		char *sub;

		if (asprintf(&sub, "%s/symprov", own) >= 0) {
			path = slot_in_dir(sub, strlen(sub), spec);
			free(sub);
		}
		free(own);
	}
	if (!path)
		path = slot_in_dir(SYMPROV_INSTALLED_DIR,
				   strlen(SYMPROV_INSTALLED_DIR), spec);
	return path ? path : strdup(spec);
}

/* Check the provider struct the entry point returned, and copy it. */
static int slot_check(struct symprov_slot *slot,
		      const struct symprov_provider *p)
{
	if (!p)
		return slot_fail(slot, "%s() returned NULL",
				 SYMPROV_ENTRY_SYMBOL);
	if (p->size < offsetof(struct symprov_provider, reserved0))
		return slot_fail(slot, "provider struct size %u is too small",
				 p->size);
	if (p->reserved0)
		return slot_fail(slot, "provider struct reserved0 is not zero");
	if (p->abi_major != SYMPROV_ABI_MAJOR)
		return slot_fail(slot,
				 "ABI version %u.%u, this %s supports %u.x",
				 p->abi_major, p->abi_minor,
				 slot->loader->host.name ?: "host",
				 SYMPROV_ABI_MAJOR);
	if (p->size < SYMPROV_PROVIDER_MIN_SIZE ||
	    p->size > SYMPROV_STRUCT_MAX_SIZE)
		return slot_fail(slot, "provider struct size %u is not valid",
				 p->size);
	if (symprov_copy_struct(&slot->prov, sizeof(slot->prov), p, p->size))
		return slot_fail(
			slot,
			"provider struct has fields this host does not know (size %u)",
			p->size);
	if (!slot->prov.find)
		return slot_fail(slot, "provider has no find() function");
	return 0;
}

static bool slot_is_duplicate(struct symprov_slot *slot)
{
	struct symprov_loader *loader = slot->loader;
	int i;

	for (i = 0; i < slot->idx; i++) {
		if (loader->slots[i].handle == slot->handle) {
			slot_fail(slot, "same provider as entry %d ('%s')",
				  i + 1, loader->slots[i].spec);
			return true;
		}
	}
	return false;
}

/* e_ident and e_machine of an ELF file, or -1. */
static int elf_machine_of(const char *path, unsigned char ident[EI_NIDENT],
			  uint16_t *machine)
{
	unsigned char hdr[EI_NIDENT + 4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, hdr, sizeof(hdr));
	close(fd);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, ELFMAG, SELFMAG) != 0)
		return -1;
	memcpy(ident, hdr, EI_NIDENT);
	/* e_machine follows e_type, in the file's byte order */
	if (hdr[EI_DATA] == ELFDATA2LSB)
		*machine = (uint16_t)(hdr[EI_NIDENT + 2] | hdr[EI_NIDENT + 3]
								   << 8);
	else
		*machine = (uint16_t)(hdr[EI_NIDENT + 2] << 8 |
				      hdr[EI_NIDENT + 3]);
	return 0;
}

/*
 * glibc says "No such file or directory" for an ELF file built for
 * another machine: say what it is, comparing it with this program.
 */
static int slot_fail_dlopen(struct symprov_slot *slot, const char *err)
{
	unsigned char ident[EI_NIDENT], self_ident[EI_NIDENT];
	uint16_t machine, self_machine;

	if (elf_machine_of(slot->path, ident, &machine) == 0 &&
	    elf_machine_of("/proc/self/exe", self_ident, &self_machine) == 0 &&
	    (ident[EI_CLASS] != self_ident[EI_CLASS] ||
	     ident[EI_DATA] != self_ident[EI_DATA] || machine != self_machine))
		return slot_fail(
			slot,
			"ELF file for another machine (e_machine %u, %d-bit; this is e_machine %u, %d-bit)",
			machine, ident[EI_CLASS] == ELFCLASS64 ? 64 : 32,
			self_machine,
			self_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32);
	return slot_fail(slot, "%s", err);
}

static int slot_load(struct symprov_slot *slot)
{
	struct symprov_loader *loader = slot->loader;
	symprov_entry_fn entry;

	slot->path = slot_resolve(loader, slot->spec);
	if (!slot->path)
		return slot_fail(slot, "out of memory");
	slot->info.path = slot->path;

	slot->handle = dlopen(slot->path, SYMPROV_DLOPEN_FLAGS);
	if (!slot->handle)
		return slot_fail_dlopen(slot, dlerror());
	if (slot_is_duplicate(slot))
		return -1;

	*(void **)&entry = dlsym(slot->handle, SYMPROV_ENTRY_SYMBOL);
	if (!entry)
		return slot_fail(slot, "no %s symbol: not a symbol provider",
				 SYMPROV_ENTRY_SYMBOL);
	if (slot_check(slot, entry()))
		return -1;

	slot->info.name = slot->prov.name ?: slot->spec;
	slot->info.version = slot->prov.version ?: "";
	slot->info.description = slot->prov.description ?: "";
	slot->info.abi_major = slot->prov.abi_major;
	slot->info.abi_minor = slot->prov.abi_minor;

	slot->host = (struct symprov_host){
		.size = sizeof(struct symprov_host),
		.flags = loader->host.flags |
			 (getauxval(AT_SECURE) ? SYMPROV_HOST_SECURE : 0),
		.host_name = loader->host.name,
		.data = slot,
		.log = slot_log,
		.config = slot_config,
		.progress = slot_progress,
	};
	if (slot->prov.init) {
		int err = slot->prov.init(&slot->host, &slot->state);

		if (err) {
			const char *name = slot->info.name;

			slot->info.name = NULL;
			return slot_fail(slot, "%s: init failed: %s", name,
					 strerror(err < 0 ? -err : err));
		}
	}
	loader->nr_loaded++;
	return 0;
}

static void loader_add_entry(const char *entry, size_t len, int verdict,
			     void *arg)
{
	struct symprov_loader *loader = arg;
	struct symprov_slot *slot = &loader->slots[loader->nr_slots];

	/* "a::b", a trailing ':': one warning for the whole list. */
	if (verdict == SYMPROV_ENTRY_EMPTY) {
		if (!loader->warned_empty)
			loader_log(
				&loader->host, SYMPROV_LOG_WARN,
				"symbol provider list has empty entries, ignored");
		loader->warned_empty = true;
		return;
	}

	slot->loader = loader;
	slot->idx = (int)loader->nr_slots++;
	if (verdict != SYMPROV_ENTRY_OK) {
		slot->spec = strndup(entry, len > 64 ? 64 : len);
		if (slot->spec && len > 64)
			slot->spec[61] = slot->spec[62] = slot->spec[63] = '.';
		if (!slot->spec)
			slot->spec = strdup("?");
		slot->info.spec = slot->spec;
		slot_fail(slot, "%s", symprov_list_verdict_str(verdict));
		return;
	}
	slot->spec = strndup(entry, len);
	slot->info.spec = slot->spec ?: "?";
	if (!slot->spec) {
		slot_fail(slot, "out of memory");
		return;
	}
	slot_load(slot);
}

static void count_entry(const char *entry, size_t len, int verdict, void *arg)
{
	(void)entry;
	(void)len;
	(void)verdict;
	++*(size_t *)arg;
}

struct symprov_loader *
symprov_loader_new(const char *list, const char *provider_dirs,
		   const struct symprov_loader_host *host)
{
	struct symprov_loader *loader = calloc(1, sizeof(*loader));
	size_t nr = 0;

	if (!loader)
		return NULL;
	loader->host = *host;
	if (symprov_memo_init(&loader->session,
			      SYMPROV_MEMO_KEEP(SYMPROV_FOUND) |
				      SYMPROV_MEMO_KEEP(SYMPROV_NOT_FOUND) |
				      SYMPROV_MEMO_KEEP(SYMPROV_UNAVAILABLE) |
				      SYMPROV_MEMO_KEEP(SYMPROV_DISABLED) |
				      SYMPROV_MEMO_KEEP(SYMPROV_CANCELLED))) {
		free(loader);
		return NULL;
	}
	if (provider_dirs) {
		loader->provider_dirs = strdup(provider_dirs);
		if (!loader->provider_dirs)
			goto out_free;
	}
	symprov_list_split(list, SYMPROV_LIST_SEP, count_entry, &nr);
	if (nr) {
		loader->slots = calloc(nr, sizeof(*loader->slots));
		if (!loader->slots)
			goto out_free;
		symprov_list_split(list, SYMPROV_LIST_SEP, loader_add_entry,
				   loader);
	}
	return loader;

out_free:
	symprov_memo_fini(&loader->session);
	free(loader->provider_dirs);
	free(loader);
	return NULL;
}

void symprov_loader_delete(struct symprov_loader *loader)
{
	size_t i;

	if (!loader)
		return;
	for (i = 0; i < loader->nr_slots; i++) {
		struct symprov_slot *slot = &loader->slots[i];

		if (slot->handle) {
			if (slot->prov.fini)
				slot->prov.fini(slot->state);
			dlclose(slot->handle);
		}
		free(slot->spec);
		free(slot->path);
		free(slot->error);
	}
	free(loader->slots);
	free(loader->provider_dirs);
	symprov_memo_fini(&loader->session);
	free(loader);
}

size_t symprov_loader_nr_entries(const struct symprov_loader *loader)
{
	return loader->nr_slots;
}

const struct symprov_entry_info *
symprov_loader_entry(const struct symprov_loader *loader, size_t idx)
{
	return idx < loader->nr_slots ? &loader->slots[idx].info : NULL;
}

size_t symprov_loader_nr_providers(const struct symprov_loader *loader)
{
	return loader->nr_loaded;
}

bool symprov_loader_stopped(const struct symprov_loader *loader)
{
	return __atomic_load_n(&loader->stopped, __ATOMIC_ACQUIRE);
}

const char *symprov_status_str(int status)
{
	switch (status) {
	case SYMPROV_FOUND:
		return "found";
	case SYMPROV_NOT_FOUND:
		return "not found";
	case SYMPROV_UNAVAILABLE:
		return "unavailable";
	case SYMPROV_DISABLED:
		return "disabled";
	case SYMPROV_CANCELLED:
		return "cancelled";
	default:
		return "invalid status";
	}
}

/*
 * A file a provider found is not taken on its word: it must be a readable
 * regular file with the build ID asked for, sound for a host to read and
 * of the kind asked for (symprov_verify_kind()).  A third-party provider
 * may check nothing, a damaged file crashes perf, and a module's or a
 * program's debug file names wrong symbols.  Otherwise one warning naming
 * the provider, the file, why and the build ID, and a negative errno:
 * the answer's detail.
 */
static int slot_verify(const struct symprov_slot *slot,
		       const struct symprov_request *req, const char *path)
{
	const struct symprov_loader_host *host = &slot->loader->host;
	/* no wait on a FIFO, no controlling terminal from a device */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	const char *why = NULL;
	struct stat st;

	if (fd < 0) {
		int err = -errno;

		loader_log(host, SYMPROV_LOG_WARN,
			   "symbol provider '%s' returned %s: %s",
			   slot->info.name, path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (!symprov_verify_kind(fd, req->kind, req->build_id,
				      req->build_id_len, &why))
		why = NULL;
	if (why) {
		char hex[SYMPROV_BUILD_ID_HEX_MAX];

		loader_log(host, SYMPROV_LOG_WARN,
			   "%s supplied %s, rejected (%s), build ID %s",
			   slot->info.name, path, why,
			   symprov_build_id_hex(req->build_id,
						req->build_id_len, hex));
	}
	close(fd);
	return why ? -EBADMSG : 0;
}

/*
 * A FOUND answer of @slot: 0 when it may be used, else a negative errno,
 * said once: -EPROTO for an answer the ABI does not allow, the check's
 * (slot_verify()) for a file that is not what was asked for.
 */
static int slot_check_found(const struct symprov_slot *slot,
			    const struct symprov_request *req,
			    const struct symprov_result *res)
{
	const struct symprov_loader_host *host = &slot->loader->host;

	if (!res->path || !*res->path) {
		loader_log(host, SYMPROV_LOG_WARN,
			   "symbol provider '%s' returned found without a path",
			   slot->info.name);
		return -EPROTO;
	}
	if (res->content != SYMPROV_CONTENT_FULL &&
	    (!SYMPROV_HAS(req, content) || res->content != req->content ||
	     !symprov_kind_has_symbols_only(req->kind))) {
		loader_log(
			host, SYMPROV_LOG_WARN,
			"symbol provider '%s' returned %s with content %u, not what was asked for",
			slot->info.name, res->path, res->content);
		return -EPROTO;
	}
	return slot_verify(slot, req, res->path);
}

/*
 * Ask one provider; anything odd it returns becomes UNAVAILABLE, also the
 * symbols only of what is neither a kernel nor a module (symprov.h: the
 * whole file).  A provider of ABI 1.0 knows no content field: it gets an
 * ABI 1.0 request, for the whole file, which is what it returns.  Others
 * get the host's request as it is, whatever its size.
 */
static int slot_find(struct symprov_slot *slot,
		     const struct symprov_request *host_req,
		     struct symprov_answer *ans, int *err)
{
	const size_t v1_0 = offsetof(struct symprov_request, content);
	const struct symprov_loader_host *host = &slot->loader->host;
	struct symprov_result res = { .size = sizeof(res) };
	const struct symprov_request *req = host_req;
	struct symprov_request old = { 0 };
	int status, bad;

	if (slot->prov.abi_minor < 1 && host_req->size > v1_0) {
		memcpy(&old, host_req, v1_0);
		old.size = (uint32_t)v1_0;
		req = &old;
	}
	status = slot->prov.find(slot->state, req, &res);

	switch (status) {
	case SYMPROV_FOUND:
		bad = slot_check_found(slot, req, &res);
		if (!bad) {
			ans->path = res.path;
			ans->content = res.content;
			ans->source = slot->info.name;
			return status;
		}
		status = SYMPROV_UNAVAILABLE;
		/* the file's fault: its detail, positive as from a provider */
		if (bad != -EPROTO)
			res.error = -bad;
		break;
	case SYMPROV_NOT_FOUND:
	case SYMPROV_UNAVAILABLE:
	case SYMPROV_DISABLED:
	case SYMPROV_CANCELLED:
		break;
	default:
		loader_log(host, SYMPROV_LOG_WARN,
			   "symbol provider '%s' returned unknown status %d",
			   slot->info.name, status);
		status = SYMPROV_UNAVAILABLE;
	}
	free(res.path);
	/* the ABI's positive errno, negative from here on */
	*err = res.error > 0 ? -res.error : 0;
	loader_log(host, SYMPROV_LOG_INFO, "symbol provider '%s': %s%s%s",
		   slot->info.name, symprov_status_str(status),
		   res.error ? ": " : "", res.error ? strerror(res.error) : "");
	return status;
}

/* How much a status says: the overall answer is the strongest one. */
static int status_rank(int status)
{
	switch (status) {
	case SYMPROV_UNAVAILABLE:
		return 2;
	case SYMPROV_NOT_FOUND:
		return 1;
	default:
		return 0;
	}
}

/*
 * A provider failed: its answer becomes the overall one when it is the
 * first or says more (status_rank()), and ans names it and its detail.
 */
static int loader_note_failure(const struct symprov_slot *slot, int status,
			       int err, int overall,
			       struct symprov_answer *ans)
{
	if (ans->source && status_rank(status) <= status_rank(overall))
		return overall;
	ans->source = slot->info.name;
	ans->err = err;
	return status;
}

/* Ask the providers in order, as symprov_loader_find() says. */
static int loader_ask(struct symprov_loader *loader,
		      const struct symprov_request *req,
		      struct symprov_answer *ans)
{
	int overall = SYMPROV_DISABLED;
	size_t i;

	for (i = 0; i < loader->nr_slots; i++) {
		struct symprov_slot *slot = &loader->slots[i];
		int status, err = 0;

		if (!slot->handle)
			continue;
		if (symprov_loader_stopped(loader))
			return SYMPROV_CANCELLED;
		status = slot_find(slot, req, ans, &err);
		if (status == SYMPROV_FOUND)
			ans->err = 0;
		if (status == SYMPROV_FOUND || status == SYMPROV_CANCELLED)
			return status;
		overall =
			loader_note_failure(slot, status, err, overall, ans);
	}
	return overall;
}

int symprov_loader_find(struct symprov_loader *loader,
			const struct symprov_request *req,
			struct symprov_answer *ans)
{
	struct symprov_memo_key key;

	memset(ans, 0, sizeof(*ans));
	if (symprov_request_check(req, NULL)) {
		loader_log(&loader->host, SYMPROV_LOG_ERROR,
			   "invalid symbol provider request");
		ans->status = SYMPROV_UNAVAILABLE;
		goto out;
	}
	ans->status = SYMPROV_DISABLED;
	if (!loader->nr_loaded)
		goto out;
	ans->status = SYMPROV_CANCELLED;
	if (symprov_loader_stopped(loader))
		goto out;

	/* The whole file, found earlier in the session, serves any need. */
	symprov_memo_key_of(&key, req, SYMPROV_CONTENT_FULL);
	if (SYMPROV_HAS(req, content) && req->content != SYMPROV_CONTENT_FULL &&
	    symprov_memo_peek_found(&loader->session, &key, ans))
		goto out;
	if (SYMPROV_HAS(req, content))
		key.content = req->content;

	/* Threads asking for the same build ID wait for one answer. */
	switch (symprov_memo_begin(&loader->session, &key, NULL, NULL, ans)) {
	case SYMPROV_MEMO_ANSWER:
		break;
	case SYMPROV_MEMO_ALONE:
		ans->status = loader_ask(loader, req, ans);
		break;
	default:
		ans->status = loader_ask(loader, req, ans);
		symprov_memo_end(&loader->session, &key, ans);
		break;
	}
out:
	return ans->status;
}
