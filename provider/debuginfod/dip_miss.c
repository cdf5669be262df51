// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdebuginfod answers -ENOENT, "not found", for more than a 404 (every
 * release up to 0.196): tell a real miss from the rest, which must not be
 * remembered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_host.h"
#include "dip_miss.h"

/*
 * libdebuginfod (0.188 to 0.196) ends as -ENOENT, like a 404, and caches
 * as a miss for cache_miss_s: a 5xx, a body shorter than its
 * Content-Length, an empty reply, an unsupported URL scheme, and a retry
 * after a transfer that had begun (its stale target handle lets no new
 * one write).  Its API does not say which; its verbose log does, in the
 * same words in all those releases: one "server response
 * <curl error>" line per server that answered, "url N <curl error
 * buffer>" after it ("The requested URL returned error: 503"), "Retry
 * failed query" per retry.  The log is only used to take a NOT_FOUND
 * back: a log this does not recognize leaves libdebuginfod's answer.
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

/*
 * Whether @match says yes to a line of the log (@vfd) from offset *@from
 * on, @arg its own; *@from moves past the whole lines it said no to, which
 * are not read again.  The log may still be written to: its offset is put
 * back.
 */
static bool dip_miss_log_any(int vfd, off_t *from,
			     bool (*match)(const char *line, void *arg),
			     void *arg)
{
	off_t end = lseek(vfd, 0, SEEK_CUR);
	bool found = false;
	size_t size = 0;
	char *line = NULL;
	ssize_t n;
	FILE *f;
	int fd = end < 0 ? -1 : dup(vfd);

	if (fd < 0 || lseek(fd, *from, SEEK_SET) < 0 ||
	    !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (n = getline(&line, &size, f)) > 0) {
		bool whole = line[n - 1] == '\n';

		line[strcspn(line, "\n")] = '\0';
		found = match(line, arg);
		/* a line still being written is read again, whole */
		if (!found && whole)
			*from += n;
	}
	free(line);
	fclose(f);
	lseek(vfd, end, SEEK_SET); /* shared with the dup */
	return found;
}

/* A failure that is not a 404. */
static bool dip_miss_line_is_transient(const char *line, void *arg)
{
	static const char resp[] = "server response ";
	static const char code[] = "The requested URL returned error: ";
	const char *p;

	(void)arg;
	if (!strncmp(line, "Retry failed query", 18))
		return true;
	if (!strncmp(line, resp, sizeof(resp) - 1))
		return !dip_curl_result_may_be_miss(line + sizeof(resp) - 1);
	if (!strncmp(line, "url ", 4) && (p = strstr(line, code)))
		return strtol(p + sizeof(code) - 1, NULL, 10) != 404;
	return false;
}

bool dip_miss_log_says_transient(int vfd)
{
	off_t from = 0;

	return dip_miss_log_any(vfd, &from, dip_miss_line_is_transient, NULL);
}

/* The first line of each query, "debuginfod_find_TYPE BUILDID" */
static bool dip_miss_line_is_whole_file(const char *line, void *arg)
{
	(void)arg;
	return !strncmp(line, "debuginfod_find_debuginfo ", 26) ||
	       !strncmp(line, "debuginfod_find_executable ", 27);
}

bool dip_miss_log_says_whole_file(int vfd, off_t *from)
{
	return dip_miss_log_any(vfd, from, dip_miss_line_is_whole_file, NULL);
}

/* Written once a server's body has come, for each attempt of a query. */
static bool dip_miss_line_is_committed(const char *line, void *arg)
{
	(void)arg;
	return !strncmp(line, "committed to url ", 17);
}

bool dip_miss_log_says_body_came(int vfd, off_t *from)
{
	return dip_miss_log_any(vfd, from, dip_miss_line_is_committed, NULL);
}

/*
 * One line of the log into @arg, a struct dip_retries: a retry of an
 * attempt that had written ("committed to url" before it), a server's
 * answer after the last retry.  Never a match: every line is read.
 */
static bool dip_miss_line_count_retries(const char *line, void *arg)
{
	struct dip_retries *r = arg;

	if (dip_miss_line_is_committed(line, NULL)) {
		r->committed = true;
	} else if (!strncmp(line, "Retry failed query", 18)) {
		r->retries++;
		r->appended |= r->committed;
		r->committed = false;
		r->answered = false;
	} else if (!strncmp(line, "server response ", 16)) {
		r->answered = true;
	}
	return false;
}

void dip_miss_log_retries(int vfd, struct dip_retries *r)
{
	off_t from = 0;

	*r = (struct dip_retries){ .answered = true };
	dip_miss_log_any(vfd, &from, dip_miss_line_count_retries, r);
}

/* The servers one attempt of a query asks, by their index in the log */
#define DIP_LOG_SERVERS_MAX 32

/* The state of dip_miss_log_servers_down()'s reading of the log */
struct dip_log_servers {
	dip_down_fn fn;
	void *arg;
	long timeout; /* "using timeout N" */
	int asked; /* "query N urls in parallel", -1 before it */
	char result[128]; /* the last "server response", not yet placed */
	char *url[DIP_LOG_SERVERS_MAX]; /* "init server N URL" */
	bool committed[DIP_LOG_SERVERS_MAX]; /* its body had begun */
};

/*
 * curl_easy_strerror() of a server that did not answer: in words, and as
 * libdebuginfod's errno of it (0: it answered)
 */
