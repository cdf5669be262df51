/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Host side of the symbol provider ABI: parse the provider list, dlopen
 * and check each provider, and ask them in order.  Inside libsymprov: a
 * session (symprov_session.c) is its host.
 */
#ifndef SYMPROV_LOADER_H
#define SYMPROV_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libsymprov.h"
#include "symprov_memo.h"

/* What the host program gives the loader. */
struct symprov_loader_host {
	const char *name; /* "perf", "symprov" */
	uint32_t flags; /* SYMPROV_HOST_* */
	void *data; /* first argument of the callbacks */
	/*
	 * One formatted line, no trailing newline.  @provider is the name
	 * of the provider that logs it, NULL for the loader's own lines.
	 */
	void (*log)(void *data, int level, const char *provider,
		    const char *msg);
	/* Same contract as symprov_host.config; may be NULL. */
	const char *(*config)(void *data, const char *key);
	/* Same contract as symprov_host.progress; may be NULL. */
	int (*progress)(void *data, const char *provider,
			const struct symprov_request *req, uint64_t done,
			uint64_t total);
};

struct symprov_loader;

/*
 * The provider list from the environment variable @var, or NULL when it
 * is unset or empty.  When @secure (AT_SECURE: setuid, setgid, file
 * capabilities) it is ignored with one warning: a variable must not load
 * code into a privileged process.
 */
const char *symprov_list_from_env(const char *var, bool secure,
				  const struct symprov_loader_host *host);

/*
 * Load every provider of @list, in order.  Each entry with a '/' is a
 * path; a bare name is looked for in the directories of @provider_dirs, a
 * list separated by ':' (may be NULL), in order, then in the directory
 * providers are installed to (SYMPROV_LIBDIR/symprov, compiled in), then
 * by dlopen()'s own search.  A bad entry is logged (one warning naming it
 * and the reason) and skipped.  Returns NULL only when out of memory;
 * @list NULL or empty gives a loader with no providers, which loads and
 * asks nothing.  @host is copied.
 */
struct symprov_loader *
symprov_loader_new(const char *list, const char *provider_dirs,
		   const struct symprov_loader_host *host);
void symprov_loader_delete(struct symprov_loader *loader);

/* Number of list entries, loaded or not, and each one's description. */
size_t symprov_loader_nr_entries(const struct symprov_loader *loader);
const struct symprov_entry_info *
symprov_loader_entry(const struct symprov_loader *loader, size_t idx);
/* Number of providers that loaded. */
size_t symprov_loader_nr_providers(const struct symprov_loader *loader);

/*
 * Ask the providers in order until one finds the object, and return the
 * status, also in ans->status.  On SYMPROV_FOUND ans->path is a malloc()ed
 * path the caller frees, ans->content says whether it is the whole file
 * or the symbols only (never less than req->content asks for) and
 * ans->source names the provider.  The file is a regular one that
 * symprov_verify_kind() accepted for the kind and build ID asked for: one a
 * provider returns that is not gets a warning, and counts as that
 * provider's SYMPROV_UNAVAILABLE (detail -EBADMSG).  Otherwise the overall
 * status, with ans->source and ans->err the provider that gave it and its
 * detail (a negative errno, 0 if none): SYMPROV_CANCELLED when the
 * request was skipped or the session stopped, SYMPROV_UNAVAILABLE when
 * any provider failed transiently, SYMPROV_NOT_FOUND when at least one
 * provider gave an authoritative miss, SYMPROV_DISABLED when every
 * provider (or none) was disabled.
 *
 * The answer for a kind, content and build ID is remembered for the life
 * of the loader, the host's session: the providers are asked once (a FOUND
 * again if its file went away); a whole file found serves a later request
 * for the symbols only.  Thread-safe: threads asking for the same build ID
 * at once wait for one answer.
 */
int symprov_loader_find(struct symprov_loader *loader,
			const struct symprov_request *req,
			struct symprov_answer *ans);

/* The user asked (progress STOP) to stop asking for this session. */
bool symprov_loader_stopped(const struct symprov_loader *loader);


#endif /* SYMPROV_LOADER_H */
