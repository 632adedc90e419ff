/*
 * privilege.h — the scheduler writes every user's jobs, so rounds and
 * launches run as the owner of mixdnn.jobs (the extension's owner), the way
 * PostgreSQL runs maintenance as a table's owner.
 */
#ifndef MIXDNN_PRIVILEGE_H
#define MIXDNN_PRIVILEGE_H

#include "postgres.h"

typedef struct mx_saved_user
{
	Oid			user;
	int			sec;
} mx_saved_user;

void		mx_become_owner(mx_saved_user *saved);
void		mx_restore_user(const mx_saved_user *saved);

#endif
