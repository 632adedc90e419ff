/*
 * privilege.h — the scheduler writes every user's jobs, so rounds and
 * launches run as the owner of mixdnn.jobs (the extension's owner), the way
 * PostgreSQL runs maintenance as a table's owner: with search_path pinned
 * to pg_catalog, pg_temp, so no name in their queries resolves to an object
 * of the caller's, and with every lock wait bounded by mixdnn.lock_timeout.
 */
#ifndef MIXDNN_PRIVILEGE_H
#define MIXDNN_PRIVILEGE_H

#include "postgres.h"

/* The only search_path under which the extension's own queries run. */
#define MX_PINNED_SEARCH_PATH "pg_catalog, pg_temp"

typedef struct mx_saved_user
{
	Oid			user;
	int			sec;
	int			nest;			/* GUC nest level of the pinned settings */
} mx_saved_user;

void		mx_become_owner(mx_saved_user *saved);
void		mx_restore_user(const mx_saved_user *saved);

/*
 * search_path = pg_catalog, pg_temp until mx_unpin_search_path(); for code
 * that runs SQL as its caller but shares prepared plans with the owner's.
 */
int			mx_pin_search_path(void);
void		mx_unpin_search_path(int nest);

#endif
