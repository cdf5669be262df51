// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf's build-id cache, filled as "perf buildid-cache -a" fills it
 * (perf's util/build-id.c, build_id_cache__add()), so that a perf without
 * symbol providers reads what the providers found:
 *
 *   DIR/NAME/BUILD_ID/elf     the vmlinux, the module, the executable
 *   DIR/NAME/BUILD_ID/debug   the executable's debug file
 *   DIR/.build-id/xx/REST  -> ../../NAME/BUILD_ID
 *
 * NAME is the name in the profile; names in brackets ([kernel.kallsyms])
 * get a '/' before them, as perf gives them.  perf reads the kernel from
 * .build-id/xx/REST/elf before any vmlinux path or kallsyms copy.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsymprov.h"
#include "symprov_copy.h"
#include "symprov_perfcache.h"

/* perf's system-wide config file, as Debian's perf is built */
#define PC_SYSTEM_CONFIG "/etc/perfconfig"

static char *pc_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	return s;
}

/* A value as perf's config parser reads it: quoted, or up to a comment. */
static char *pc_config_value(char *s)
{
	s = pc_trim(s);
	if (*s == '"') {
		char *end = strchr(++s, '"');

		if (end)
			*end = '\0';
		return s;
	}
	s[strcspn(s, "#;")] = '\0';
	return pc_trim(s);
}

/* buildid.dir of the config file @path into *@dir: the last one wins. */
static int pc_config_file(const char *path, char **dir)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *eq, *s;
	bool in_buildid = false;
	size_t cap = 0;
	int err = 0;

	/* perf reads the files that are there and readable */
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		s = pc_trim(line);
		if (*s == '[') {
			in_buildid = !strncasecmp(s, "[buildid]", 9);
			continue;
		}
		eq = strchr(s, '=');
		if (!in_buildid || !eq || *s == '#' || *s == ';')
			continue;
		*eq = '\0';
		if (strcasecmp(pc_trim(s), "dir") != 0)
			continue;
		free(*dir);
		*dir = strdup(pc_config_value(eq + 1));
		if (!*dir) {
			err = -ENOMEM;
			goto out;
		}
	}
out:
	free(line);
	fclose(f);
	return err;
}

static bool pc_env_true(const char *name)
{
	const char *v = getenv(name);

	return v && (!strcmp(v, "1") || !strcasecmp(v, "true") ||
		     !strcasecmp(v, "yes") || !strcasecmp(v, "on"));
}

/*
 * The directory perf uses (its config.c, set_buildid_dir()): buildid.dir
 * of $PERF_CONFIG alone when set, else of /etc/perfconfig then of
 * ~/.perfconfig (when it is the user's or root's), else $HOME/.debug.
 */
static int pc_default_dir(char **dir, const char **why)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char *user = NULL;
	struct stat st;
	int err = 0;

	*dir = NULL;
	if (only) {
		err = pc_config_file(only, dir);
		goto fallback;
	}
	if (!pc_env_true("PERF_CONFIG_NOSYSTEM")) {
		err = pc_config_file(PC_SYSTEM_CONFIG, dir);
		if (err)
			goto out;
	}
	if (home && *home && !pc_env_true("PERF_CONFIG_NOGLOBAL")) {
		if (asprintf(&user, "%s/.perfconfig", home) < 0) {
			user = NULL;
			err = -ENOMEM;
			goto out;
		}
		/* perf ignores another user's file in one's home */
		if (!stat(user, &st) && (!st.st_uid || st.st_uid == geteuid()))
			err = pc_config_file(user, dir);
	}
fallback:
	if (err || (*dir && **dir))
		goto out;
	free(*dir);
	*dir = NULL;
	if (!home || !*home) {
		*why = "HOME is not set: give the directory, --perf-cache=DIR";
		err = -EINVAL;
		goto out;
	}
	if (asprintf(dir, "%s/.debug", home) < 0) {
		*dir = NULL;
		err = -ENOMEM;
	}
out:
	free(user);
	return err;
}

