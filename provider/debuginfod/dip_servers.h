/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The servers of $DEBUGINFOD_URLS that are asked, and those that are down. */
#ifndef DIP_SERVERS_H
#define DIP_SERVERS_H

#include <stdbool.h>

#include "symprov.h"

/* How long a server that did not answer is not asked, by default */
#define DIP_SERVERS_DOWN_S 300
/* ... as the host's config key, and as the environment says */
#define DIP_SERVERS_DOWN_KEY "symprov.debuginfod.server-down-s"
#define DIP_SERVERS_DOWN_ENV "SYMPROV_DEBUGINFOD_SERVER_DOWN_S"

/*
 * A provider of @host begins: its setting of how long a server is down,
 * and DEBUGINFOD_URLS without the servers other processes found down
 * (libdw's own lookups read it too).  Undone by the last dip_servers_put().
 */
void dip_servers_get(const struct symprov_host *host);
void dip_servers_put(void);

/* The user's DEBUGINFOD_URLS names something to ask. */
bool dip_servers_configured(void);

/*
 * Before a query: DEBUGINFOD_URLS holds the user's servers but those that
 * are down, each of those told to the user once through @host.  0; when
 * every server is down (only the client cache may answer), how the first
 * one failed, a negative errno (-ETIME).  *@epoch is for
 * dip_servers_down_since().
 */
int dip_servers_begin(const struct symprov_host *host, unsigned long *epoch);

/* A server was found down since dip_servers_begin() gave @epoch. */
bool dip_servers_down_since(unsigned long epoch);

/*
 * The servers that libdebuginfod's verbose log of a query (@vfd) shows
 * not answering are down, for this process and, for the setting's time,
 * for the others (a file each in the client cache); told once through
 * @host.  Returns how many were not known down before.
 */
int dip_servers_note_log(const struct symprov_host *host, int vfd);

#endif /* DIP_SERVERS_H */
