/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernels and kernel modules that have no .build-id link (Debian's
 * linux-image-*-dbg), by the build ID in their notes:
 *
 *   kernels  DIR/boot/vmlinux-*, DIR/lib/modules/{release}/vmlinux
 *   modules  DIR/lib/modules/{release}/.../NAME.ko
 *
 * The index has a part for each; a part is built at its first need, once
 * per session.
 */
#ifndef BDD_INDEX_H
#define BDD_INDEX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "symprov.h"

enum bdd_part_kind {
	BDD_PART_KERNELS,
	BDD_PART_MODULES,
	BDD_NR_PARTS,
};

struct bdd_indexed {
	unsigned char build_id[SYMPROV_BUILD_ID_MAX];
	size_t build_id_len;
	char *path;
	dev_t dev; /* a file reached twice is indexed once */
	ino_t ino;
};

struct bdd_part {
	pthread_mutex_t lock;
	bool built; /* under @lock; then the part is read-only */
	struct bdd_indexed *files; /* tree by tree, by path in each */
	size_t nr;
	size_t alloc;
};

struct bdd_index {
	struct bdd_part parts[BDD_NR_PARTS];
};

void bdd_index_init(struct bdd_index *idx);

/*
 * Part @kind of the index of @dirs into *@part, built at the first call:
 * the files of @dirs in order, a file reached twice (e.g. through the
 * lib/modules symlink) once, a directory walked once.  Reads only the ELF
 * header, the section headers and the notes of each file; files that
 * cannot be read are left out and logged.  0, or -ENOMEM when it cannot
 * be built (tried again at the next call).
 */
int bdd_index_get(struct bdd_index *idx, enum bdd_part_kind kind,
		  char *const *dirs, size_t nr_dirs,
		  const struct symprov_host *host,
		  const struct bdd_part **part);

void bdd_index_fini(struct bdd_index *idx);

#endif /* BDD_INDEX_H */
