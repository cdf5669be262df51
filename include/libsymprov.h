/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libsymprov.h: what a host program (perf, the symprov command, a site's
 * own tool) calls to ask symbol providers for the files of a build ID.
 * Link with -lsymprov (pkg-config symprov); the library is
 * libsymprov.so.1.  symprov.h, which this includes, is the other side:
 * the ABI of the providers themselves.
 *
 * A host makes one session (symprov_session_new()), gives it the
 * configuration the providers may read (symprov_session_set_config()),
 * loads the providers (symprov_session_load()) and asks:
 *
 *   - symprov_session_find(): one file, e.g. the vmlinux with a build ID;
 *   - symprov_session_prefetch(): the files of several objects, side by
 *     side, shown as one fetch;
 *   - symprov_session_known(): what the session found already, without
 *     asking anybody.
 *
 * What the library does for every host: it loads the providers of a list
 * ($PERF_SYMBOL_PROVIDERS, or the symprov.providers key), naming each bad
 * entry and why; it checks every file a provider returns before the host
 * reads it (the build ID, the ELF tables a host trusts, the kind asked
 * for: symprov_verify_file()); it asks for a build ID once a session, and
 * threads asking for the same one wait for one answer; it shows one fetch
 * at a time through the host's progress callback and passes the keys the
 * user pressed back to the providers.
 *
 * Conventions.  Functions return 0 or a negative errno value, or a
 * pointer that is NULL with errno set.  Every struct a host passes starts
 * with a uint32_t size set to its sizeof(): the size-and-zero-tail rule
 * of symprov.h, so that a host built against an older header keeps
 * working, and one that sets fields this library does not know is told
 * so (-EINVAL).  Zero-initialize them.  Strings passed in are copied.
 * Callbacks may come from any thread: log() and progress() one at a time
 * per session, a prefetch's answered() from each of its threads at once.
 *
 * Versions.  The library's symbols are tagged LIBSYMPROV_1.0 and later
 * LIBSYMPROV_1.x in its version script (1.1: symprov_session_read_keys(),
 * 1.2: symprov_session_note() and symprov_session_ask_noted());
 * nothing is ever removed or changed within libsymprov.so.1.
 */
#ifndef LIBSYMPROV_H
#define LIBSYMPROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symprov.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef LIBSYMPROV_API
#define LIBSYMPROV_API __attribute__((visibility("default")))
#endif

/* The variable a session reads the provider list from, as PATH */
#define SYMPROV_LIST_ENV "PERF_SYMBOL_PROVIDERS"
#define SYMPROV_LIST_SEP ':'

/* Configuration keys the library reads itself */
#define SYMPROV_CONFIG_PROVIDERS "symprov.providers"
/* "symbols" (the default) or "full": what is asked for of a kernel */
#define SYMPROV_CONFIG_CONTENT "symprov.content"
/* files fetched at once by symprov_session_prefetch(), 1 to 64, 4 */
#define SYMPROV_CONFIG_JOBS "symprov.jobs"

/* What a fetch looks like to the host, in symprov_session_opts.progress */
enum symprov_fetch_phase {
	SYMPROV_FETCH_BEGIN = 0, /* before the providers are asked */
	SYMPROV_FETCH_UPDATE = 1, /* bytes so far, at least once a second */
	SYMPROV_FETCH_END = 2, /* every provider answered */
};

struct symprov_progress {
	uint32_t size;
	uint32_t phase; /* enum symprov_fetch_phase */
	/* the provider that reports, NULL at BEGIN and END */
	const char *provider;
	/*
	 * What is fetched, for a person: "symbols of vmlinux 7f76f39faf07",
	 * "module xfs.ko 84cd32253bc7", "3 of 10 objects"
	 */
	const char *what;
	uint64_t done; /* bytes */
	uint64_t total; /* bytes, 0 when not known */
	bool many; /* a fetch of several files: symprov_session_prefetch() */
};

