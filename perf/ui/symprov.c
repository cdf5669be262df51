// SPDX-License-Identifier: GPL-2.0
/*
 * What a person sees while a symbol provider fetches a file (util/symprov.c
 * asks them), in every perf UI:
 *
 *  - the TUI: perf's progress box (ui_progress) titled with the provider,
 *    what it fetches and the bytes so far, and the keys on the help line;
 *    when another thread reads the keys (perf top's display) the help line
 *    alone shows the progress, so the screen stays the tool's;
 *  - stdio on a terminal: one line on stderr, redrawn in place; through
 *    perf's pager, which has the terminal, one line when it starts;
 *  - the keys, where nothing else reads them: 's' skips this file, 'd'
 *    stops asking the providers for the session.  Ctrl-C and SIGTERM stop
 *    them too, then do what they did before.  The terminal is put back as
 *    it was afterwards;
 *  - the one line about the result: which provider supplied what, and how
 *    much of it, or why no provider could.
 *
 * A fetch also stops once the tool is ending its session (session_done(),
 * e.g. perf top quitting).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <subcmd/pager.h>

#include "../util/debug.h"
#include "../util/mutex.h"
#include "../util/session.h"
#include "../util/term.h"
#include "../util/symprov/symprov_loader.h"
#include "helpline.h"
#include "progress.h"
#include "symprov.h"
#include "ui.h"

#define SYMPROV_UI_INTERVAL_NS (200 * NSEC_PER_MSEC)
#define SYMPROV_UI_KEYS "[s]kip [d]isable"

enum symprov_ui_mode {
	SYMPROV_UI_NONE, /* not on a terminal: messages only */
	SYMPROV_UI_LINE, /* stdio: a line on stderr */
	SYMPROV_UI_PAGER, /* stdio through the pager: a line when it starts */
	SYMPROV_UI_BOX, /* TUI: the progress box and the help line */
	SYMPROV_UI_HELPLINE, /* TUI, another thread's screen: help line */
};

static struct {
	struct mutex lock;
	bool no_keys;
	enum symprov_ui_mode mode;
	bool keys; /* stdin is read for 's' and 'd' */
	bool shown; /* something is on the screen */
	int key_action; /* SYMPROV_PROGRESS_* the user asked for */
	bool stopping; /* a signal, or the tool ends its session */
	u64 last_ns;
	char what[64];
	char title[160];
	struct ui_progress progress;
	struct termios old_term;
} symprov_ui;

/* SIGINT or SIGTERM came during a fetch: stop asking */
static volatile sig_atomic_t symprov_ui_interrupted;
static struct sigaction symprov_ui_old_sigint, symprov_ui_old_sigterm;
static pthread_once_t symprov_ui_once = PTHREAD_ONCE_INIT;

static void symprov_ui__init_lock(void)
{
	mutex_init(&symprov_ui.lock);
}

void symprov_ui__no_keys(void)
{
	symprov_ui.no_keys = true;
}

/* "12.0/340.7 MiB", "1.2 MiB" */
static void symprov_ui__bytes(char *buf, size_t size, u64 done, u64 total)
{
	const double mib = 1024 * 1024;

	if (total)
		scnprintf(buf, size, "%.1f/%.1f MiB", done / mib, total / mib);
	else
		scnprintf(buf, size, "%.1f MiB", done / mib);
}

/*
 * Ctrl-C or SIGTERM during a fetch stops the providers for the session,
 * then does what it did before: perf report's handler ends the session,
 * the TUI's restores the terminal and exits; a default action ends perf,
 * with the terminal's echo put back first.
 */
static void symprov_ui__signal(int sig)
{
	struct sigaction *old = sig == SIGINT ? &symprov_ui_old_sigint :
						&symprov_ui_old_sigterm;

	symprov_ui_interrupted = 1;
	if (old->sa_handler == SIG_IGN)
		return;
	if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &symprov_ui.old_term);
	sigaction(sig, old, NULL);
	raise(sig);
}

static void symprov_ui__catch_signals(bool catch)
{
	struct sigaction sa = { .sa_handler = symprov_ui__signal };

	if (catch) {
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &symprov_ui_old_sigint);
		sigaction(SIGTERM, &sa, &symprov_ui_old_sigterm);
	} else {
		sigaction(SIGINT, &symprov_ui_old_sigint, NULL);
		sigaction(SIGTERM, &symprov_ui_old_sigterm, NULL);
	}
}

