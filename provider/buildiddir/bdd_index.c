// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Debian's kernel -dbg packages have .build-id links only for the vDSOs:
 * their vmlinux and their modules (1,138 .ko files, 1.5 GB, for 6.12's
 * cloud kernel) are found by the build ID notes they carry.  Of each file
 * only the ELF header, the section headers and the notes are read, with
 * pread() and no read-ahead: a few pages, wherever they are in the file.
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
#include <time.h>
#include <unistd.h>

#include "bdd.h"
#include "bdd_index.h"
#include "symprov_verify.h"

/* Directories below lib/modules: Debian's deepest module is 8 down. */
#define BDD_MAX_DEPTH 16

struct bdd_dir_id {
	dev_t dev;
	ino_t ino;
};

struct bdd_scan {
	struct bdd_part *part;
	const struct symprov_host *host;
	/* the directories walked: none twice, so no cycle */
	struct bdd_dir_id *dirs;
	size_t nr_dirs;
	size_t alloc_dirs;
};

static const char *const bdd_part_names[BDD_NR_PARTS][2] = {
	[BDD_PART_KERNELS] = { "kernel", "kernels" },
	[BDD_PART_MODULES] = { "kernel module", "kernel modules" },
};

/* @arr, maybe moved, with room for @nr + 1 items; NULL (@arr kept) if not. */
static void *bdd_room(void *arr, size_t nr, size_t *alloc, size_t size)
{
	size_t n = *alloc ? 2 * *alloc : 8;

	if (nr < *alloc)
		return arr;
	arr = reallocarray(arr, n, size);
	if (arr)
		*alloc = n;
	return arr;
}

/* The build ID note of @fd, into @f: false when it has none. */
static bool bdd_note_build_id(int fd, struct bdd_indexed *f)
{
	const void *id;
	ssize_t len = -1;
	bool found = false;
	Elf *elf;

	/*
	 * A mapped file is read ahead around each page touched: most of a
	 * small module.  libelf's pread()s, without read-ahead, read the
	 * headers and the notes alone.
	 */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf)
		len = dwelf_elf_gnu_build_id(elf, &id);
	if (len > 0 && len <= SYMPROV_BUILD_ID_MAX) {
		memcpy(f->build_id, id, (size_t)len);
		f->build_id_len = (size_t)len;
		found = true;
	}
	elf_end(elf);
	return found;
}

static bool bdd_seen(const struct bdd_part *part, const struct stat *st)
{
	size_t i;

	for (i = 0; i < part->nr; i++) {
		if (part->files[i].dev == st->st_dev &&
		    part->files[i].ino == st->st_ino)
			return true;
	}
	return false;
}

/* Index @path (taken over) if it is ELF with a build ID: 0, -ENOMEM. */
static int bdd_index_file(struct bdd_scan *scan, char *path)
{
	struct bdd_part *part = scan->part;
	struct bdd_indexed f = { .path = path };
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
	    err = 0;
	struct bdd_indexed *files;
	struct stat st;

	if (fd < 0) {
		if (errno != ENOENT)
			bdd_log(scan->host, SYMPROV_LOG_INFO, "%s: %s", path,
				strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || bdd_seen(part, &st) ||
	    !bdd_note_build_id(fd, &f))
		goto out;
	files = bdd_room(part->files, part->nr, &part->alloc, sizeof(*files));
	if (!files) {
		err = -ENOMEM;
		goto out;
	}
	part->files = files;
	f.dev = st.st_dev;
	f.ino = st.st_ino;
	part->files[part->nr++] = f;
	path = NULL; /* the index's now */
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return err;
}

/* Each DIR/SUB/<entry><leaf> whose entry starts with @prefix: 0, -ENOMEM. */
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

/*
 * Note the directory @fd as walked: 0, -EEXIST when it was already (or
 * cannot be told from another: not walked then), -ENOMEM.
 */
static int bdd_dir_note(struct bdd_scan *scan, int fd)
{
	struct bdd_dir_id *dirs;
	struct stat st;
	size_t i;

	if (fstat(fd, &st))
		return -EEXIST;
	for (i = 0; i < scan->nr_dirs; i++) {
		if (scan->dirs[i].dev == st.st_dev &&
		    scan->dirs[i].ino == st.st_ino)
			return -EEXIST;
	}
	dirs = bdd_room(scan->dirs, scan->nr_dirs, &scan->alloc_dirs,
			sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	scan->dirs = dirs;
	dirs[scan->nr_dirs++] = (struct bdd_dir_id){ st.st_dev, st.st_ino };
	return 0;
}

/* A module by its name: .ko.xz, .ko.gz, .ko.zst are compressed, left out. */
static bool bdd_is_module(const char *name)
{
	size_t len = strlen(name);

	return len > 3 && !strcmp(name + len - 3, ".ko");
}

/* DT_DIR, DT_REG or DT_UNKNOWN: what @path, entry @de, is or links to. */
static unsigned char bdd_type(const char *path, const struct dirent *de)
{
	struct stat st;

	if (de->d_type == DT_DIR || de->d_type == DT_REG)
		return de->d_type;
	if ((de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) ||
	    stat(path, &st))
		return DT_UNKNOWN;
	if (S_ISDIR(st.st_mode))
		return DT_DIR;
	return S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

/* A release's build and source: header and source trees, no module. */
static bool bdd_skipped(const char *name, int depth)
{
	return name[0] == '.' || (depth == 1 && (!strcmp(name, "build") ||
						 !strcmp(name, "source")));
}

/*
 * The modules in directory @path, @depth below lib/modules, and under it:
 * 0, or -ENOMEM.
 */
static int bdd_walk(struct bdd_scan *scan, const char *path, int depth)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int err;

	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR)
			bdd_log(scan->host, SYMPROV_LOG_INFO, "%s: %s", path,
				strerror(errno));
		return 0;
	}
	err = bdd_dir_note(scan, dirfd(d));
	while (!err && (de = readdir(d))) {
		unsigned char type;
		char *child;

		if (bdd_skipped(de->d_name, depth) ||
		    (de->d_type == DT_REG && !bdd_is_module(de->d_name)))
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		type = bdd_type(child, de);
		if (type == DT_DIR && depth < BDD_MAX_DEPTH) {
			err = bdd_walk(scan, child, depth + 1);
		} else if (type == DT_REG && bdd_is_module(de->d_name)) {
			err = bdd_index_file(scan, child);
			child = NULL; /* taken over */
		}
		free(child);
	}
	closedir(d);
	return err == -EEXIST ? 0 : err;
}

