/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libdebuginfod's limits as it reads them from the environment, and the
 * clock they are measured by.
 */
#ifndef DIP_ENV_H
#define DIP_ENV_H

#include <stdlib.h>
#include <time.h>

/* A whole number from the environment, or @def when it is not set. */
static inline long dip_env_long(const char *name, long def)
{
	const char *env = getenv(name);

	return env ? strtol(env, NULL, 10) : def;
}

/* Seconds of CLOCK_MONOTONIC: a clock set back stops no limit. */
static inline time_t dip_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec;
}

#endif /* DIP_ENV_H */