struct symprov_session_opts {
	uint32_t size; /* sizeof(struct symprov_session_opts) */
	uint32_t host_flags; /* SYMPROV_HOST_* opt-outs, for the providers */
	/* the host program, "perf": the providers see it */
	const char *host_name;
	/*
	 * The provider list, entries separated by ':'.  NULL:
	 * $PERF_SYMBOL_PROVIDERS, unless the program runs with elevated
	 * privileges (AT_SECURE), else the symprov.providers key.  Set to
	 * the empty string, the variable turns off the key's providers.
	 */
	const char *providers;
	/*
	 * Where a bare provider name is looked for, ':'-separated, before
	 * the directory the providers are installed in.  May be NULL.
	 */
	const char *provider_dirs;
	/* the first argument of the callbacks */
	void *data;
	/* one line, no newline; @provider NULL for the library's own */
	void (*log)(void *data, int level, const char *provider,
		    const char *msg);
	/*
	 * A fetch begins, goes on, ends.  Returns an enum
	 * symprov_progress_action: SKIP abandons this fetch, STOP this one
	 * and every later one of the session.  May be NULL.
	 */
	int (*progress)(void *data, const struct symprov_progress *p);
};

/* symprov_find_opts.flags */
/* The host needs a kernel's DWARF or code, not only its symbols */
#define SYMPROV_FIND_WHOLE (1U << 0)

/* One file to find */
struct symprov_find_opts {
	uint32_t size; /* sizeof(struct symprov_find_opts) */
	uint32_t kind; /* enum symprov_kind */
	const unsigned char *build_id;
	uint32_t build_id_len; /* 1 to SYMPROV_BUILD_ID_MAX */
	uint32_t flags; /* SYMPROV_FIND_* */
	/* the object's name in the profile: a hint, and for the messages */
	const char *dso_name;
};

/* The answer to a find */
struct symprov_answer {
	uint32_t size; /* set by the host: sizeof(struct symprov_answer) */
	int status; /* enum symprov_status */
	/*
	 * enum symprov_content: what the file holds; of another status,
	 * what was asked for
	 */
	uint32_t content;
	/* SYMPROV_FOUND: the file, malloc()ed: symprov_answer_fini() */
	char *path;
	/* who found it or, for another status, whose answer it is; or NULL */
	const char *source;
	/* a miss: that provider's detail as a negative errno (-ETIME), or 0 */
	int err;
	/* SYMPROV_CANCELLED: the SYMPROV_PROGRESS_* key that cancelled it */
	int action;
	/* the session's first answer to this request: the one to tell */
	bool first;
};

/* One entry of the list, loaded or not: what "symprov list" shows */
struct symprov_entry_info {
	const char *spec; /* the entry as written in the list */
	const char *path; /* what was dlopen()ed, NULL if not found */
	const char *error; /* why it did not load; NULL if it did */
	/* of a loaded provider, else NULL/0: */
	const char *name;
	const char *version;
	const char *description;
	uint32_t abi_major;
	uint32_t abi_minor;
};

/* An object of a profile, for symprov_session_prefetch() */
struct symprov_object {
	uint32_t kind; /* KERNEL, KERNEL_MODULE, EXECUTABLE or DEBUGINFO */
	uint32_t build_id_len;
	const unsigned char *build_id;
	const char *name; /* the dso's name, for the messages */
};

/* symprov_prefetch_opts.flags, besides SYMPROV_FIND_* */
/*
 * Each object for its kind alone: no debug file asked for after an
 * executable (the host lists the DEBUGINFO objects it wants)
 */
#define SYMPROV_PREFETCH_AS_LISTED (1U << 16)

struct symprov_prefetch_opts {
	uint32_t size; /* sizeof(struct symprov_prefetch_opts) */
	uint32_t flags; /* SYMPROV_FIND_*, SYMPROV_PREFETCH_* */
	/* files at once; 0: the symprov.jobs key, else 4 */
	uint32_t jobs;
	/*
	 * Each answer as it comes, from the thread that asked, for object
	 * @idx of the list: @req what was asked for (an executable's debug
	 * file is asked for after the executable was found).  May be NULL.
	 */
	void (*answered)(void *data, size_t idx,
			 const struct symprov_find_opts *req,
			 const struct symprov_answer *ans);
	void *data;
};

