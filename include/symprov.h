/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * symprov.h: ABI for symbol providers.  A provider of any licence,
 * proprietary included, may include it, under the BSD-2-Clause terms.
 *
 * A symbol provider is a shared object that a host (perf, the symprov
 * command) loads with dlopen() when it has no local file for a build ID,
 * e.g. the vmlinux of a kernel that is no longer installed.  The host asks
 * each provider in turn; the first one that returns SYMPROV_FOUND wins.
 *
 * This header is the whole contract.  A provider:
 *
 *   - includes this header and exports exactly one symbol,
 *     SYMPROV_ENTRY_SYMBOL, a function of type symprov_entry_fn returning
 *     a pointer to a static struct symprov_provider;
 *   - fills .size with sizeof(struct symprov_provider) and .abi_major with
 *     SYMPROV_ABI_MAJOR, as compiled against this header;
 *   - implements find(), and optionally init() and fini().
 *
 * Versioning.  SYMPROV_ABI_MAJOR changes only when the meaning of an
 * existing field changes; the host refuses a provider with another major
 * version.  Everything else grows by appending fields at the end of a
 * struct, and SYMPROV_ABI_MINOR counts those additions.  Every struct that
 * crosses the boundary starts with a uint32_t size, set by whoever
 * allocated it to the sizeof() it was built with.  The reader of a struct
 * of a different size:
 *
 *   - shorter than its own: reads the missing fields as zero;
 *   - longer than its own: accepts it only if the unknown tail is all
 *     zero bytes, and refuses it otherwise (it cannot know what it means).
 *
 * symprov_copy_struct() below does exactly that; SYMPROV_HAS() tests
 * whether a field is inside a struct of a given size.  Zero is always the
 * "not set" value of a new field, so that an older peer behaves as before:
 * a provider that sets a field added in a later minor version is refused
 * by older hosts, so leave such fields zero unless that is the intent.
 * Zero-initialize every struct you pass (= { ... } or memset()), padding
 * included.
 *
 *   ABI 1.0: the structs below, up to the fields marked "ABI 1.1".
 *   ABI 1.1: symprov_request.content and symprov_result.content: a host
 *            may ask for the symbols only (enum symprov_content).
 *
 * Memory.  Strings the host hands over (request hints, config values, the
 * host struct) stay valid for as long as documented next to each field;
 * copy them to keep them longer.  The one thing a provider hands back is
 * symprov_result.path: allocate it with malloc() (strdup() is fine); the
 * host owns it from then on and releases it with free().
 *
 * Threads.  The host may call find() from several threads at once, also
 * with the same build ID, so find() must be thread-safe.  init() is called
 * once, before any find(); fini() once, after every find() has returned.
 * The host services (struct symprov_host) may be called from any thread
 * and at any time between init() and the return of fini().
 *
 * A provider must not call exit(), install signal handlers, change the
 * process' environment or write to stdout: it runs inside the host (the
 * debuginfod provider overwrites DEBUGINFOD_URLS while a server is down,
 * libdebuginfod's only list of servers: symprov-provider(7)).  When
 * the host runs with elevated privileges (SYMPROV_HOST_SECURE), the
 * environment belongs to the user: take no setting, path or URL from it.
 *
 * Return only a file that carries the build ID asked for and is what its
 * kind says (enum symprov_kind).  Hosts check, before they use it: the
 * loader (perf's and symprov's) that the file is a regular one with that
 * build ID, the tables perf reads sound, and of the kind asked for.
 *
 * Minimal provider:
 *
 *	#include <stdlib.h>
 *	#include <symprov.h>
 *
 *	static int my_find(void *state, const struct symprov_request *req,
 *			   struct symprov_result *res)
 *	{
 *		if (req->kind != SYMPROV_KIND_KERNEL)
 *			return SYMPROV_DISABLED;	// not served here
 *		// a real provider looks req->build_id up
 *		res->path = strdup("/srv/vmlinux");	// the host frees it
 *		return res->path ? SYMPROV_FOUND : SYMPROV_UNAVAILABLE;
 *	}
 *
 *	static const struct symprov_provider my_provider = {
 *		.size = sizeof(struct symprov_provider),
 *		.abi_major = SYMPROV_ABI_MAJOR,
 *		.abi_minor = SYMPROV_ABI_MINOR,
 *		.name = "mine",
 *		.version = "1.0",
 *		.description = "vmlinux from /srv",
 *		.find = my_find,
 *	};
 *
 *	SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void)
 *	{
 *		return &my_provider;
 *	}
 *
 * Build it with: cc -shared -fPIC -o libmine.so mine.c
 */
