/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernels that have no .build-id link (Debian's linux-image-*-dbg):
 * DIR/boot/vmlinux-* and DIR/lib/modules/{release}/vmlinux, by the build
 * ID in their notes.
 */
#ifndef BDD_INDEX_H
#define BDD_INDEX_H

#include <stddef.h>
#include <sys/types.h>

#include "symprov.h"

struct bdd_kernel {
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	size_t build_id_len;
	char *path;
	dev_t dev; /* a file reached twice is indexed once */
	ino_t ino;
};

struct bdd_index {
	struct bdd_kernel *kernels;
	size_t nr;
	size_t alloc;
};

/*
 * Index the kernels of @dirs (in order; a file reached twice, e.g. through
 * the lib/modules symlink, once).  Reads only their notes.  Files that
 * cannot be read are left out and logged.  0 or -ENOMEM.
 */
int bdd_index_build(struct bdd_index *idx, char *const *dirs, size_t nr_dirs,
		    const struct symprov_host *host);
void bdd_index_fini(struct bdd_index *idx);

#endif /* BDD_INDEX_H */
