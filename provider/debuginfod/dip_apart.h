/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A libdebuginfod query in a thread with a file table of its own. */
#ifndef DIP_APART_H
#define DIP_APART_H

#include "dip_compat.h"

typedef void (*dip_apart_fn)(debuginfod_client *client, void *arg);

/*
 * Call @fn(client, @arg) in a thread whose file descriptor table is its
 * own, with a client made there for it, and wait for it.  Returns 0 when
 * @fn ran; a negative errno when it could not run so (no thread, the
 * kernel refused to unshare the table: a seccomp filter, or a
 * ThreadSanitizer build), and @fn did not run.  What @fn opens is closed
 * when it returns: it hands back names.
 */
int dip_run_apart(dip_apart_fn fn, void *arg);

#endif /* DIP_APART_H */
