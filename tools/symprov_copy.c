// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A checked copy of a file found, given its name whole. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libsymprov.h"
#include "symprov_copy.h"

/* sendfile() moves at most about 2 GiB a call */
#define COPY_SEND_MAX (1L << 30)

bool copy_is_checked_file(const char *path, uint32_t kind,
			  const unsigned char *build_id, unsigned int len)
{
	const char *why;
	struct stat st;
	bool ok;
	int fd;

	/*
	 * The path may come from a profile: a device is not opened, as its
	 * open alone may act (a watchdog).
	 */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     !symprov_verify_file(fd, kind, build_id, len, &why);
	close(fd);
	return ok;
}

/* [@from, @to) of @in to the same place of @out */
static int copy_extent(int in, int out, off_t from, off_t to)
{
	if (lseek(out, from, SEEK_SET) < 0)
		return -errno;
	while (from < to) {
		ssize_t n = sendfile(out, in, &from,
				     to - from > COPY_SEND_MAX ? COPY_SEND_MAX :
								 to - from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* the file shrank under us: not a whole one */
		if (n == 0)
			return -EIO;
	}
	return 0;
}

/*
 * The data of @in, its holes left holes: a module's symbols-only file is
 * as long as its code, which is not in it (a gap punched out).
 */
static int copy_send_all(int in, int out)
{
	struct stat st;
	off_t hole = 0, size;

	if (fstat(in, &st))
		return -errno;
	while (hole < st.st_size) {
		off_t data = lseek(in, hole, SEEK_DATA);
		int err;

		/* ENXIO: no data after @hole */
		if (data < 0 && errno == ENXIO)
			break;
		hole = data < 0 ? -1 : lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		if (hole > st.st_size)
			hole = st.st_size;
		err = copy_extent(in, out, data, hole);
		if (err)
			return err;
	}
	/*
	 * A file that shrank may end in what SEEK_DATA calls no data: the
	 * copy would be padded to the old length, so the length is asked
	 * again.
	 */
	size = st.st_size;
	if (fstat(in, &st))
		return -errno;
	if (st.st_size != size)
		return -EIO;
	return ftruncate(out, size) ? -errno : 0;
}

void copy_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int copy_checked(const char *src, const char *dir, const char *name,
		 uint32_t kind, const unsigned char *build_id, unsigned int len,
		 bool replace, const char **step)
{
	char *path = NULL, *tmp = NULL;
	int in = -1, out = -1, err = -ENOMEM;
	const char *why;

	*step = "out of memory";
	if (asprintf(&path, "%s/%s", dir, name) < 0 ||
	    asprintf(&tmp, "%s/.%s.XXXXXX", dir, name) < 0)
		goto out;
	*step = "reading the file found";
	in = open(src, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0) {
		err = -errno;
		goto out;
	}
	*step = "writing the copy";
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	err = copy_send_all(in, out);
	/* mkostemp() makes it 0600: the tree is for perf of any user */
	if (!err && (fchmod(out, 0644) || fsync(out)))
		err = -errno;
	if (err)
		goto out;
	/* the file found may have changed since the loader checked it */
	*step = "checking the copy";
	if (symprov_verify_file(out, kind, build_id, len, &why)) {
		*step = why;
		err = -EBADMSG;
		goto out;
	}
	/* link() fails rather than replace a file: one put there is kept */
	*step = "naming the copy";
	if (replace ? rename(tmp, path) : (link(tmp, path) && errno != EEXIST))
		err = -errno;
	else
		copy_sync_dir(dir);
out:
	if (out >= 0) {
		close(out);
		/* renamed, it is gone; linked, the name stays */
		if (err || !replace)
			unlink(tmp);
	}
	if (in >= 0)
		close(in);
	free(tmp);
	free(path);
	return err;
}