/*
 * Where the fetch shows, and whether its keys are read: stdin a terminal
 * that nobody else reads.  In stdio mode perf top's display thread turns
 * canonical mode off while it reads; the TUI always has it off, so there
 * the tool says so (symprov_ui__no_keys()).
 */
static void symprov_ui__setup(void)
{
	struct termios term;
	bool tty_in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &term);

	if (use_browser > 0) {
		symprov_ui.mode = symprov_ui.no_keys ? SYMPROV_UI_HELPLINE :
						       SYMPROV_UI_BOX;
		symprov_ui.keys = tty_in && !symprov_ui.no_keys;
	} else if (isatty(STDERR_FILENO)) {
		symprov_ui.mode = SYMPROV_UI_LINE;
		symprov_ui.keys = tty_in && !symprov_ui.no_keys &&
				  (term.c_lflag & ICANON);
	} else if (pager_in_use()) {
		/* the pager reads the keys */
		symprov_ui.mode = SYMPROV_UI_PAGER;
		symprov_ui.keys = false;
	} else {
		symprov_ui.mode = SYMPROV_UI_NONE;
		symprov_ui.keys = false;
	}
}

void symprov_ui__begin(const char *what)
{
	pthread_once(&symprov_ui_once, symprov_ui__init_lock);
	mutex_lock(&symprov_ui.lock);
	strlcpy(symprov_ui.what, what, sizeof(symprov_ui.what));
	symprov_ui.key_action = SYMPROV_PROGRESS_CONTINUE;
	symprov_ui.stopping = false;
	symprov_ui.shown = false;
	symprov_ui__setup();
	if (symprov_ui.keys) {
		set_term_quiet_input(&symprov_ui.old_term);
		symprov_ui__catch_signals(true);
	}
	mutex_unlock(&symprov_ui.lock);
}

static void symprov_ui__read_keys(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 's' &&
		    symprov_ui.key_action == SYMPROV_PROGRESS_CONTINUE)
			symprov_ui.key_action = SYMPROV_PROGRESS_SKIP;
		else if (c == 'd')
			symprov_ui.key_action = SYMPROV_PROGRESS_STOP;
	}
}

/* The TUI's progress box, with the keys on the help line */
static void symprov_ui__draw_box(u64 done, u64 total)
{
	struct ui_progress *p = &symprov_ui.progress;

	if (!symprov_ui.shown) {
		ui_progress__init(p, 1, symprov_ui.title);
		mutex_lock(&ui__lock);
		ui_helpline__push(
			symprov_ui.keys ?
				"symprov: press 's' to skip this file, 'd' to stop asking the symbol providers" :
				"symprov: fetching with the symbol providers");
		mutex_unlock(&ui__lock);
	}
	/* ui_progress__update() draws nothing of a total of 0: an empty bar */
	p->title = symprov_ui.title;
	p->total = total ?: 1;
	p->curr = total ? min(done, total) : 0;
	p->next = 0; /* draw now */
	ui_progress__update(p, 0);
}

static u64 symprov_ui__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void symprov_ui__draw(const char *provider, u64 done, u64 total)
{
	u64 now = symprov_ui__now_ns();
	char bytes[64];

	if (symprov_ui.mode == SYMPROV_UI_NONE ||
	    (symprov_ui.mode == SYMPROV_UI_PAGER && symprov_ui.shown))
		return;
	if (symprov_ui.shown && done != total &&
	    now - symprov_ui.last_ns < SYMPROV_UI_INTERVAL_NS)
		return;
	symprov_ui.last_ns = now;

	symprov_ui__bytes(bytes, sizeof(bytes), done, total);
	scnprintf(symprov_ui.title, sizeof(symprov_ui.title),
		  "symprov: %.16s: %s: %s", provider ?: "?", symprov_ui.what,
		  bytes);
	switch (symprov_ui.mode) {
	case SYMPROV_UI_LINE:
		fprintf(stderr, "\r%s%s%s\033[K", symprov_ui.title,
			symprov_ui.keys ? "  " : "",
			symprov_ui.keys ? SYMPROV_UI_KEYS : "");
		break;
	case SYMPROV_UI_PAGER:
		fprintf(stderr, "symprov: %.16s: fetching the %s\n",
			provider ?: "?", symprov_ui.what);
		break;
	case SYMPROV_UI_BOX:
		symprov_ui__draw_box(done, total);
		break;
	case SYMPROV_UI_HELPLINE:
		mutex_lock(&ui__lock);
		ui_helpline__push(symprov_ui.title);
		mutex_unlock(&ui__lock);
		break;
	case SYMPROV_UI_NONE:
	default:
		break;
	}
	symprov_ui.shown = true;
}