/* What a prefetch did */
struct symprov_prefetch_result {
	uint32_t size; /* sizeof(struct symprov_prefetch_result) */
	/* SYMPROV_PROGRESS_* key that ended it early, else CONTINUE */
	int action;
	uint64_t files; /* asked for */
	uint64_t found;
	uint64_t bytes; /* of the files found */
};

struct symprov_session;

/* LIBSYMPROV_1.0 */

/* A session; nothing is loaded yet.  NULL with errno set. */
LIBSYMPROV_API struct symprov_session *
symprov_session_new(const struct symprov_session_opts *opts);
/* Unload the providers; every path handed out stays the host's. */
LIBSYMPROV_API void symprov_session_free(struct symprov_session *s);

/*
 * Configuration the providers read through symprov_host.config(), and the
 * library's own SYMPROV_CONFIG_* keys: set it before the providers load.
 * A key set twice takes the later value.
 */
LIBSYMPROV_API int symprov_session_set_config(struct symprov_session *s,
					      const char *key,
					      const char *value);

/*
 * Load the providers of the list, once: a warning through log() for each
 * entry that did not load.  Returns how many loaded, or a negative errno.
 */
LIBSYMPROV_API int symprov_session_load(struct symprov_session *s);

/* Providers loaded, and the user did not stop them */
LIBSYMPROV_API bool symprov_session_active(struct symprov_session *s);

/* The entries of the list, once loaded */
LIBSYMPROV_API size_t symprov_session_nr_entries(struct symprov_session *s);
LIBSYMPROV_API const struct symprov_entry_info *
symprov_session_entry(struct symprov_session *s, size_t idx);

/*
 * Ask the providers, in order, for @req; the answer in @ans (its size set
 * by the caller).  A kernel's symbols only, unless SYMPROV_FIND_WHOLE or
 * symprov.content=full; the whole file of any other kind.  Shown through
 * the progress callback.  Returns 0 when found, else -ENOENT (not found),
 * -EIO (no provider could tell), -ENODEV (no provider), -ECANCELED (the
 * user skipped or stopped it), -EINVAL.
 */
LIBSYMPROV_API int symprov_session_find(struct symprov_session *s,
					const struct symprov_find_opts *req,
					struct symprov_answer *ans);

/*
 * Ask the providers with @req as it is, whatever its size: for a tool
 * that tests how a provider takes requests of older and newer hosts
 * (symprov check).  The file is checked as any other; not shown through
 * the progress callback.  Returns as symprov_session_find().
 */
LIBSYMPROV_API int symprov_session_request(struct symprov_session *s,
					   const struct symprov_request *req,
					   struct symprov_answer *ans);

/*
 * What an earlier find or prefetch of the session found for @req, in
 * @ans; asks nobody.  Returns 0, or -ENOENT.
 */
LIBSYMPROV_API int symprov_session_known(struct symprov_session *s,
					 const struct symprov_find_opts *req,
					 struct symprov_answer *ans);

/*
 * The content (enum symprov_content) of @path, a file this session
 * found, or -ENOENT: a kernel's symbols only are swapped for the whole
 * file when the host comes to need its code.
 */
LIBSYMPROV_API int symprov_session_content_of(struct symprov_session *s,
					      const char *path);

/*
 * Ask for the files of @objs side by side, shown as one fetch ("3 of 10
 * objects"; one object as the fetch of its file): a kernel's, a module,
 * an executable and then its debug file.  The answers are remembered: a
 * later symprov_session_find() of one gets it at once.  When the user
 * skips a fetch of several, later finds of objects other than kernels
 * are cancelled for the session (of one, that object's alone).  Returns
 * 0, or a negative errno; @res (may be NULL) says what it did.
 */
LIBSYMPROV_API int
symprov_session_prefetch(struct symprov_session *s,
			 const struct symprov_object *objs, size_t nr,
			 const struct symprov_prefetch_opts *opts,
			 struct symprov_prefetch_result *res);

/*
 * Stop every fetch of the session, now and later, as the STOP key does.
 * Async-signal-safe: for a SIGINT handler.
 */
