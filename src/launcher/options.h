/*
 * options.h — the launcher's command line and the checks made before it
 * connects: a configuration error ends it at once with a message and exit
 * status 2, instead of a retry loop that can never succeed.
 */
#ifndef LX_OPTIONS_H
#define LX_OPTIONS_H

#include <limits.h>
#include <stdbool.h>

/* Debian's first uid of a person's account (UID_MIN of /etc/login.defs). */
#define LX_DEFAULT_MIN_UID 1000

typedef struct lx_config
{
	const char *node;
	const char *dsn;
	char	   *output_dir;		/* made absolute; NULL: output into the log (relay.h) */
	char	   *state_dir;		/* made absolute */
	int			state_fd;		/* the state directory, walked safely (safepath.h); O_PATH */
	char	   *password;		/* from --password-file; NULL: libpq's own ways */
	const char *user_map;
	double		poll_s;
	double		heartbeat_s;	/* 0: a third of mixdnn.lease_timeout */
	double		grace_s;
	double		fork_retry_s;	/* how long a part whose keeper cannot be forked waits for a fork */
	bool		allow_root_jobs;
	long		min_uid;		/* a root launcher runs no job as a lower uid but 0 */
	bool		allow_same_user;
	bool		no_cgroups;
	char		cgroup_base[PATH_MAX];	/* "" = subreaper keepers only */
} lx_config;

/* Parses argv and checks everything that can be checked without the database. */
void		lx_options_load(lx_config *cfg, int argc, char **argv);

#endif
