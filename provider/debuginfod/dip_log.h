/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Log through the host, if it listens. */
#ifndef DIP_LOG_H
#define DIP_LOG_H

#include "symprov.h"

#define dip_log(host, level, ...)                                      \
	do {                                                           \
		if ((host)->log)                                       \
			(host)->log((host)->data, level, __VA_ARGS__); \
	} while (0)

#endif /* DIP_LOG_H */
