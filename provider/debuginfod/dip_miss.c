// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod 0.188 answers -ENOENT, "not found", for more than a 404:
 * tell a real miss from the rest, which must not be remembered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_miss.h"

/*
 * libdebuginfod 0.188 ends as -ENOENT, like a 404, and caches as a miss
 * for cache_miss_s: a 5xx, a body shorter than its Content-Length, an
 * empty reply, an unsupported URL scheme, and a retry after a transfer
 * that had begun (its stale target handle lets no new one write).  Its
 * API does not say which; its verbose log does: one "server response
 * <curl error>" line per server that answered, "url N <curl error
 * buffer>" after it ("The requested URL returned error: 503"), "Retry
 * failed query" per retry.  The log is only used to take a NOT_FOUND
 * back: a log this does not recognize leaves libdebuginfod's answer.
 *
 * Returns true when the log shows a failure that is not a 404.
 */
/* curl_easy_strerror() of a transfer that may have been a 404, or fine */
static bool dip_curl_result_may_be_miss(const char *result)
{
	static const char *const ok[] = {
		"HTTP response code said error", /* the url line tells */
		"Couldn't read a file:// file", /* file:// has no 404 */
		"No error",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (strcmp(result, ok[i]) == 0)
			return true;
	}
	return false;
}

bool dip_miss_log_says_transient(int vfd)
{
	static const char resp[] = "server response ";
	static const char code[] = "The requested URL returned error: ";
	bool transient = false;
	size_t size = 0;
	char *line = NULL;
	FILE *f;
	int fd = dup(vfd);

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!transient && getline(&line, &size, f) > 0) {
		const char *p;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "Retry failed query", 18))
			transient = true;
		else if (!strncmp(line, resp, sizeof(resp) - 1))
			transient = !dip_curl_result_may_be_miss(
				line + sizeof(resp) - 1);
		else if (!strncmp(line, "url ", 4) && (p = strstr(line, code)))
			transient = strtol(p + sizeof(code) - 1, NULL, 10) !=
				    404;
	}
	free(line);
	fclose(f);
	return transient;
}

void dip_miss_log_copy(int vfd, int to)
{
	char buf[4096];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(vfd, buf, sizeof(buf), off)) > 0) {
		if (write(to, buf, (size_t)n) != n)
			break;
		off += n;
	}
}

/*
 * libdebuginfod 0.188 writes its empty miss marker under the final name
 * before it renames a good download over it; a process that looks then
 * reads a miss.  Wait a little for a download that is landing: a marker
 * beside a temporary file of a download.  True when the file is there.
 */
bool dip_miss_wait_landing(const struct symprov_host *host,
			   const struct symprov_request *req, const char *hex,
			   const char *type)
{
	struct timespec pause = { 0, 50L * 1000 * 1000 };
	int i;

	/* 5 s at most, and as long as the user lets us */
	for (i = 0; i < 100; i++) {
		int state = dip_cache_landing(hex, type);

		if (state != 1)
			return state == 2;
		if (host->progress && host->progress(host->data, req, 0, 0) !=
					      SYMPROV_PROGRESS_CONTINUE)
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}
