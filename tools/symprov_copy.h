/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A file a provider found, copied into a tree others read (a build-id
 * tree, perf's build-id cache) so that no reader ever opens part of it,
 * and checked as the library checks every provider's answer.
 */
#ifndef SYMPROV_COPY_H
#define SYMPROV_COPY_H

#include <stdbool.h>
#include <stdint.h>

/* @path is a regular file of @kind (enum symprov_kind) with the build ID. */
bool copy_is_checked_file(const char *path, uint32_t kind,
			  const unsigned char *build_id, unsigned int len);

/* The names made in @dir last once the system crashes: it synced. */
void copy_sync_dir(const char *dir);

/*
 * Copy @src to @dir/@name: a temporary file in @dir, synced, checked to
 * be of @kind with the build ID, then given its name, replacing a file
 * there when @replace, else keeping one put there meanwhile.  Returns 0,
 * or a negative errno with *@step what failed.
 */
int copy_checked(const char *src, const char *dir, const char *name,
		 uint32_t kind, const unsigned char *build_id, unsigned int len,
		 bool replace, const char **step);

#endif /* SYMPROV_COPY_H */