static int dip_log_down_why(const char *result, long timeout, char *buf,
			    size_t size)
{
	static const struct {
		const char *result, *why;
		int err;
	} down[] = {
		{ "Couldn't connect to server", "refused the connection",
		  ECONNREFUSED },
		{ "Couldn't resolve host name",
		  "has a name that does not resolve", EHOSTUNREACH },
		{ "Couldn't resolve proxy name",
		  "is behind a proxy whose name does not resolve",
		  EHOSTUNREACH },
		{ "Server returned nothing (no headers, no data)",
		  "closed the connection without a reply", ECONNRESET },
		{ "Failure when receiving data from the peer",
		  "reset the connection", ECONNRESET },
		{ "Failed sending data to the peer", "reset the connection",
		  ECONNRESET },
		{ "SSL connect error", "failed its TLS handshake",
		  ECONNREFUSED },
	};
	size_t i;

	if (!strcmp(result, "Timeout was reached")) {
		snprintf(buf, size, "sent nothing in %ld s", timeout);
		return ETIME;
	}
	for (i = 0; i < sizeof(down) / sizeof(down[0]); i++) {
		if (!strcmp(result, down[i].result)) {
			snprintf(buf, size, "%s", down[i].why);
			return down[i].err;
		}
	}
	return 0;
}

/* The result read last goes to server @i, when it says that one is down. */
static void dip_log_servers_place(struct dip_log_servers *s, int i)
{
	char why[64];
	int err;

	if (!*s->result)
		return;
	err = dip_log_down_why(s->result, s->timeout, why, sizeof(why));
	*s->result = '\0';
	if (err && i >= 0 && i < DIP_LOG_SERVERS_MAX && s->url[i] &&
	    !s->committed[i])
		s->fn(s->url[i], why, err, s->arg);
}

/* A result no "url N" line names is the only server's, if one was asked */
static void dip_log_servers_flush(struct dip_log_servers *s)
{
	dip_log_servers_place(s, s->asked == 1 ? 0 : -1);
}

/* "PREFIX N REST": N, *rest past its space; -1 when the line is not so */
static int dip_log_index(const char *line, const char *prefix,
			 const char **rest)
{
	size_t len = strlen(prefix);
	char *end;
	long n;

	if (strncmp(line, prefix, len) != 0 || line[len] < '0' ||
	    line[len] > '9')
		return -1;
	n = strtol(line + len, &end, 10);
	if (n >= DIP_LOG_SERVERS_MAX)
		return -1;
	*rest = *end == ' ' ? end + 1 : end;
	return (int)n;
}

/* One line of the log into @arg, a struct dip_log_servers; never a match */
static bool dip_miss_line_servers(const char *line, void *arg)
{
	struct dip_log_servers *s = arg;
	const char *rest;
	int i;

	if (!strncmp(line, "using timeout ", 14)) {
		s->timeout = strtol(line + 14, NULL, 10);
	} else if ((i = dip_log_index(line, "init server ", &rest)) >= 0) {
		dip_log_servers_flush(s);
		if (i == 0) { /* an attempt begins */
			s->asked = -1;
			memset(s->committed, 0, sizeof(s->committed));
		}
		free(s->url[i]);
		s->url[i] = strdup(rest);
	} else if (!strncmp(line, "query ", 6)) {
		s->asked = (int)strtol(line + 6, NULL, 10);
	} else if ((i = dip_log_index(line, "committed to url ", &rest)) >= 0) {
		s->committed[i] = true;
	} else if (!strncmp(line, "server response ", 16)) {
		dip_log_servers_flush(s);
		snprintf(s->result, sizeof(s->result), "%s", line + 16);
	} else if (s->asked >= 0 &&
		   (i = dip_log_index(line, "url ", &rest)) >= 0) {
		dip_log_servers_place(s, i);
	} else {
		dip_log_servers_flush(s);
	}
	return false;
}

void dip_miss_log_servers_down(int vfd, dip_down_fn fn, void *arg)
{
	struct dip_log_servers s = {
		.fn = fn, .arg = arg, .timeout = 90, .asked = -1
	};
	off_t from = 0;
	size_t i;

	dip_miss_log_any(vfd, &from, dip_miss_line_servers, &s);
	dip_log_servers_flush(&s);
	for (i = 0; i < DIP_LOG_SERVERS_MAX; i++)
		free(s.url[i]);
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
 * libdebuginfod (0.188 to 0.196) writes its empty miss marker under the
 * final name before it renames a good download over it (its rc is still
 * -ENOENT then); a process that looks then reads a miss.  Wait a little
 * for a download that is landing: a marker beside a temporary file of a
 * download.  True when the file is there.
 */
bool dip_miss_wait_landing(const struct symprov_host *host,
			   const struct symprov_request *req, const char *hex,
			   const char *type)
{
	struct timespec pause = { 0, 50L * 1000 * 1000 };
	int i;

	/* 5 s at most, and as long as the user lets us */
	for (i = 0; i < 100; i++) {
		enum dip_entry entry = dip_cache_entry(hex, type);

		if (entry != DIP_ENTRY_LANDING)
			return entry == DIP_ENTRY_FILE;
		if (dip_host_says_stop(host, req, 0, 0))
			return false;
		nanosleep(&pause, NULL);
	}
	return false;
}
