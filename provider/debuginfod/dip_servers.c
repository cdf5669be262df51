// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A server that accepts connections and never answers costs each query
 * DEBUGINFOD_TIMEOUT, retries included, and a miss of the live servers
 * waits for it too: libdebuginfod remembers no failed server (up to
 * 0.196).  Once a query's log shows a server down, it is left out of
 * DEBUGINFOD_URLS for a while, so that the queries after it, in this
 * process and in the next ones, ask the live servers alone, or none.
 *
 * libdebuginfod reads DEBUGINFOD_URLS at every query and has no list of
 * its own per client, so the variable itself changes.  libdw's own
 * lookups then skip the down servers too.  It is only ever overwritten,
 * never added or removed: glibc then swaps one pointer in environ, which
 * a getenv() in another thread reads whole, old or new.  The user's value
 * comes back when the last provider goes.
 *
 * For the next processes a down server is an entry in the client cache,
 * beside the misses libdebuginfod keeps there: ROOT/DIP_SERVERS_DIR/NAME,
 * NAME the URL's, its time when it was found down, its text why.  It is
 * written whole (a temporary file renamed), so that processes at once
 * read one or the other.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_CLOEXEC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dip_cache.h"
#include "dip_compat.h"
#include "dip_host.h"
#include "dip_miss.h"
#include "dip_servers.h"

/* libdebuginfod's cleaning takes no such name for its own */
#define DIP_SERVERS_DIR "symprov-servers-down"

struct dip_server {
	char *key; /* the URL, without its trailing slashes */
	char why[64]; /* why it is down */
	int err; /* that failure, libdebuginfod's positive errno of it */
	time_t down_until; /* 0: it is asked */
	time_t since; /* when it was found down */
	bool told; /* the user knows it is down */
};

static struct {
	pthread_mutex_t lock;
	int users; /* providers begun */
	long down_s; /* how long a down server is not asked */
	char *user; /* the user's DEBUGINFOD_URLS, or NULL before a query */
	char *written; /* the value set in its place, or NULL */
	struct dip_server *servers; /* the URLs of @user */
	size_t nr_servers;
	unsigned long epoch; /* servers found down so far */
} dip_servers = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* libdebuginfod's separators of DEBUGINFOD_URLS */
static const char dip_servers_sep[] = " \t\n";

/* A token of DEBUGINFOD_URLS is a server (not "ima:enforcing", say) */
static bool dip_server_is_url(const char *tok, size_t len)
{
	const char *p = memmem(tok, len, "://", 3);

	return p && p > tok;
}

/* The URL of @len bytes at @url without its trailing slashes, copied */
static char *dip_server_key(const char *url, size_t len)
{
	while (len > 0 && url[len - 1] == '/')
		len--;
	return strndup(url, len);
}

static struct dip_server *dip_server_find(const char *key)
{
	size_t i;

	for (i = 0; i < dip_servers.nr_servers; i++) {
		if (!strcmp(dip_servers.servers[i].key, key))
			return &dip_servers.servers[i];
	}
	return NULL;
}

static void dip_servers_clear(void)
{
	size_t i;

	for (i = 0; i < dip_servers.nr_servers; i++)
		free(dip_servers.servers[i].key);
	free(dip_servers.servers);
	dip_servers.servers = NULL;
	dip_servers.nr_servers = 0;
	free(dip_servers.user);
	dip_servers.user = NULL;
}

/*
 * The user's list is @urls: its servers, each known down still so.  False
 * when out of memory (no list then: every server asked).
 */