#ifndef SYMPROV_H
#define SYMPROV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SYMPROV_ABI_MAJOR 1
#define SYMPROV_ABI_MINOR 1

/* The one symbol a provider exports, and its type. */
#define SYMPROV_ENTRY_SYMBOL "symprov_provider_entry"

#define SYMPROV_EXPORT __attribute__((visibility("default")))

/*
 * Largest struct size a reader looks at: a bigger size field is treated
 * as corrupt rather than scanned for a zero tail.
 */
#define SYMPROV_STRUCT_MAX_SIZE 4096

/*
 * What is asked for, and what a provider returns for it; the host's loader
 * refuses another file.  Only a kernel and a kernel module come as the
 * symbols only (SYMPROV_CONTENT_SYMBOLS): for the other kinds a provider
 * returns the whole file, content SYMPROV_CONTENT_FULL, whatever the
 * request's content.  New kinds are appended.
 */
enum symprov_kind {
	/*
	 * The vmlinux (ELF with symbols) of a kernel: its debuginfo, the
	 * image, or a symbols-only file.
	 */
	SYMPROV_KIND_KERNEL = 1,
	/*
	 * A kernel module (.ko) with symbols: the relocatable object
	 * (ET_REL) with its symbol table and the data of its code sections,
	 * e.g. the unstripped .ko of a debug package.  Not a debug-only copy
	 * (objcopy --only-keep-debug: code sections SHT_NOBITS, offsets
	 * moved): perf places a module's symbols by the file offsets of its
	 * sections.
	 */
	SYMPROV_KIND_KERNEL_MODULE = 2,
	/*
	 * Separate debug info of a user-space object: an ET_EXEC, ET_DYN or
	 * ET_REL file with a symbol table (.symtab), e.g. a debug package's
	 * .debug file (its code may have no data) or the unstripped object.
	 */
	SYMPROV_KIND_DEBUGINFO = 3,
	/*
	 * A user-space executable or shared object: the runtime object
	 * (ET_EXEC, ET_DYN), stripped or not, whose executable segments and
	 * sections have their data; never its separate debug file (perf
	 * reads the PLT and its relocations from it).
	 */
	SYMPROV_KIND_EXECUTABLE = 4,
};

/*
 * The answer of find().  Anything else is treated by the host as
 * SYMPROV_UNAVAILABLE, with a warning.  A kind the provider does not
 * serve is SYMPROV_DISABLED.
 */
enum symprov_status {
	/* res->path names a readable file with the requested build ID */
	SYMPROV_FOUND = 0,
	/* authoritative miss: asking again will not help */
	SYMPROV_NOT_FOUND = 1,
	/* transient failure: network, timeout, server error, bad file */
	SYMPROV_UNAVAILABLE = 2,
	/* this provider is opted out (configuration, host flags) */
	SYMPROV_DISABLED = 3,
	/* the host's progress callback asked to stop this request */
	SYMPROV_CANCELLED = 4,
};

/*
 * What of the file the host needs (ABI 1.1, symprov_request.content) and
 * what a found file holds (symprov_result.content).  New values are
 * appended.
 */
enum symprov_content {
	/*
	 * The whole file as built: code, DWARF, symbols.  What an ABI 1.0
	 * host asks for and an ABI 1.0 provider returns.
	 */
	SYMPROV_CONTENT_FULL = 0,
	/*
	 * What a host that looks symbols up by address needs (perf report,
	 * perf script).  For a kernel (SYMPROV_KIND_KERNEL): an ELF file of
	 * the full file's class and byte order
	 * with its build-ID note and its symbol table (.symtab and its
	 * string table) as they are in the full file, and, at the full
	 * file's index, a section header for every section a symbol is in,
	 * with the full file's name, address and SHF_ALLOC flag and a size
	 * that covers every symbol that lies in it and is not larger than
	 * the full file's.  Anything else may differ or be missing: the
	 * data of the other sections (SHT_NOBITS), section flags but
	 * SHF_ALLOC, file offsets and alignment, the ELF header's e_type
	 * (ET_EXEC) and e_machine (EM_NONE where every machine reads the
	 * symbols alike), program headers.  So a host finds the same symbol
	 * for every address inside one as in the full file; an address no
	 * symbol covers may be shown differently (perf prints it relative
	 * to its section's file offset).  A provider that cannot make one
	 * returns the whole file instead, and says so in
	 * symprov_result.content.
	 *
	 * For a kernel module (SYMPROV_KIND_KERNEL_MODULE), the same in a
	 * relocatable object (ET_REL) whose .text, not marked
	 * SHF_EXECINSTR, has no code section before it and may be at
	 * another file offset than in the full file: perf places the
	 * symbols of .text by its file offset and maps it from there, and
	 * maps the code sections that follow it by their offsets from it
	 * (those between it and the first .init.text or .exit.text).
	 * Those with functions are kept with their data at the full file's
	 * offsets from .text, SHF_EXECINSTR (x86's static-call
	 * trampolines); no other section is SHF_EXECINSTR.  Any
	 * other section may have no name and no SHF_ALLOC where the tables
	 * do not tell its name: perf places the symbols of those sections at
	 * no address a sample of the module has.  A module whose code
	 * sections mapped with .text cannot be so kept comes whole.  Hosts
	 * before this rule never ask for a module's symbols only; a provider
	 * that does not know it returns the whole module, as before.
	 *
	 * For every other kind the symbols only are the whole file, content
	 * SYMPROV_CONTENT_FULL: perf reads a user-space object's PLT and
	 * program headers besides its symbol tables.
	 */
	SYMPROV_CONTENT_SYMBOLS = 1,
};

