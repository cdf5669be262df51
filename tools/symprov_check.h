/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* symprov check: a conformance check of one provider, for its author. */
#ifndef SYMPROV_CHECK_H
#define SYMPROV_CHECK_H

/*
 * "symprov check [--timeout SECONDS] FILE.so": argv[0] is "check".  A bare
 * name is looked for in what @provider_dir() returns (malloc()ed, or NULL)
 * first, as "symprov find" does.  Returns the exit code: 0 conforming, 1
 * bad input, 2 not conforming.
 */
int symprov_check_main(int argc, char **argv, int verbose,
		       char *(*provider_dir)(void));

#endif /* SYMPROV_CHECK_H */
