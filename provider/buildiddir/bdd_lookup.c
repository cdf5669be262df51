// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Look a build ID up in local trees:
 *
 *   DIR/.build-id/xx/rest.debug   separate debug info (Debian, Fedora)
 *   DIR/.build-id/xx/rest         the object itself
 *   DIR/buildid/ID/debuginfo      a debuginfod server's URL layout
 *   DIR/buildid/ID/executable
 *
 * and, for a kernel or a kernel module none of these names, the index of
 * the files' notes (bdd_index.c).  Each kind gets only its own files:
 *
 *   kernel       rest.debug, debuginfo, rest, executable, the index
 *   module       rest.debug, debuginfo, the index
 *   debuginfo    rest.debug, debuginfo
 *   executable   rest, executable: never separate debug info
 *
 * A module is wanted as built, with its symbols and DWARF: a plain
 * .build-id link to one, where a distribution has it, names the installed
 * module, stripped of DWARF and usually compressed.
 *
 * Symlinks are followed wherever they lead: Fedora's .build-id links
 * point out of /usr/lib/debug.  What makes that safe is that no file is
 * returned before symprov_verify_kind() found exactly the requested
 * build ID in it, and the path returned is the resolved one, the file
 * that was checked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bdd.h"
#include "symprov_buildid.h"
#include "symprov_verify.h"

enum bdd_layout {
	BDD_BUILD_ID_DEBUG, /* .build-id/xx/rest.debug */
	BDD_BUILD_ID_PLAIN, /* .build-id/xx/rest */
	BDD_SERVER_DEBUGINFO, /* buildid/ID/debuginfo */
	BDD_SERVER_EXECUTABLE, /* buildid/ID/executable */
};

#define BDD_MAX_LAYOUTS 4

/* How a kind is looked for. */
struct bdd_plan {
	enum bdd_layout layouts[BDD_MAX_LAYOUTS]; /* the names, best first */
	size_t nr_layouts; /* 0: a kind not served */
	bool indexed; /* and then in this part of the index: */
	enum bdd_part_kind part;
};

static const struct bdd_plan bdd_plans[] = {
	[SYMPROV_KIND_KERNEL] = {
		/* DWARF also serves data-type profiling: prefer it. */
		.layouts = { BDD_BUILD_ID_DEBUG, BDD_SERVER_DEBUGINFO,
			     BDD_BUILD_ID_PLAIN, BDD_SERVER_EXECUTABLE },
		.nr_layouts = 4,
		.indexed = true,
		.part = BDD_PART_KERNELS,
	},
	[SYMPROV_KIND_KERNEL_MODULE] = {
		.layouts = { BDD_BUILD_ID_DEBUG, BDD_SERVER_DEBUGINFO },
		.nr_layouts = 2,
		.indexed = true,
		.part = BDD_PART_MODULES,
	},
	[SYMPROV_KIND_DEBUGINFO] = {
		.layouts = { BDD_BUILD_ID_DEBUG, BDD_SERVER_DEBUGINFO },
		.nr_layouts = 2,
	},
	[SYMPROV_KIND_EXECUTABLE] = {
		.layouts = { BDD_BUILD_ID_PLAIN, BDD_SERVER_EXECUTABLE },
		.nr_layouts = 2,
	},
};

/* How @kind is looked for, or NULL for a kind not served. */
static const struct bdd_plan *bdd_plan_of(uint32_t kind)
{
	if (kind >= sizeof(bdd_plans) / sizeof(bdd_plans[0]) ||
	    !bdd_plans[kind].nr_layouts)
		return NULL;
	return &bdd_plans[kind];
}