static bool dip_servers_take(const char *urls)
{
	struct dip_server *old = dip_servers.servers;
	size_t nr_old = dip_servers.nr_servers, i;
	const char *p = urls;
	bool ok = true;

	dip_servers.servers = NULL;
	dip_servers.nr_servers = 0;
	free(dip_servers.user);
	dip_servers.user = strdup(urls);
	while (ok && dip_servers.user && *(p += strspn(p, dip_servers_sep))) {
		size_t len = strcspn(p, dip_servers_sep);
		struct dip_server *s, *grown;
		char *key;

		if (!dip_server_is_url(p, len)) {
			p += len;
			continue;
		}
		key = dip_server_key(p, len);
		p += len;
		if (!key || dip_server_find(key)) {
			ok = key != NULL;
			free(key);
			continue;
		}
		grown = realloc(dip_servers.servers,
				(dip_servers.nr_servers + 1) * sizeof(*grown));
		if (!grown) {
			free(key);
			ok = false;
			break;
		}
		dip_servers.servers = grown;
		s = &grown[dip_servers.nr_servers++];
		*s = (struct dip_server){ .key = key };
		for (i = 0; i < nr_old; i++) {
			if (!strcmp(old[i].key, key)) {
				*s = old[i];
				s->key = key;
			}
		}
	}
	for (i = 0; i < nr_old; i++)
		free(old[i].key);
	free(old);
	if (!ok || !dip_servers.user) {
		dip_servers_clear();
		return false;
	}
	return true;
}

/*
 * The user's list, read again when DEBUGINFOD_URLS holds neither it nor
 * what was set in its place (the host set it: perf's --debuginfod=URLS).
 */
static const char *dip_servers_user(void)
{
	const char *env = getenv(DEBUGINFOD_URLS_ENV_VAR);
	const char *ours = dip_servers.written ?: dip_servers.user;

	if (!env)
		return NULL;
	if (!ours || strcmp(env, ours) != 0) {
		free(dip_servers.written);
		dip_servers.written = NULL;
		if (!dip_servers_take(env))
			return NULL;
	}
	return dip_servers.user;
}

/* DEBUGINFOD_URLS is @urls (overwritten only: see above) */
static void dip_servers_set(const char *urls)
{
	const char *env = getenv(DEBUGINFOD_URLS_ENV_VAR);
	char *copy;

	if (!env || !strcmp(env, urls))
		return;
	copy = strdup(urls);
	if (!copy || setenv(DEBUGINFOD_URLS_ENV_VAR, urls, 1)) {
		free(copy);
		return;
	}
	free(dip_servers.written);
	dip_servers.written = strcmp(urls, dip_servers.user) != 0 ? copy : NULL;
	if (!dip_servers.written)
		free(copy);
}

/* The name of @s's entry, ROOT/DIP_SERVERS_DIR/NAME, in @buf: 0, or -errno */
static int dip_server_entry(const struct dip_server *s, char *buf, size_t size)
{
	char name[NAME_MAX + 1];
	size_t n = 0;
	const char *p;

	/* the URL, but for [A-Za-z0-9._-], as %XX: one file name */
	for (p = s->key; *p && n + 4 < sizeof(name); p++) {
		if (strchr("._-", *p) || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
			name[n++] = *p;
		else
			n += (size_t)sprintf(name + n, "%%%02X",
					     (unsigned char)*p);
	}
	if (*p)
		return -ENAMETOOLONG;
	name[n] = '\0';
	return dip_cache_path(DIP_SERVERS_DIR, name, buf, size);
}

/* The end of a time, in the user's words */
static const char *dip_servers_clock(time_t t, char *buf, size_t size)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		snprintf(buf, size, "%llds from now",
			 (long long)(t - time(NULL)));
	return buf;
}

