/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The host's services, if it offers them: its log and its progress box. */
#ifndef DIP_HOST_H
#define DIP_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "symprov.h"

#define dip_log(host, level, ...)                                      \
	do {                                                           \
		if ((host)->log)                                       \
			(host)->log((host)->data, level, __VA_ARGS__); \
	} while (0)

/*
 * Tell the host that @req is still being served, @done of @total bytes
 * (0 when not known): true when it says to stop.
 */
static inline bool dip_host_says_stop(const struct symprov_host *host,
				      const struct symprov_request *req,
				      uint64_t done, uint64_t total)
{
	return host->progress && host->progress(host->data, req, done, total) !=
					 SYMPROV_PROGRESS_CONTINUE;
}

#endif /* DIP_HOST_H */
