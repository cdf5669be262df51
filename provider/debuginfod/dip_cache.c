// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod writes a miss into its cache for what was none: a server
 * error (every release so far), a transfer the progress callback cancelled
 * (DIP_CANCEL_CACHES_MISS).  The build ID then fails at once, without
 * asking, for cache_miss_s (10 minutes).  A user who skipped a slow
 * download did not say the file does not exist, so remove that entry
 * again.
 *
 * The cache layout is libdebuginfod's own, and no call of it tells where
 * its cache is (none up to 0.196); this follows its layout, the same from
 * 0.188 to 0.196: the cache root is $DEBUGINFOD_CACHE_PATH, else
 * $HOME/.debuginfod_client_cache if it exists, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/debuginfod_client, and a miss is an
 * empty file ROOT/BUILDID/TYPE.  Only an empty file is ever removed, so a
 * wrong guess cannot lose a downloaded file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_compat.h"

/* ROOT in @buf: 0, or -ENAMETOOLONG. */
static int dip_cache_root(char *buf, size_t size)
{
	const char *home = getenv("HOME") ?: "/";
	const char *var = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (var && *var)
		n = snprintf(buf, size, "%s", var);
	else if (snprintf(buf, size, "%s/.debuginfod_client_cache", home) <
			 (int)size &&
		 stat(buf, &st) == 0)
		return 0;
	else if (xdg && *xdg)
		n = snprintf(buf, size, "%s/debuginfod_client", xdg);
	else
		n = snprintf(buf, size, "%s/.cache/debuginfod_client", home);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int dip_cache_path(const char *hex, const char *name, char *buf, size_t size)
{
	char root[PATH_MAX];
	int n, err;

	err = dip_cache_root(root, sizeof(root));
	if (err)
		return err;
	if (name)
		n = snprintf(buf, size, "%s/%s/%s", root, hex, name);
	else
		n = snprintf(buf, size, "%s/%s", root, hex);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int dip_cache_mkdir(const char *hex)
{
	char root[PATH_MAX], dir[PATH_MAX];
	int err;

	err = dip_cache_root(root, sizeof(root));
	if (!err)
		err = dip_cache_path(hex, NULL, dir, sizeof(dir));
	if (err)
		return err;
	if (mkdir(root, ACCESSPERMS) && errno != EEXIST)
		return -errno;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

long long dip_cache_bytes(const char *hex)
{
	char dir[PATH_MAX];
	long long bytes = 0;
	struct dirent *de;
	struct stat st;
	int err;
	DIR *d;

	err = dip_cache_path(hex, NULL, dir, sizeof(dir));
	if (err)
		return err;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode))
			bytes += st.st_size;
	}
	closedir(d);
	return bytes;
}

bool dip_cache_holds(const char *hex, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return !dip_cache_path(hex, name, path, sizeof(path)) &&
	       !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

bool dip_cache_forget_miss(const char *hex, const char *type)
{
	char path[PATH_MAX];
	struct stat st;

	return !dip_cache_path(hex, type, path, sizeof(path)) &&
	       !lstat(path, &st) && S_ISREG(st.st_mode) && !st.st_size &&
	       !unlink(path);
}

/*
 * A download lands as: its miss marker is created, its temporary file's
 * times are set (futimes(), which changes its ctime), the file is renamed
 * over the marker.  So the temporary file of a landing download changed
 * no earlier than its marker, give or take a clock tick; one left behind
 * by a killed process is older than the marker of a later miss.
 */
#define DIP_CACHE_LANDING_SLACK_S 1

enum dip_entry dip_cache_entry(const char *hex, const char *type)
{
	char path[PATH_MAX];
	size_t len = strlen(type);
	bool landing = false;
	struct dirent *de;
	struct stat st;
	time_t marker;
	DIR *dir;

	if (dip_cache_path(hex, type, path, sizeof(path)) || stat(path, &st) ||
	    !S_ISREG(st.st_mode))
		return DIP_ENTRY_NONE;
	if (st.st_size)
		return DIP_ENTRY_FILE;
	marker = st.st_ctime;
	path[strlen(path) - len - 1] = '\0';
	dir = opendir(path);
	if (!dir)
		return DIP_ENTRY_NONE;
	/* mkstemp("TYPE.XXXXXX") of a download */
	while (!landing && (de = readdir(dir))) {
		landing = !strncmp(de->d_name, type, len) &&
			  de->d_name[len] == '.' &&
			  strlen(de->d_name + len + 1) == 6 &&
			  !fstatat(dirfd(dir), de->d_name, &st, 0) &&
			  st.st_ctime >= marker - DIP_CACHE_LANDING_SLACK_S;
	}
	closedir(dir);
	return landing ? DIP_ENTRY_LANDING : DIP_ENTRY_NONE;
}

int dip_cache_keep_tail(int fd, const char *file, long long size)
{
	char tmp[PATH_MAX];
	struct timespec times[2];
	struct stat st;
	int out, err = 0;
	loff_t from;
	ssize_t n;

	if (fstat(fd, &st))
		return -errno;
	if (size < 0 || st.st_size < size)
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	out = mkstemp(tmp);
	if (out < 0)
		return -errno;
	from = st.st_size - size;
	while (from < st.st_size) {
		/* moves @from on */
		n = copy_file_range(fd, &from, out, NULL,
				    (size_t)(st.st_size - from), 0);
		if (n <= 0) {
			err = n ? -errno : -EIO;
			goto out;
		}
	}
	/* as libdebuginfod leaves its files: the server's time, 0400 */
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	if (futimens(out, times) || fchmod(out, 0400) || fsync(out) ||
	    rename(tmp, file) || lseek(out, 0, SEEK_SET) < 0)
		err = -errno;
out:
	if (err) {
		close(out);
		unlink(tmp);
		return err;
	}
	return out;
}
