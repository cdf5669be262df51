// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "symprov_request.h"

int symprov_request_check(const struct symprov_request *req,
			  struct symprov_request *dst)
{
	if (!req || req->size < offsetof(struct symprov_request, content) ||
	    !req->build_id || !req->build_id_len ||
	    req->build_id_len > SYMPROV_BUILD_ID_MAX)
		return -EINVAL;
	if (dst && symprov_copy_struct(dst, sizeof(*dst), req, req->size))
		return -EINVAL;
	return 0;
}

bool symprov_kind_has_symbols_only(uint32_t kind)
{
	return kind == SYMPROV_KIND_KERNEL ||
	       kind == SYMPROV_KIND_KERNEL_MODULE;
}