/* Longest build ID, in bytes (SHA-256). */
#define SYMPROV_BUILD_ID_MAX 32

struct symprov_request {
	uint32_t size; /* sizeof(struct symprov_request) of the host */
	uint32_t kind; /* enum symprov_kind */
	/* the build ID bytes, 1 to SYMPROV_BUILD_ID_MAX of them */
	const unsigned char *build_id;
	uint32_t build_id_len;
	uint32_t reserved0; /* padding: zero, ignored */
	/*
	 * Optional hint, may be NULL: the host's name for the object, e.g.
	 * "[kernel.kallsyms]" or "/usr/lib/libc.so.6".  Never needed to
	 * answer; useful in log messages.
	 */
	const char *dso_name;
	/*
	 * ABI 1.1: what the host needs of the file, an enum
	 * symprov_content.  SYMPROV_CONTENT_FULL (0, also from a 1.0 host)
	 * asks for the whole file.  The host's loader only sends a provider
	 * of ABI 1.0 requests for the whole file.
	 */
	uint32_t content;
	/* Everything here is valid until find() returns. */
};

struct symprov_result {
	uint32_t size; /* sizeof(struct symprov_result) of the host */
	/*
	 * Optional detail of a failure: a positive errno value (ETIME,
	 * ECONNREFUSED, EIO...), for the host's log.  0 if none.
	 */
	int32_t error;
	/*
	 * SYMPROV_FOUND only: the file, allocated with malloc().  The host
	 * takes ownership and frees it with free().  Leave NULL otherwise;
	 * the host frees and ignores a path that comes with another status.
	 */
	char *path;
	/*
	 * ABI 1.1, SYMPROV_FOUND only: what the file holds, an enum
	 * symprov_content.  Leave it SYMPROV_CONTENT_FULL (0) for the whole
	 * file, e.g. when one is at hand anyway; SYMPROV_CONTENT_SYMBOLS only
	 * for a kernel or a module whose request asked for it: the host
	 * refuses it otherwise.
	 */
	uint32_t content;
};

/* enum symprov_log_level: mapped onto the host's own levels. */
enum symprov_log_level {
	SYMPROV_LOG_ERROR = 0, /* perf: pr_err */
	SYMPROV_LOG_WARN = 1, /* perf: pr_warning */
	SYMPROV_LOG_INFO = 2, /* perf: pr_debug (-v) */
	SYMPROV_LOG_DEBUG = 3, /* perf: pr_debug2 (-vv) */
};

/* symprov_host.flags */
/* The user opted out of debuginfod: perf --no-debuginfod,
 * core.debuginfod=false, symprov --no-debuginfod. */
#define SYMPROV_HOST_NO_DEBUGINFOD (1U << 0)
/* The build-id cache is off: perf buildid.dir=/dev/null, symprov
 * --no-cache.  A provider must neither read nor write a local cache of
 * debug files, and network providers treat it as an opt-out too. */
#define SYMPROV_HOST_NO_BUILDID_CACHE (1U << 1)
/* The host runs with elevated privileges (AT_SECURE: setuid, setgid, file
 * capabilities), set by the host's loader itself.  Its environment is the
 * user's: a provider must not take settings from it, only from config(). */
#define SYMPROV_HOST_SECURE (1U << 2)