/* What another process found of @s, still true at @now */
static void dip_server_read(struct dip_server *s, time_t now)
{
	char path[PATH_MAX], why[sizeof(s->why)];
	struct stat st;
	ssize_t n;
	int fd;

	if (dip_server_entry(s, path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_mtime + dip_servers.down_s > now && st.st_mtime <= now + 1 &&
	    (n = read(fd, why, sizeof(why) - 1)) > 0) {
		char *err;

		why[n] = '\0';
		err = why + strcspn(why, "\n");
		/* "WHY\nERRNO\n" */
		s->err = *err ? (int)strtol(err + 1, NULL, 10) : 0;
		if (s->err <= 0)
			s->err = EHOSTDOWN;
		*err = '\0';
		snprintf(s->why, sizeof(s->why), "%s", why);
		s->down_until = st.st_mtime + dip_servers.down_s;
		/* found again, not the finding the user was told of */
		if (st.st_mtime > s->since + 1)
			s->told = false;
		s->since = st.st_mtime;
	}
	close(fd);
}

/* @s is down, for the processes after this one too */
static void dip_server_write(const struct dip_server *s)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], text[sizeof(s->why) + 16];
	int fd, len = snprintf(text, sizeof(text), "%s\n%d\n", s->why, s->err);

	if (dip_server_entry(s, path, sizeof(path)) ||
	    dip_cache_mkdir(DIP_SERVERS_DIR))
		return;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return;
	if (write(fd, text, (size_t)len) != len || fchmod(fd, 0644) ||
	    rename(tmp, path))
		unlink(tmp);
	close(fd);
}

/*
 * What to tell the user, said once the lock is let go: a host's log may
 * wait for its own locks
 */
struct dip_servers_news {
	char line[4][256];
	int n;
};

/* Tell the user once that @s is down, and till when: found @here or not */
static void dip_server_tell(struct dip_servers_news *news, struct dip_server *s,
			    bool here)
{
	char until[32], *line;
	size_t size;

	if (s->told || !news ||
	    news->n == (int)(sizeof(news->line) / sizeof(news->line[0])))
		return;
	s->told = true;
	line = news->line[news->n++];
	size = sizeof(news->line[0]);
	dip_servers_clock(s->down_until, until, sizeof(until));
	if (here)
		snprintf(line, size,
			 "server %s %s: not asked for %ld s, until %s (%s)",
			 s->key, s->why, dip_servers.down_s, until,
			 DIP_SERVERS_DOWN_KEY);
	else
		snprintf(line, size, "server %s not asked until %s: it %s (%s)",
			 s->key, until, s->why, DIP_SERVERS_DOWN_KEY);
}

static void dip_servers_say(const struct symprov_host *host,
			    const struct dip_servers_news *news)
{
	int i;

	for (i = 0; host && i < news->n; i++)
		dip_log(host, SYMPROV_LOG_WARN, "%s", news->line[i]);
}

/*
 * DEBUGINFOD_URLS: the user's list but the servers down at @now, told
 * in @news (NULL: not yet).  0, or when every server is down, the first
 * one's failure as a negative errno.
 */
static int dip_servers_refresh(struct dip_servers_news *news, time_t now)
{
	const char *user = dip_servers_user(), *p;
	size_t len, live = 0;
	char *urls, *out;
	int err = 0;

	if (!user || !dip_servers.nr_servers || !dip_servers.down_s)
		return 0;
	out = urls = malloc(strlen(user) + 1);
	if (!urls)
		return 0;
	for (p = user; *(p += strspn(p, dip_servers_sep)); p += len) {
		struct dip_server *s = NULL;

		len = strcspn(p, dip_servers_sep);
		if (dip_server_is_url(p, len)) {
			char *key = dip_server_key(p, len);

			s = key ? dip_server_find(key) : NULL;
			free(key);
		}
		if (s && s->down_until <= now)
			dip_server_read(s, now);
		if (s && s->down_until > now) {
			dip_server_tell(news, s, false);
			if (!err)
				err = -s->err;
			continue;
		}
		live += s != NULL;
		if (out != urls)
			*out++ = ' ';
		memcpy(out, p, len);
		out += len;
	}
	*out = '\0';
	dip_servers_set(urls);
	free(urls);
	return live ? 0 : err;
}

