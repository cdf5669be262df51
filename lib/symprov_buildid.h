/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Build IDs as text, what users type and what logs show:
 * symprov_build_id_parse() and symprov_build_id_hex(), declared in
 * libsymprov.h, which the providers include through this header too.
 */
#ifndef SYMPROV_BUILDID_H
#define SYMPROV_BUILDID_H

#include "libsymprov.h"

#endif /* SYMPROV_BUILDID_H */
