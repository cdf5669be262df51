/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A request of the provider ABI, checked the same way on both sides. */
#ifndef SYMPROV_REQUEST_H
#define SYMPROV_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "symprov.h"

/*
 * @req has every field of ABI 1.0 and a build ID of 1 to
 * SYMPROV_BUILD_ID_MAX bytes.  With @dst, what a provider reads: @req is
 * copied into it, zero extended, and a tail past what this side knows
 * must be zero.  Returns 0, or -EINVAL.
 */
int symprov_request_check(const struct symprov_request *req,
			  struct symprov_request *dst);

/*
 * Whether a provider may answer @kind (enum symprov_kind) with its
 * symbols only (SYMPROV_CONTENT_SYMBOLS): a kernel and a kernel module,
 * whose symbol tables perf can read without their code.
 */
bool symprov_kind_has_symbols_only(uint32_t kind);

#endif /* SYMPROV_REQUEST_H */