/* The setting: the host's key, the environment, the default */
static long dip_servers_down_s(const struct symprov_host *host)
{
	const char *v = host->config ?
				host->config(host->data, DIP_SERVERS_DOWN_KEY) :
				NULL;
	const char *from = DIP_SERVERS_DOWN_KEY;
	char *end;
	long s;

	if (!v) {
		v = getenv(DIP_SERVERS_DOWN_ENV);
		from = DIP_SERVERS_DOWN_ENV;
	}
	if (!v)
		return DIP_SERVERS_DOWN_S;
	errno = 0;
	s = strtol(v, &end, 10);
	if (errno || end == v || *end || s < 0) {
		dip_log(host, SYMPROV_LOG_WARN,
			"%s=%s: not a number of seconds; %d s it is", from, v,
			DIP_SERVERS_DOWN_S);
		return DIP_SERVERS_DOWN_S;
	}
	return s;
}

void dip_servers_get(const struct symprov_host *host)
{
	long down_s = dip_servers_down_s(host);

	pthread_mutex_lock(&dip_servers.lock);
	dip_servers.users++;
	dip_servers.down_s = down_s;
	/* libdw asks before this provider does, if nothing is missing */
	dip_servers_refresh(NULL, time(NULL));
	pthread_mutex_unlock(&dip_servers.lock);
}

void dip_servers_put(void)
{
	pthread_mutex_lock(&dip_servers.lock);
	if (!--dip_servers.users) {
		if (dip_servers.written && dip_servers.user)
			dip_servers_set(dip_servers.user);
		free(dip_servers.written);
		dip_servers.written = NULL;
		dip_servers_clear();
	}
	pthread_mutex_unlock(&dip_servers.lock);
}

bool dip_servers_configured(void)
{
	const char *user;
	bool any;

	pthread_mutex_lock(&dip_servers.lock);
	user = dip_servers_user();
	any = user && user[strspn(user, dip_servers_sep)];
	pthread_mutex_unlock(&dip_servers.lock);
	return any;
}

int dip_servers_begin(const struct symprov_host *host, unsigned long *epoch)
{
	struct dip_servers_news news = { .n = 0 };
	int err;

	pthread_mutex_lock(&dip_servers.lock);
	err = dip_servers_refresh(&news, time(NULL));
	*epoch = dip_servers.epoch;
	pthread_mutex_unlock(&dip_servers.lock);
	dip_servers_say(host, &news);
	return err;
}

bool dip_servers_down_since(unsigned long epoch)
{
	unsigned long now;

	pthread_mutex_lock(&dip_servers.lock);
	now = dip_servers.epoch;
	pthread_mutex_unlock(&dip_servers.lock);
	return now != epoch;
}

struct dip_servers_found {
	struct dip_servers_news news;
	int down; /* not known down before */
};

/* A dip_down_fn: the server the log names as @url is down */
static void dip_servers_found_down(const char *url, const char *why, int err,
				   void *arg)
{
	static const char suffix[] = "/buildid";
	struct dip_servers_found *f = arg;
	size_t len = strlen(url);
	time_t now = time(NULL);
	struct dip_server *s;
	char *key;

	/* libdebuginfod adds "/buildid" (or "buildid" after a slash) */
	if (len >= sizeof(suffix) - 1 &&
	    !strcmp(url + len - (sizeof(suffix) - 1), suffix))
		len -= sizeof(suffix) - 1;
	key = dip_server_key(url, len);
	s = key ? dip_server_find(key) : NULL;
	free(key);
	if (!s || s->down_until > now)
		return;
	snprintf(s->why, sizeof(s->why), "%s", why);
	s->err = err;
	s->down_until = now + dip_servers.down_s;
	s->since = now;
	s->told = false;
	dip_servers.epoch++;
	f->down++;
	dip_server_write(s);
	dip_server_tell(&f->news, s, true);
}

int dip_servers_note_log(const struct symprov_host *host, int vfd)
{
	struct dip_servers_found f = { .down = 0 };

	pthread_mutex_lock(&dip_servers.lock);
	if (dip_servers.down_s && dip_servers_user()) {
		dip_miss_log_servers_down(vfd, dip_servers_found_down, &f);
		if (f.down)
			dip_servers_refresh(&f.news, time(NULL));
	}
	pthread_mutex_unlock(&dip_servers.lock);
	dip_servers_say(host, &f.news);
	return f.down;
}