int symprov_ui__progress(const char *provider, u64 done, u64 total)
{
	int action;

	mutex_lock(&symprov_ui.lock);
	if (symprov_ui.keys)
		symprov_ui__read_keys();
	if (symprov_ui_interrupted || session_done())
		symprov_ui.stopping = true;
	symprov_ui__draw(provider, done, total);
	action = symprov_ui.stopping ? SYMPROV_PROGRESS_STOP :
				       symprov_ui.key_action;
	mutex_unlock(&symprov_ui.lock);
	return action;
}

/* With symprov_ui.lock held */
static void __symprov_ui__clear(void)
{
	if (!symprov_ui.shown)
		return;
	switch (symprov_ui.mode) {
	case SYMPROV_UI_LINE:
		fputs("\r\033[K", stderr);
		break;
	case SYMPROV_UI_BOX:
		ui_progress__finish();
		/* fall through */
	case SYMPROV_UI_HELPLINE:
		mutex_lock(&ui__lock);
		ui_helpline__push(" ");
		mutex_unlock(&ui__lock);
		break;
	case SYMPROV_UI_PAGER:
	case SYMPROV_UI_NONE:
	default:
		break;
	}
	symprov_ui.shown = false;
}

void symprov_ui__clear(void)
{
	pthread_once(&symprov_ui_once, symprov_ui__init_lock);
	mutex_lock(&symprov_ui.lock);
	/* The box stays: messages go to the help line in the TUI */
	if (symprov_ui.mode == SYMPROV_UI_LINE)
		__symprov_ui__clear();
	mutex_unlock(&symprov_ui.lock);
}

int symprov_ui__end(void)
{
	int action;

	mutex_lock(&symprov_ui.lock);
	__symprov_ui__clear();
	if (symprov_ui.keys) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &symprov_ui.old_term);
		symprov_ui__catch_signals(false);
	}
	symprov_ui.keys = false;
	symprov_ui.mode = SYMPROV_UI_NONE;
	action = symprov_ui.key_action;
	mutex_unlock(&symprov_ui.lock);
	return action;
}

/* A person looks at the screen: the TUI, stderr on a terminal, the pager */
static bool symprov_ui__seen(void)
{
	return use_browser > 0 || isatty(STDERR_FILENO) || pager_in_use();
}

void symprov_ui__result(const char *sbuild_id, u32 content,
			const struct symprov_answer *ans, int action)
{
	const char *whole = content == SYMPROV_CONTENT_FULL ? "whole " : "";
	const char *source = ans->source ?: "?";
	int error = ans->error;
	char bytes[64] = "";
	struct stat st;

	switch (ans->status) {
	case SYMPROV_FOUND:
		if (!symprov_ui__seen() && verbose <= 0)
			break;
		if (!stat(ans->path, &st))
			symprov_ui__bytes(bytes, sizeof(bytes), st.st_size, 0);
		/* what matters first: the TUI's help line cuts what is long */
		pr_info("symprov: %s supplied %s%s%s%s of the vmlinux with build ID %s\n",
			source,
			ans->content == SYMPROV_CONTENT_SYMBOLS ?
				"the symbols only" :
				"the whole file",
			*bytes ? " (" : "", bytes, *bytes ? ")" : "",
			sbuild_id);
		pr_debug("symprov: vmlinux with build ID %s: %s\n", sbuild_id,
			 ans->path);
		break;
	case SYMPROV_CANCELLED:
		if (action == SYMPROV_PROGRESS_STOP)
			pr_warning(
				"symprov: providers disabled for this session\n");
		else if (action == SYMPROV_PROGRESS_SKIP)
			pr_warning(
				"symprov: skipped the %svmlinux with build ID %s\n",
				whole, sbuild_id);
		break;
	default:
		/* "not found, No such file or directory" says it twice */
		if (ans->status == SYMPROV_NOT_FOUND && error == ENOENT)
			error = 0;
		pr_warning(
			"symprov: no provider supplied the %svmlinux (%s: %s%s%s), build ID %s\n",
			whole, source, symprov_status_str(ans->status),
			error ? ", " : "", error ? strerror(error) : "",
			sbuild_id);
		break;
	}
}
