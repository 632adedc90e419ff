/*
 * account.h — the OS account a job part runs as.
 *
 * A launcher running as root runs each job as the OS user mapped from the
 * job's owner role: the same name, unless the optional mapping file
 * (--user-map) says otherwise. A role without an OS account, one mapped
 * to uid 0 or root's group without --allow-root-jobs, or one mapped to a
 * system account (uid below --min-uid: postgres, www-data, daemon, ...)
 * runs nothing. A launcher that is not root runs every job as itself.
 */
#ifndef LX_ACCOUNT_H
#define LX_ACCOUNT_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* Which accounts a root launcher may run jobs as (--allow-root-jobs, --min-uid). */
typedef struct lx_account_rules
{
	bool		allow_root;		/* uid 0 and root's group too */
	uid_t		min_uid;		/* no other account below this uid */
} lx_account_rules;

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
int			lx_account_for(const char *owner, const lx_account_rules *rules, lx_account *a,
						   char *why, size_t why_size);

/* In the command's process: groups as a login sets them, then gid and uid. 0 or -1 and why. */
int			lx_account_become(const lx_account *a, char *why, size_t why_size);

#endif
