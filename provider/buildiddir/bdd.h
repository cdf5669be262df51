/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libbuildiddirprov.so: files by build ID from local build-id trees. */
#ifndef BDD_H
#define BDD_H

#include <stddef.h>

#include "bdd_index.h"
#include "symprov.h"

#define BDD_CONFIG_DIRS "symprov.buildiddir.dirs"
#define BDD_ENV_DIRS "SYMPROV_BUILDIDDIR_DIRS"
#define BDD_DEFAULT_DIRS "/usr/lib/debug"

struct bdd_state {
	const struct symprov_host *host;
	char **dirs; /* the trees, in the order they are searched */
	size_t nr_dirs;
	struct bdd_index index; /* kernels and modules by their notes */
};

/* What looking at one candidate file gave. */
struct bdd_answer {
	char *path; /* SYMPROV_FOUND: the file, resolved */
	int error; /* positive errno of the first bad file, for the host */
};

/*
 * Look @req up in the trees of @st: 0 with ans->path set; -ENOENT when it
 * is nowhere; -EBADMSG when only bad files (unreadable, another build ID,
 * damaged) stood where it was looked for; -EOPNOTSUPP for a kind not
 * served; -ENOMEM.
 */
int bdd_lookup(struct bdd_state *st, const struct symprov_request *req,
	       struct bdd_answer *ans);

__attribute__((format(printf, 3, 4))) void
bdd_log(const struct symprov_host *host, int level, const char *fmt, ...);

#endif /* BDD_H */
