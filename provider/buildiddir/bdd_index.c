// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Debian's kernel -dbg packages have .build-id links only for the vDSOs:
 * their vmlinux is found by the build ID note it carries.  Only the notes
 * are read (libelf maps the file), so a tree of 340 MB kernels indexes in
 * milliseconds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bdd.h"
#include "bdd_index.h"

struct bdd_scan {
	struct bdd_index *idx;
	const struct symprov_host *host;
};

/* The build ID note of @fd, into @k.  0, or -1 when it has none. */
static int bdd_note_build_id(int fd, struct bdd_kernel *k)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	int ret = -1;

	if (len > 0 && len <= SYMPROV_BUILD_ID_MAX) {
		memcpy(k->build_id, id, (size_t)len);
		k->build_id_len = (size_t)len;
		ret = 0;
	}
	elf_end(elf);
	return ret;
}

static bool bdd_seen(const struct bdd_index *idx, const struct stat *st)
{
	size_t i;

	for (i = 0; i < idx->nr; i++) {
		if (idx->kernels[i].dev == st->st_dev &&
		    idx->kernels[i].ino == st->st_ino)
			return true;
	}
	return false;
}

/* Index @path (taken over) if it is a kernel with a build ID: 0, -ENOMEM. */
static int bdd_index_file(struct bdd_scan *scan, char *path)
{
	struct bdd_index *idx = scan->idx;
	struct bdd_kernel k = { .path = path };
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
	    err = 0;
	struct stat st;

	if (fd < 0) {
		if (errno != ENOENT)
			bdd_log(scan->host, SYMPROV_LOG_INFO, "%s: %s", path,
				strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || bdd_seen(idx, &st) ||
	    bdd_note_build_id(fd, &k))
		goto out;
	if (idx->nr == idx->alloc) {
		size_t n = idx->alloc ? 2 * idx->alloc : 8;
		struct bdd_kernel *kernels =
			realloc(idx->kernels, n * sizeof(*kernels));

		if (!kernels) {
			err = -ENOMEM;
			goto out;
		}
		idx->kernels = kernels;
		idx->alloc = n;
	}
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	idx->kernels[idx->nr++] = k;
	path = NULL; /* the index's now */
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return err;
}

/* Each DIR/SUB/<entry><leaf> whose entry starts with @prefix. */
static int bdd_index_dir(struct bdd_scan *scan, const char *dir,
			 const char *sub, const char *prefix, const char *leaf)
{
	struct dirent *de;
	char *path;
	DIR *d;
	int err = 0;

	if (asprintf(&path, "%s/%s", dir, sub) < 0)
		return -ENOMEM;
	d = opendir(path);
	free(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (asprintf(&path, "%s/%s/%s%s", dir, sub, de->d_name, leaf) <
		    0)
			err = -ENOMEM;
		else
			err = bdd_index_file(scan, path);
	}
	closedir(d);
	return err;
}

static int bdd_cmp_path(const void *a, const void *b)
{
	const struct bdd_kernel *ka = a, *kb = b;

	return strcmp(ka->path, kb->path);
}

/* readdir() order is the file system's: the kernels from @first, sorted. */
static void bdd_sort_from(struct bdd_index *idx, size_t first)
{
	if (idx->nr > first)
		qsort(idx->kernels + first, idx->nr - first,
		      sizeof(*idx->kernels), bdd_cmp_path);
}

int bdd_index_build(struct bdd_index *idx, char *const *dirs, size_t nr_dirs,
		    const struct symprov_host *host)
{
	struct bdd_scan scan = { .idx = idx, .host = host };
	size_t i;
	int err = 0;

	elf_version(EV_CURRENT);
	for (i = 0; !err && i < nr_dirs; i++) {
		size_t first = idx->nr;

		err = bdd_index_dir(&scan, dirs[i], "boot", "vmlinux-", "");
		if (!err)
			err = bdd_index_dir(&scan, dirs[i], "lib/modules", "",
					    "/vmlinux");
		bdd_sort_from(idx, first);
	}
	bdd_log(host, SYMPROV_LOG_INFO, "indexed %zu kernel%s", idx->nr,
		idx->nr == 1 ? "" : "s");
	return err;
}

void bdd_index_fini(struct bdd_index *idx)
{
	size_t i;

	for (i = 0; i < idx->nr; i++)
		free(idx->kernels[i].path);
	free(idx->kernels);
	idx->kernels = NULL;
	idx->nr = idx->alloc = 0;
}
