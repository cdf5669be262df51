/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user's keys during a fetch, from a terminal the host lets the
 * session read (symprov_session_read_keys()): one fetch of one session at
 * a time in the process, as the terminal and the signals are the
 * process's.
 */
#ifndef SYMPROV_KEYS_H
#define SYMPROV_KEYS_H

#include <stdbool.h>

/*
 * A fetch begins: put terminal @fd in non-canonical mode without echo and
 * catch SIGINT and SIGTERM (not when ignored).  Returns true when the
 * keys are read now; false when @fd is no terminal, the program is a
 * background job of it, or another fetch reads them.
 */
bool symprov_keys_begin(int fd);
/*
 * The key action so far, a SYMPROV_PROGRESS_*: STOP after 'd' or a
 * signal, SKIP after 's', else CONTINUE.
 */
int symprov_keys_poll(void);
/* The fetch ended: the terminal and the signals as they were */
void symprov_keys_end(void);

#endif /* SYMPROV_KEYS_H */
