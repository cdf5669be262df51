// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 's' skips a fetch, 'd' stops the providers, and so do SIGINT and
 * SIGTERM, which then do what they did before: the terminal is put back
 * first, then a handler installed before is called, or a default action
 * ends the program.  A signal the program ignores stays ignored.  Not in a
 * background job: the terminal is the foreground's, and touching it would
 * stop the program (SIGTTOU, SIGTTIN).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "symprov.h"
#include "symprov_keys.h"

static const int keys_signals[] = { SIGINT, SIGTERM };
#define KEYS_NR_SIGNALS (sizeof(keys_signals) / sizeof(keys_signals[0]))

static struct {
	bool busy; /* atomic: a fetch reads the keys */
	int fd;
	int action; /* SYMPROV_PROGRESS_* of the keys so far */
	struct termios old_term;
	/* of keys_signals[], as the program had them */
	struct sigaction old[KEYS_NR_SIGNALS];
	bool caught[KEYS_NR_SIGNALS];
} keys;

static volatile sig_atomic_t keys_interrupted;

/* A terminal whose foreground is another process group's: ours is not */
static bool keys_background(int fd)
{
	pid_t fg = tcgetpgrp(fd);

	return fg >= 0 && fg != getpgrp();
}

/* The index of @sig, one of keys_signals[] (the handler gets no other) */
static size_t keys_index(int sig)
{
	size_t i = 0;

	while (i < KEYS_NR_SIGNALS - 1 && keys_signals[i] != sig)
		i++;
	return i;
}

static void keys_on_signal(int sig, siginfo_t *info, void *uc)
{
	struct sigaction *old = &keys.old[keys_index(sig)];
	int saved = errno;

	keys_interrupted = 1;
	/* the host's handler may end the program: the terminal as it was */
	tcsetattr(keys.fd, TCSAFLUSH, &keys.old_term);
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, uc);
	} else if (old->sa_handler == SIG_DFL) {
		sigaction(sig, old, NULL);
		raise(sig);
	} else {
		old->sa_handler(sig);
	}
	errno = saved;
}

/* Catch @i of keys_signals[] with the program's flags and mask */
static void keys_catch(size_t i)
{
	struct sigaction *old = &keys.old[i], sa;

	/* read first: a signal on the way finds the program's action */
	keys.caught[i] =
		!sigaction(keys_signals[i], NULL, old) &&
		(old->sa_flags & SA_SIGINFO || old->sa_handler != SIG_IGN);
	if (!keys.caught[i])
		return;
	sa = *old;
	sa.sa_sigaction = keys_on_signal;
	sa.sa_flags = SA_SIGINFO | (old->sa_flags & (SA_RESTART | SA_ONSTACK));
	keys.caught[i] = !sigaction(keys_signals[i], &sa, NULL);
}

bool symprov_keys_begin(int fd)
{
	struct termios term;
	size_t i;

	if (fd < 0 || !isatty(fd) || keys_background(fd) ||
	    tcgetattr(fd, &term) ||
	    __atomic_exchange_n(&keys.busy, true, __ATOMIC_ACQUIRE))
		return false;
	keys.fd = fd;
	keys.action = SYMPROV_PROGRESS_CONTINUE;
	keys_interrupted = 0;
	keys.old_term = term;
	/* what was typed before the fetch counts too: TCSANOW */
	term.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	term.c_cc[VMIN] = 0;
	term.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &term)) {
		__atomic_store_n(&keys.busy, false, __ATOMIC_RELEASE);
		return false;
	}
	for (i = 0; i < KEYS_NR_SIGNALS; i++)
		keys_catch(i);
	return true;
}

int symprov_keys_poll(void)
{
	/* a background job's terminal is not its own to read */
	bool ours = !keys_background(keys.fd);
	char c;

	/* after a signal the terminal is back in canonical mode: not read */
	while (ours && !keys_interrupted && read(keys.fd, &c, 1) == 1) {
		if (c == 'd')
			keys.action = SYMPROV_PROGRESS_STOP;
		else if (c == 's' && !keys.action)
			keys.action = SYMPROV_PROGRESS_SKIP;
	}
	if (keys_interrupted)
		keys.action = SYMPROV_PROGRESS_STOP;
	return keys.action;
}

void symprov_keys_end(void)
{
	sigset_t ttou, old;
	size_t i;

	for (i = 0; i < KEYS_NR_SIGNALS; i++) {
		if (keys.caught[i])
			sigaction(keys_signals[i], &keys.old[i], NULL);
	}
	/*
	 * The keys typed during the fetch are not the program's.  Put into
	 * the background meanwhile, it may still set the terminal back with
	 * SIGTTOU blocked.
	 */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	tcsetattr(keys.fd, TCSAFLUSH, &keys.old_term);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__atomic_store_n(&keys.busy, false, __ATOMIC_RELEASE);
}
