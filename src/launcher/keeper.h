/*
 * keeper.h — the process that supervises one job part.
 *
 * A fork of the launcher, in a session of its own and a child subreaper,
 * that runs the command (command.h) in the part's cgroup (tree.h) and
 * serves a Unix socket, so that a launcher started later can adopt it:
 *
 *   keeper -> launcher   "H <keeper pid> <cgroup or ->\n" on every connection
 *                        "X <exit code> <why, may be empty>\n" once no process
 *                        of the part is alive (the command's code, 128 + signal)
 *   launcher -> keeper   'T' stop: SIGTERM to every process, SIGKILL after grace
 *                        'K' SIGKILL to every process now
 *                        'D' the launcher leaves on purpose: keep running and
 *                            wait adopt_s seconds for the next one
 *                        'A' the exit code is reported: clean up and exit
 *
 * A connection that ends without 'D' means the launcher died: the keeper
 * kills the part, so nothing of it outlives its lease unsupervised.
 */
#ifndef LX_KEEPER_H
#define LX_KEEPER_H

#include "account.h"
#include "job.h"

typedef struct lx_keeper_args
{
	const lx_job *job;
	const lx_account *account;
	const char *cgroup_base;	/* "" = no cgroups here */
	const char *part_name;		/* its cgroup's and socket's name */
	const char *socket_path;
	const char *output;			/* NULL: through the relay into the log (relay.h) */
	double		grace_s;
	double		adopt_s;
	int			listen_fd;
} lx_keeper_args;

void		lx_keeper_main(const lx_keeper_args *a) __attribute__((noreturn));

#endif
