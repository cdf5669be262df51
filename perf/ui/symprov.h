/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _PERF_UI_SYMPROV_H_
#define _PERF_UI_SYMPROV_H_ 1

#include <linux/types.h>

struct symprov_answer;

/*
 * What a person sees of a symbol provider's fetch, see ui/symprov.c.  One
 * fetch at a time: util/symprov.c serializes them.
 */

/* Another thread of the tool reads the terminal's keys (perf top) */
void symprov_ui__no_keys(void);

/* A fetch of @what ("vmlinux 7f76f39faf07") starts */
void symprov_ui__begin(const char *what);
/* @done of @total bytes (0: unknown); returns a SYMPROV_PROGRESS_* action */
int symprov_ui__progress(const char *provider, u64 done, u64 total);
/* Take the stdio progress line away before a message is printed */
void symprov_ui__clear(void);
/* The fetch is over: returns the SYMPROV_PROGRESS_* key the user pressed */
int symprov_ui__end(void);

/*
 * The one line about the result of a request for the vmlinux with build
 * ID @sbuild_id, for @content (SYMPROV_CONTENT_*): which provider supplied
 * it and how much of it, or why none could.  @action is what
 * symprov_ui__end() returned.
 */
void symprov_ui__result(const char *sbuild_id, u32 content,
			const struct symprov_answer *ans, int action);

#endif /* _PERF_UI_SYMPROV_H_ */
