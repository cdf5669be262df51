// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod (0.188 to 0.196) has no lock between processes: eight
 * perf or symprov processes asking at once for a file that is not in the
 * client cache download it eight times (the threads of one process share
 * a download through symprov_memo).  The first to come takes an flock()
 * on a file beside it in the cache and fetches; the others wait, then the
 * cache answers them.
 *
 * flock() goes with its process: a holder that dies, by SIGKILL too,
 * releases it at once, so a stale lock blocks nobody.  A holder that lives
 * on without progress (stopped, or stuck outside libdebuginfod) is waited
 * for as long as libdebuginfod waits for a silent server, DEBUGINFOD_TIMEOUT
 * without a byte written to the build ID's directory; then the file is
 * fetched here all the same.
 *
 * The holder removes the file before it releases the lock; a waiter that
 * then gets the lock of the removed file sees that its name is another
 * file's or none, and starts again.  So lock files do not pile up, and the
 * one a killed process leaves is aged by libdebuginfod's cleaning, which
 * takes "source*" names for its own (as DIP_SYMBOLS_FILE).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_compat.h"
#include "dip_env.h"
#include "dip_lock.h"
#include "dip_host.h"

#define DIP_LOCK_PREFIX "source-symprov-lock-"
/* A waiter looks this often: a released lock is taken within it. */
#define DIP_LOCK_POLL_MS 100
/* libdebuginfod's DEBUGINFOD_TIMEOUT when it is not set (0.188 to 0.196) */
#define DIP_LOCK_PATIENCE_S 90

static long dip_lock_patience(void)
{
	long s = dip_env_long(DEBUGINFOD_TIMEOUT_ENV_VAR, 0);

	return s > 0 ? s : DIP_LOCK_PATIENCE_S;
}

/* The lock file, its directory made if need be: a descriptor, or -errno. */
static int dip_lock_open(const char *path, const char *hex)
{
	const int flags = O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(path, flags, 0600);

	if (fd < 0 && errno == ENOENT && !dip_cache_mkdir(hex))
		fd = open(path, flags, 0600);
	return fd < 0 ? -errno : fd;
}

/* Locked @fd is the file @path names: its holder did not remove it. */
static bool dip_lock_current(int fd, const char *path)
{
	struct stat held, named;

	return !fstat(fd, &held) && !lstat(path, &named) &&
	       held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

int dip_lock_take(struct dip_lock *l, const struct symprov_host *host,
		  const struct symprov_request *req, const char *hex,
		  const char *what)
{
	const struct timespec pause = { 0, DIP_LOCK_POLL_MS * 1000000L };
	long patience = dip_lock_patience();
	time_t quiet_since = dip_now();
	long long bytes = LLONG_MIN, now; /* none read yet */
	char name[NAME_MAX + 1];
	bool waiting = false;
	int n, fd = -1, ret = 0;

	l->fd = -1;
	/* the host opted out of the cache: none of it is touched */
	if (host->flags & SYMPROV_HOST_NO_BUILDID_CACHE)
		return 0;
	n = snprintf(name, sizeof(name), DIP_LOCK_PREFIX "%s", what);
	if (n < 0 || (size_t)n >= sizeof(name) ||
	    dip_cache_path(hex, name, l->path, sizeof(l->path)))
		return 0;
	for (;;) {
		if (fd < 0)
			fd = dip_lock_open(l->path, hex);
		/* a cache that cannot be written: fetch without a lock */
		if (fd < 0)
			goto out;
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			if (dip_lock_current(fd, l->path)) {
				l->fd = fd;
				fd = -1;
				goto out;
			}
			close(fd);
			fd = -1;
			continue;
		}
		if (errno != EWOULDBLOCK)
			goto out;
		if (!waiting)
			dip_log(host, SYMPROV_LOG_DEBUG,
				"%s %s: another process is fetching it: waiting",
				hex, what);
		waiting = true;
		if (dip_host_says_stop(host, req, 0, 0)) {
			ret = -ECANCELED;
			goto out;
		}
		now = dip_cache_bytes(hex);
		if (now != bytes) {
			bytes = now;
			quiet_since = dip_now();
		} else if (dip_now() - quiet_since > patience) {
			dip_log(host, SYMPROV_LOG_INFO,
				"%s %s: the process fetching it wrote nothing for %ld s: fetching it here too",
				hex, what, patience);
			goto out;
		}
		nanosleep(&pause, NULL);
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

void dip_lock_release(struct dip_lock *l)
{
	if (l->fd < 0)
		return;
	/* first: a waiter that gets the lock then knows it is stale */
	unlink(l->path);
	close(l->fd);
	l->fd = -1;
}
