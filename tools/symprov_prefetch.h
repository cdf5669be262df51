/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* symprov prefetch: fetch what a profile needs, to report it offline. */
#ifndef SYMPROV_PREFETCH_H
#define SYMPROV_PREFETCH_H

#include "symprov_cli.h"

/*
 * "symprov prefetch [-i perf.data] [--into DIR] [--jobs N] ...": argv[0]
 * is "prefetch".  Returns the exit code (enum symprov_exit).
 */
int symprov_prefetch_main(struct cli *cli, int argc, char **argv);

#endif /* SYMPROV_PREFETCH_H */
