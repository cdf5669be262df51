// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * 's' skips a fetch, 'd' stops the providers, and so do SIGINT and
 * SIGTERM, which then do what they did before: a handler installed
 * before is called, a default action ends the program with the
 * terminal's echo put back.
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

static struct {
	bool busy; /* atomic: a fetch reads the keys */
	int fd;
	int action; /* SYMPROV_PROGRESS_* of the keys so far */
	struct termios old_term;
	struct sigaction old_int, old_term_sig;
} keys;

static volatile sig_atomic_t keys_interrupted;

static void keys_on_signal(int sig, siginfo_t *info, void *uc)
{
	struct sigaction *old = sig == SIGINT ? &keys.old_int :
						&keys.old_term_sig;
	int saved = errno;

	keys_interrupted = 1;
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, uc);
	} else if (old->sa_handler == SIG_DFL) {
		tcsetattr(keys.fd, TCSAFLUSH, &keys.old_term);
		sigaction(sig, old, NULL);
		raise(sig);
	} else if (old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
	errno = saved;
}

bool symprov_keys_begin(int fd)
{
	struct sigaction sa = {
		.sa_sigaction = keys_on_signal,
		.sa_flags = SA_SIGINFO,
	};
	struct termios term;

	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &term) ||
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
	tcsetattr(fd, TCSANOW, &term);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &keys.old_int);
	sigaction(SIGTERM, &sa, &keys.old_term_sig);
	return true;
}

int symprov_keys_poll(void)
{
	char c;

	while (read(keys.fd, &c, 1) == 1) {
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
	sigaction(SIGINT, &keys.old_int, NULL);
	sigaction(SIGTERM, &keys.old_term_sig, NULL);
	/* the keys typed during the fetch are not the program's */
	tcsetattr(keys.fd, TCSAFLUSH, &keys.old_term);
	__atomic_store_n(&keys.busy, false, __ATOMIC_RELEASE);
}