/* mkdir -p @path, 0755 as perf makes its directories. */
static int pc_mkdirs(const char *path)
{
	char *copy = strdup(path), *p;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (p = copy + 1;; p++) {
		if (*p && *p != '/')
			continue;
		if (p[-1] != '/') {
			char c = *p;

			*p = '\0';
			if (mkdir(copy, 0755) && errno != EEXIST) {
				err = -errno;
				goto out;
			}
			*p = c;
		}
		if (!*p)
			break;
	}
out:
	free(copy);
	return err;
}

int perfcache_open(struct perfcache *pc, const char *dir)
{
	const char *why = NULL;
	struct stat st;
	int err;

	pc->dir = dir ? strdup(dir) : NULL;
	err = dir ? (pc->dir ? 0 : -ENOMEM) : pc_default_dir(&pc->dir, &why);
	if (err)
		goto out;
	if (!*pc->dir) {
		why = "an empty directory name";
		err = -EINVAL;
		goto out;
	}
	if (!strcmp(pc->dir, "/dev/null")) {
		why = "perf's build-id cache is off (buildid.dir=/dev/null)";
		err = -EINVAL;
		goto out;
	}
	err = pc_mkdirs(pc->dir);
	if (!err && stat(pc->dir, &st))
		err = -errno;
	if (err)
		goto out;
	if (!S_ISDIR(st.st_mode)) {
		err = -ENOTDIR;
	} else if (st.st_uid != geteuid()) {
		/* even root: its files there would be the owner's to remove */
		why = "owned by another user, whose perf owns it";
		err = -EPERM;
	} else if (faccessat(AT_FDCWD, pc->dir, W_OK | X_OK, AT_EACCESS)) {
		err = -errno;
	}
out:
	if (err)
		fprintf(stderr, "symprov: prefetch: --perf-cache %s: %s\n",
			pc->dir ?: "", why ?: strerror(-err));
	return err;
}

void perfcache_close(struct perfcache *pc)
{
	free(pc->dir);
	pc->dir = NULL;
}

/*
 * A name perf's cache can hold as a path below DIR: absolute without "."
 * or ".." parts (a hostile profile must not write outside DIR), or one in
 * brackets without a '/'.
 */
static bool pc_name_ok(const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (name[0] == '[')
		return n > 2 && name[n - 1] == ']' && !strchr(name, '/');
	if (name[0] != '/' || n < 2)
		return false;
	for (p = name; p; p = strchr(p + 1, '/')) {
		size_t part = strcspn(p + 1, "/");

		if (!part || (part == 1 && p[1] == '.') ||
		    (part == 2 && p[1] == '.' && p[2] == '.'))
			return false;
	}
	return true;
}

/* DIR/.build-id/xx/REST, malloc()ed, and the hex build ID into @hex. */
static char *pc_link_of(const struct perfcache *pc,
			const unsigned char *build_id, unsigned int len,
			char hex[SYMPROV_BUILD_ID_HEX_MAX])
{
	char *link;

	symprov_build_id_hex(build_id, len, hex);
	if (asprintf(&link, "%s/.build-id/%.2s/%s", pc->dir, hex, hex + 2) < 0)
		return NULL;
	return link;
}

static const char *pc_base_of(uint32_t kind)
{
	return kind == SYMPROV_KIND_DEBUGINFO ? "debug" : "elf";
}

bool perfcache_perf_reads(const struct perfcache *pc, uint32_t kind,
			  const char *name, const unsigned char *build_id,
			  unsigned int len)
{
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	char *link = pc_link_of(pc, build_id, len, hex), *path = NULL;
	uint32_t local =
		kind == SYMPROV_KIND_DEBUGINFO ? SYMPROV_KIND_EXECUTABLE : kind;
	struct stat st;
	bool reads = false;

	if (!link)
		return false;
	/* the object itself, where it was recorded, on this machine */
	if (name[0] == '/' &&
	    copy_is_checked_file(name, local, build_id, len)) {
		reads = true;
		goto out;
	}
	/* perf before 4.x made the link the file itself: it reads that */
	if (!lstat(link, &st) && S_ISREG(st.st_mode)) {
		reads = true;
		goto out;
	}
	if (asprintf(&path, "%s/%s", link, pc_base_of(kind)) < 0) {
		path = NULL;
		goto out;
	}
	reads = copy_is_checked_file(path, kind, build_id, len);
	if (!reads && kind == SYMPROV_KIND_DEBUGINFO) {
		strcpy(path + strlen(path) - strlen("debug"), "elf");
		reads = copy_is_checked_file(path, local, build_id, len);
	}
out:
	free(path);
	free(link);
	return reads;
}