/* Return values of symprov_host.progress() */
enum symprov_progress_action {
	SYMPROV_PROGRESS_CONTINUE = 0,
	/* abandon this request: find() returns SYMPROV_CANCELLED */
	SYMPROV_PROGRESS_SKIP = 1,
	/* abandon this request and every later one of this session */
	SYMPROV_PROGRESS_STOP = 2,
};

/*
 * Services of the host, handed to init().  The struct and everything it
 * points to stay valid until fini() returns.  Check the host's size with
 * SYMPROV_HAS() before reading a field added after ABI 1.0, or copy it
 * with symprov_copy_struct().  Every function pointer may be NULL.
 */
struct symprov_host {
	uint32_t size; /* sizeof(struct symprov_host) of the host */
	uint32_t flags; /* SYMPROV_HOST_* */
	/* the host program, e.g. "perf" or "symprov" */
	const char *host_name;
	/* passed back as first argument of every service below */
	void *data;
	/*
	 * Log a line (no trailing newline needed).  The host prefixes it
	 * with the provider's name and decides what is shown.
	 */
	void (*log)(void *data, int level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
	/*
	 * Look up a configuration value by key: the host's own keys (perf:
	 * "core.debuginfod", "buildid.dir") and provider keys, by convention
	 * "symprov.<provider-name>.<key>".  Returns NULL when unset.  The
	 * string stays valid until fini() returns.
	 */
	const char *(*config)(void *data, const char *key);
	/*
	 * Report progress of a long request, e.g. a download: @done of
	 * @total bytes, @total 0 when unknown.  Call it at least once a
	 * second while a request waits; 0 of 0 while no byte has come yet
	 * (a server preparing the file, e.g. extracting it from a package).  The return value is an enum
	 * symprov_progress_action; on anything but CONTINUE stop the
	 * request and return SYMPROV_CANCELLED.  @req is the request being
	 * served, as passed to find().
	 */
	int (*progress)(void *data, const struct symprov_request *req,
			uint64_t done, uint64_t total);
};

struct symprov_provider {
	uint32_t size; /* sizeof(struct symprov_provider) */
	uint32_t abi_major; /* SYMPROV_ABI_MAJOR */
	/*
	 * SYMPROV_ABI_MINOR: tells the host which request fields the
	 * provider knows (a 1.0 provider gets no content request).
	 */
	uint32_t abi_minor;
	uint32_t reserved0; /* zero: the host refuses a provider otherwise */
	/* short name, version and one-line description: "symprov list" */
	const char *name;
	const char *version;
	const char *description;
	/*
	 * Optional.  Set up, read configuration; *state is passed to find()
	 * and fini().  Return 0, or a negative errno value to refuse to load
	 * (after logging why through host->log): then fini() is not called,
	 * so release what init() got before returning.  @host stays valid
	 * until fini() returns.
	 */
	int (*init)(const struct symprov_host *host, void **state);
	/*
	 * Required.  Look for the object @req describes.  On SYMPROV_FOUND
	 * set res->path (see struct symprov_result).  Only write fields of
	 * @res that SYMPROV_HAS(res, field) says are there.  Thread-safe.
	 * Returns an enum symprov_status.
	 */
	int (*find)(void *state, const struct symprov_request *req,
		    struct symprov_result *res);
	/* Optional.  Release what init() set up. */
	void (*fini)(void *state);
};

/* The entry point a provider exports as SYMPROV_ENTRY_SYMBOL. */
typedef const struct symprov_provider *(*symprov_entry_fn)(void);
SYMPROV_EXPORT const struct symprov_provider *symprov_provider_entry(void);

/* The struct at @ptr (its size field read) holds @field. */
#define SYMPROV_HAS(ptr, field) \
	((ptr)->size >=         \
	 offsetof(__typeof__(*(ptr)), field) + sizeof((ptr)->field))

/*
 * Copy a peer's struct of @src_size bytes into our @dst of @dst_size
 * bytes: zero-extend a shorter one, accept a longer one only if its
 * unknown tail is zero.  Returns 0, or -1 (and leaves @dst zeroed) when
 * the sizes are nonsense or the tail is not zero.  dst->size is left as
 * the peer's size.
 */
static inline int symprov_copy_struct(void *dst, size_t dst_size,
				      const void *src, size_t src_size)
{
	const unsigned char *tail = (const unsigned char *)src + dst_size;
	size_t i;

	memset(dst, 0, dst_size);
	if (src_size < sizeof(uint32_t) || src_size > SYMPROV_STRUCT_MAX_SIZE)
		return -1;
	for (i = 0; dst_size + i < src_size; i++) {
		if (tail[i])
			return -1;
	}
	memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* SYMPROV_H */