/* The name @layout gives @hex in @dir, malloc()ed; NULL without memory. */
static char *bdd_path_of(const char *dir, enum bdd_layout layout,
			 const char *hex)
{
	char *path = NULL;
	int n = -1;

	switch (layout) {
	case BDD_BUILD_ID_DEBUG:
		n = asprintf(&path, "%s/.build-id/%.2s/%s.debug", dir, hex,
			     hex + 2);
		break;
	case BDD_BUILD_ID_PLAIN:
		n = asprintf(&path, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
		break;
	case BDD_SERVER_DEBUGINFO:
		n = asprintf(&path, "%s/buildid/%s/debuginfo", dir, hex);
		break;
	case BDD_SERVER_EXECUTABLE:
		n = asprintf(&path, "%s/buildid/%s/executable", dir, hex);
		break;
	}
	return n < 0 ? NULL : path;
}

/*
 * The file @real, resolved, is one that @req can have: 0, or a negative
 * errno (-EBADMSG: it failed the check), and *why may say what is wrong.
 */
static int bdd_check(const struct symprov_request *req, const char *real,
		     const char **why)
{
	int fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat sb;
	int err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		err = -EINVAL;
		*why = "not a regular file";
	} else if (symprov_verify_kind(fd, req->kind, req->build_id,
				       req->build_id_len, why)) {
		/* the next name may hold the right file: this one is logged */
		err = -EBADMSG;
	}
	close(fd);
	return err;
}

/*
 * @path carries the build ID of @req: 0, with ans->path set to the file
 * resolved; -ENOENT when there is no such file (a dangling link is none);
 * -EBADMSG for a bad file, logged, its errno in ans->error if it is the
 * first; -ENOMEM.
 */
static int bdd_try(const struct bdd_state *st,
		   const struct symprov_request *req, const char *path,
		   struct bdd_answer *ans)
{
	const char *why = NULL;
	char *real = realpath(path, NULL);
	struct stat sb;
	int err;

	if (!real) {
		err = -errno;
		if (err != -ENOENT && err != -ENOTDIR)
			goto bad;
		if (!lstat(path, &sb) && S_ISLNK(sb.st_mode))
			bdd_log(st->host, SYMPROV_LOG_DEBUG,
				"%s: dangling symlink", path);
		return -ENOENT;
	}
	err = bdd_check(req, real, &why);
	if (!err) {
		ans->path = real;
		return 0;
	}
bad:
	bdd_log(st->host, SYMPROV_LOG_WARN, "%s%s%s: %s", path,
		real && strcmp(real, path) != 0 ? " -> " : "",
		real && strcmp(real, path) != 0 ? real : "",
		why ?: strerror(-err));
	if (!ans->error)
		ans->error = -err;
	free(real);
	return err == -ENOMEM ? -ENOMEM : -EBADMSG;
}

/*
 * @err is what bdd_try() said of one more file: whether the lookup ends
 * with it (found, or out of memory); *@bad notes a bad file.
 */
static bool bdd_tried(int err, bool *bad)
{
	if (err == -EBADMSG)
		*bad = true;
	return err != -ENOENT && err != -EBADMSG;
}

int bdd_lookup(struct bdd_state *st, const struct symprov_request *req,
	       struct bdd_answer *ans)
{
	const struct bdd_plan *plan = bdd_plan_of(req->kind);
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	const struct bdd_part *part;
	bool bad = false;
	size_t d, i;
	int err;

	if (!plan)
		return -EOPNOTSUPP;
	symprov_build_id_hex(req->build_id, req->build_id_len, hex);
	for (d = 0; d < st->nr_dirs; d++) {
		for (i = 0; i < plan->nr_layouts; i++) {
			char *path =
				bdd_path_of(st->dirs[d], plan->layouts[i], hex);

			if (!path)
				return -ENOMEM;
			err = bdd_try(st, req, path, ans);
			free(path);
			if (bdd_tried(err, &bad))
				return err;
		}
	}
	if (!plan->indexed)
		return bad ? -EBADMSG : -ENOENT;
	err = bdd_index_get(&st->index, plan->part, st->dirs, st->nr_dirs,
			    st->host, &part);
	if (err)
		return err;
	for (i = 0; i < part->nr; i++) {
		const struct bdd_indexed *f = &part->files[i];

		if (f->build_id_len != req->build_id_len ||
		    memcmp(f->build_id, req->build_id, f->build_id_len) != 0)
			continue;
		/* checked again: it may have changed since it was indexed */
		err = bdd_try(st, req, f->path, ans);
		if (bdd_tried(err, &bad))
			return err;
	}
	return bad ? -EBADMSG : -ENOENT;
}