/* The file perf reads for @kind, DIR'/elf or DIR'/debug, from @src. */
static int pc_put_file(const char *dir, uint32_t kind,
		       const unsigned char *build_id, unsigned int len,
		       const char *src, char **dest, const char **step)
{
	const char *base = pc_base_of(kind);
	char *path = NULL;
	struct stat st;
	int err = -ENOMEM;

	*step = "out of memory";
	if (asprintf(&path, "%s/%s", dir, base) < 0) {
		path = NULL;
		goto out;
	}
	*step = "a file there is kept";
	if (lstat(path, &st))
		err = copy_checked(src, dir, base, kind, build_id, len, false,
				   step);
	else if (!copy_is_checked_file(path, kind, build_id, len))
		err = -EEXIST;
	else
		err = 0;
out:
	if (!err) {
		*dest = path;
		path = NULL;
	}
	free(path);
	return err;
}

/*
 * DIR/.build-id/xx/REST -> ../../NAME/BUILD_ID, made by symlink(), which
 * does not replace a link perf or a concurrent run made meanwhile.
 */
static int pc_put_link(const char *link, const char *name, const char *hex,
		       const char **step)
{
	char *target = NULL, *linkdir = strdup(link);
	int err = -ENOMEM;

	*step = "out of memory";
	if (!linkdir || asprintf(&target, "../..%s%s/%s",
				 name[0] == '[' ? "/" : "", name, hex) < 0) {
		target = NULL;
		goto out;
	}
	*strrchr(linkdir, '/') = '\0';
	*step = "making the .build-id directory";
	err = pc_mkdirs(linkdir);
	if (err)
		goto out;
	*step = "making the .build-id link";
	if (symlink(target, link) && errno != EEXIST)
		err = -errno;
	else
		copy_sync_dir(linkdir);
out:
	free(target);
	free(linkdir);
	return err;
}

int perfcache_add(const struct perfcache *pc, uint32_t kind, const char *name,
		  const unsigned char *build_id, unsigned int len,
		  const char *src, char **dest, const char **step)
{
	char hex[SYMPROV_BUILD_ID_HEX_MAX];
	char *link = NULL, *dir = NULL;
	struct stat st;
	int err = -EINVAL;

	*step = "a name perf's build-id cache cannot hold";
	if (!pc_name_ok(name))
		goto out;
	err = -ENOMEM;
	*step = "out of memory";
	link = pc_link_of(pc, build_id, len, hex);
	if (!link)
		goto out;
	/* an entry perf made: the file goes beside what it holds */
	if (!stat(link, &st) && S_ISDIR(st.st_mode)) {
		err = pc_put_file(link, kind, build_id, len, src, dest, step);
		goto out;
	}
	err = -EEXIST;
	*step = "perf's entry for the build ID is kept";
	if (!lstat(link, &st))
		goto out;
	err = -ENOMEM;
	*step = "out of memory";
	if (asprintf(&dir, "%s%s%s/%s", pc->dir, name[0] == '[' ? "/" : "",
		     name, hex) < 0) {
		dir = NULL;
		goto out;
	}
	*step = "making its directory";
	err = pc_mkdirs(dir);
	if (!err)
		err = pc_put_file(dir, kind, build_id, len, src, dest, step);
	/* the link last: perf finds the entry with its file in it */
	if (!err) {
		err = pc_put_link(link, name, hex, step);
		if (err) {
			free(*dest);
			*dest = NULL;
		}
	}
out:
	free(dir);
	free(link);
	return err;
}
