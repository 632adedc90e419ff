/*
 * account.c — mapping job owners to OS accounts and becoming them.
 */
#include <errno.h>
#include <limits.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account.h"
#include "safepath.h"

typedef struct map_entry
{
	char	   *role;
	char	   *user;
} map_entry;

static map_entry *map = NULL;
static int	nmap = 0;

/* a user map's longest line, its newline not counted */
#define LINE_MAX_BYTES 1022

/*
 * One line of the user map read into role and user: 1 a mapping, 0 none
 * (blank or a comment), -1 an error in why. A mistake here runs a job as
 * another account than the one the administrator named, so whatever is not
 * plainly one mapping is an error, not skipped.
 */
static int
map_line(const char *path, FILE *f, char *line, int lineno, char *role, char *user,
		 char *why, size_t why_size)
{
	char		extra[2];
	int			n;

	/* read in pieces, the rest of a long comment would be a line of its own: "ROLE OS_USER" */
	if (strchr(line, '\n') == NULL && !feof(f))
	{
		snprintf(why, why_size, "user map \"%s\" line %d: longer than %d bytes", path, lineno, LINE_MAX_BYTES);
		return -1;
	}
	/* an editor's byte-order mark would be part of the first role's name, which then maps no role */
	if (lineno == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
	{
		snprintf(why, why_size, "user map \"%s\" line 1: starts with a byte-order mark (save it without one)", path);
		return -1;
	}
	line[strcspn(line, "#\n")] = '\0';
	n = sscanf(line, "%255s %255s %1s", role, user, extra);
	if (n <= 0)
		return 0;
	if (n != 2)
	{
		snprintf(why, why_size, "user map \"%s\" line %d: \"ROLE OS_USER\" expected", path, lineno);
		return -1;
	}
	/* a role mapped twice is ambiguous: refused rather than one line picked */
	for (int i = 0; i < nmap; i++)
		if (strcmp(map[i].role, role) == 0)
		{
			snprintf(why, why_size, "user map \"%s\" line %d: role \"%s\" is mapped on an earlier line too",
					 path, lineno, role);
			return -1;
		}
	return 1;
}

int
lx_usermap_load(const char *path, char *why, size_t why_size)
{
	char		bad[PATH_MAX + 256];
	/* it decides whose account a job runs as: no one else may change it */
	FILE	   *f = lx_safe_fopen(path, bad, sizeof(bad));
	char		line[LINE_MAX_BYTES + 2];
	int			lineno = 0;

	if (f == NULL)
	{
		snprintf(why, why_size, "user map \"%s\" %s", path, bad);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
	{
		char		role[256],
					user[256];
		int			rc = map_line(path, f, line, ++lineno, role, user, why, why_size);
		map_entry  *m;

		if (rc < 0)
		{
			fclose(f);
			return -1;
		}
		if (rc == 0)
			continue;
		m = realloc(map, (nmap + 1) * sizeof(map_entry));
		if (m == NULL || (m[nmap].role = strdup(role)) == NULL || (m[nmap].user = strdup(user)) == NULL)
		{
			snprintf(why, why_size, "out of memory");
			fclose(f);
			return -1;
		}
		map = m;
		nmap++;
	}
	fclose(f);
	return 0;
}

static const char *
mapped_user(const char *owner)
{
	int			i;

	for (i = 0; i < nmap; i++)
		if (strcmp(map[i].role, owner) == 0)
			return map[i].user;
	return owner;
}

static void
copy_account(const struct passwd *pw, lx_account *a)
{
	a->uid = pw->pw_uid;
	a->gid = pw->pw_gid;
	snprintf(a->name, sizeof(a->name), "%s", pw->pw_name);
	snprintf(a->home, sizeof(a->home), "%s", pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : "/");
	snprintf(a->shell, sizeof(a->shell), "%s", pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
}

/*
 * Group 0 reads and writes what root's group may (/etc/shadow's backups,
 * root-owned group-writable files): as much a root job as uid 0. The
 * groups are those initgroups() will give the job, primary included.
 */
static bool
in_root_group(const struct passwd *pw)
{
	gid_t		fixed[64];
	gid_t	   *groups = fixed;
	int			n = 64,
				i;
	bool		found = pw->pw_gid == 0;

	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
	{
		groups = malloc(sizeof(gid_t) * (size_t) n);
		/* cannot tell: refuse rather than run a job that may be root's group */
		if (groups == NULL || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		{
			free(groups);
			return true;
		}
	}
	for (i = 0; i < n && !found; i++)
		found = groups[i] == 0;
	if (groups != fixed)
		free(groups);
	return found;
}

int
lx_account_for(const char *owner, const lx_account_rules *rules, lx_account *a, char *why, size_t why_size)
{
	struct passwd *pw;
	const char *user;

	if (geteuid() != 0)
	{
		pw = getpwuid(geteuid());
		if (pw == NULL)
		{
			snprintf(why, why_size, "the launcher's own uid %d has no passwd entry", (int) geteuid());
			return -1;
		}
		copy_account(pw, a);
		return 0;
	}
	user = mapped_user(owner);
#ifdef LX_TEST_SLOW_LOOKUP
	/* the test build only (Makefile): the lookup of owners mxe2e_slow* takes 15 s, as a slow directory service's may */
	if (strncmp(owner, "mxe2e_slow", 10) == 0)
		sleep(15);
#endif
	errno = 0;
	pw = getpwnam(user);
	/* getpwnam(3): these errors, or none, mean "no such user"; others are a failed lookup */
	if (pw == NULL && errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF && errno != EPERM)
	{
		snprintf(why, why_size, "cannot look up OS user \"%s\" for role \"%s\": %s", user, owner, strerror(errno));
		return -1;
	}
	if (pw == NULL)
	{
		if (strcmp(user, owner) == 0)
			snprintf(why, why_size, "role \"%s\" has no OS account of that name on this node (map it with --user-map)", owner);
		else
			snprintf(why, why_size, "role \"%s\" is mapped to OS user \"%s\", which does not exist on this node", owner, user);
		return -1;
	}
	if (pw->pw_uid == 0 && !rules->allow_root)
	{
		snprintf(why, why_size, "role \"%s\" maps to OS user \"%s\" (uid 0): jobs do not run as root without --allow-root-jobs",
				 owner, user);
		return -1;
	}
	if (!rules->allow_root && in_root_group(pw))
	{
		snprintf(why, why_size, "role \"%s\" maps to OS user \"%s\", which is in group 0 (root): "
				 "jobs do not run with root's group without --allow-root-jobs", owner, user);
		return -1;
	}
	/*
	 * A system account owns a service's files (postgres owns the database's
	 * data directory): a job as that account is that service. The database
	 * refuses such owners from non-superusers; this holds even if that rule
	 * were bypassed, or a role were named after one.
	 */
	if (pw->pw_uid != 0 && pw->pw_uid < rules->min_uid)
	{
		snprintf(why, why_size, "role \"%s\" maps to OS user \"%s\" (uid %ld), a system account: "
				 "jobs run only as accounts from uid %ld on (--min-uid)",
				 owner, user, (long) pw->pw_uid, (long) rules->min_uid);
		return -1;
	}
	copy_account(pw, a);
	return 0;
}

int
lx_account_become(const lx_account *a, char *why, size_t why_size)
{
	if (geteuid() != 0)
		return 0;
	if (initgroups(a->name, a->gid) != 0 || setgid(a->gid) != 0 || setuid(a->uid) != 0)
	{
		snprintf(why, why_size, "cannot become OS user \"%s\": %s", a->name, strerror(errno));
		return -1;
	}
	/* A process that could regain root would make all of this pointless. */
	if (a->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
	{
		snprintf(why, why_size, "OS user \"%s\" could regain root", a->name);
		return -1;
	}
	return 0;
}