/* The files of part @kind in the tree @dir: 0, or -ENOMEM. */
static int bdd_index_tree(struct bdd_scan *scan, enum bdd_part_kind kind,
			  const char *dir)
{
	char *path;
	int err;

	if (kind == BDD_PART_KERNELS) {
		err = bdd_index_dir(scan, dir, "boot", "vmlinux-", "");
		if (!err)
			err = bdd_index_dir(scan, dir, "lib/modules", "",
					    "/vmlinux");
		return err;
	}
	if (asprintf(&path, "%s/lib/modules", dir) < 0)
		return -ENOMEM;
	err = bdd_walk(scan, path, 0);
	free(path);
	return err;
}

static int bdd_cmp_path(const void *a, const void *b)
{
	const struct bdd_indexed *fa = a, *fb = b;

	return strcmp(fa->path, fb->path);
}

/* readdir() order is the file system's: the files from @first, sorted. */
static void bdd_sort_from(struct bdd_part *part, size_t first)
{
	if (part->nr > first)
		qsort(part->files + first, part->nr - first,
		      sizeof(*part->files), bdd_cmp_path);
}

static double bdd_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void bdd_part_clear(struct bdd_part *part)
{
	size_t i;

	for (i = 0; i < part->nr; i++)
		free(part->files[i].path);
	free(part->files);
	part->files = NULL;
	part->nr = part->alloc = 0;
}

/* Part @kind of the trees @dirs, in order: 0, or -ENOMEM (half built). */
static int bdd_part_build(struct bdd_part *part, enum bdd_part_kind kind,
			  char *const *dirs, size_t nr_dirs,
			  const struct symprov_host *host)
{
	struct bdd_scan scan = { .part = part, .host = host };
	char walked[64] = "";
	struct timespec t0;
	size_t i;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; !err && i < nr_dirs; i++) {
		size_t first = part->nr;

		err = bdd_index_tree(&scan, kind, dirs[i]);
		bdd_sort_from(part, first);
	}
	if (err)
		goto out;
	if (kind == BDD_PART_MODULES)
		snprintf(walked, sizeof(walked), ", %zu director%s walked",
			 scan.nr_dirs, scan.nr_dirs == 1 ? "y" : "ies");
	bdd_log(host, SYMPROV_LOG_INFO, "indexed %zu %s in %.1f ms%s", part->nr,
		bdd_part_names[kind][part->nr != 1], bdd_ms_since(&t0), walked);
out:
	free(scan.dirs);
	return err;
}

void bdd_index_init(struct bdd_index *idx)
{
	int i;

	memset(idx, 0, sizeof(*idx));
	for (i = 0; i < BDD_NR_PARTS; i++)
		pthread_mutex_init(&idx->parts[i].lock, NULL);
	/* here, before any thread: it sets a global */
	symprov_elf_init();
}

int bdd_index_get(struct bdd_index *idx, enum bdd_part_kind kind,
		  char *const *dirs, size_t nr_dirs,
		  const struct symprov_host *host, const struct bdd_part **part)
{
	struct bdd_part *p = &idx->parts[kind];
	int err = 0;

	pthread_mutex_lock(&p->lock);
	if (!p->built) {
		err = bdd_part_build(p, kind, dirs, nr_dirs, host);
		/* a half part after ENOMEM: try again next time */
		if (err)
			bdd_part_clear(p);
		else
			p->built = true;
	}
	pthread_mutex_unlock(&p->lock);
	*part = err ? NULL : p;
	return err;
}

void bdd_index_fini(struct bdd_index *idx)
{
	int i;

	for (i = 0; i < BDD_NR_PARTS; i++) {
		bdd_part_clear(&idx->parts[i]);
		pthread_mutex_destroy(&idx->parts[i].lock);
	}
}
