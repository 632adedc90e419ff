/*
 * account.h — the OS account a job part runs as.
 *
 * A launcher running as root runs each job as the OS user mapped from the
 * job's owner role: the same name, unless the optional mapping file
 * (--user-map) says otherwise. A role without an OS account, or one mapped
 * to uid 0 without --allow-root-jobs, runs nothing. A launcher that is not
 * root runs every job as itself.
 */
#ifndef LX_ACCOUNT_H
#define LX_ACCOUNT_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct lx_account
{
	uid_t		uid;
	gid_t		gid;
	char		name[256];
	char		home[PATH_MAX];
	char		shell[PATH_MAX];
} lx_account;

/* Reads the mapping file: lines "ROLE OS_USER", # comments. 0, or -1 and why. */
int			lx_usermap_load(const char *path, char *why, size_t why_size);

/* 0 and the account the owner's jobs run as, or -1 and why (for the job's reason). */
int			lx_account_for(const char *owner, bool allow_root, lx_account *a, char *why, size_t why_size);

/* In the command's process: groups as a login sets them, then gid and uid. 0 or -1 and why. */
int			lx_account_become(const lx_account *a, char *why, size_t why_size);

#endif