LIBSYMPROV_API void symprov_session_cancel(struct symprov_session *s);

/* LIBSYMPROV_1.1 */

/*
 * Let the user stop fetches from terminal @fd (STDIN_FILENO, say), for a
 * host that reads no keys itself while a fetch runs: 's' skips the fetch,
 * 'd' stops the providers for the session, as the progress callback's
 * SYMPROV_PROGRESS_SKIP and _STOP do, and so do SIGINT and SIGTERM, which
 * then do what they did before (a handler of the host is called; a
 * default action ends the program, the terminal put back first).  During
 * the fetch alone @fd is in non-canonical mode without echo.  Nothing is
 * read when @fd is not a terminal as a fetch begins, nor by two fetches
 * of the process at once.  -1 turns it off.  Returns 0, or -EINVAL.
 */
LIBSYMPROV_API int symprov_session_read_keys(struct symprov_session *s, int fd);

/* Free what an answer holds; it can be used again */
LIBSYMPROV_API void symprov_answer_fini(struct symprov_answer *ans);

/*
 * The one line about @ans for a person, without "symprov: " or newline:
 * "debuginfod supplied the symbols only (7.8 MiB) of the vmlinux with
 * build ID 7f76...", "no provider supplied the module xfs.ko (debuginfod:
 * not found), build ID 84cd...".  Returns its length, as snprintf().
 */
LIBSYMPROV_API int symprov_answer_describe(char *buf, size_t size,
					   const struct symprov_find_opts *req,
					   const struct symprov_answer *ans);

/* "found", "not found"... of an enum symprov_status */
LIBSYMPROV_API const char *symprov_status_str(int status);

/*
 * The file check every provider's file gets: @fd is a regular file with
 * build ID @build_id, sound for a host to read and of @kind (a module an
 * ET_REL file with its code, an executable no debug-only file).  Returns
 * 0, or -EBADMSG with *@why set to the reason (a static string).
 */
LIBSYMPROV_API int symprov_verify_file(int fd, uint32_t kind,
				       const unsigned char *build_id,
				       size_t len, const char **why);

/* Room for the hex form of the longest build ID and its NUL */
#define SYMPROV_BUILD_ID_HEX_MAX (2 * SYMPROV_BUILD_ID_MAX + 1)

/*
 * A build ID typed by a user, 2 to 64 hex digits, into @out
 * (SYMPROV_BUILD_ID_MAX bytes).  Returns its length, or -EINVAL with
 * *@why set.
 */
LIBSYMPROV_API int symprov_build_id_parse(const char *hex, unsigned char *out,
					  const char **why);
/* Lowercase hex of @len bytes into @buf (SYMPROV_BUILD_ID_HEX_MAX) */
LIBSYMPROV_API char *symprov_build_id_hex(const unsigned char *id, size_t len,
					  char *buf);

/* LIBSYMPROV_1.2 */

/*
 * Note that the host misses @req (its kind, build ID and dso_name), to
 * ask for it later with symprov_session_ask_noted(): for a host that
 * finds out what it misses where it must not wait, under a lock of its
 * own.  Asks nobody, loads nothing; any thread.  Returns 1 while @req is
 * to be asked for (noted now or before), 0 once it was asked for, or a
 * negative errno.
 */
LIBSYMPROV_API int symprov_session_note(struct symprov_session *s,
					const struct symprov_find_opts *req);

/*
 * Ask for what was noted and not asked for yet, as
 * symprov_session_prefetch() asks for objects: all of it, or with
 * @build_id that of one object (its own fetch).  An executable's debug
 * file, noted with it, is asked for once the executable was found (with
 * SYMPROV_PREFETCH_AS_LISTED, each note for itself).  Returns as
 * symprov_session_prefetch(); options it refuses take no note.
 */
LIBSYMPROV_API int
symprov_session_ask_noted(struct symprov_session *s,
			  const unsigned char *build_id, uint32_t build_id_len,
			  const struct symprov_prefetch_opts *opts,
			  struct symprov_prefetch_result *res);

#ifdef __cplusplus
}
#endif

#endif /* LIBSYMPROV_H */
