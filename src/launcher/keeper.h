/*
 * keeper.h — the process that supervises one job part.
 *
 * A fork of the launcher, in a session of its own and a child subreaper,
 * that runs the command (command.h) in the part's cgroup (tree.h) and
 * serves a Unix socket, so that a launcher started later can adopt it:
 *
 *   keeper -> launcher   "H <keeper pid> <cgroup or ->\n" on every connection
 *                        "L\n" before X: the keeper killed the running part
 *                        for the node's sake, not the job's (its lease ran
 *                        out, its launcher died, nobody adopted it in time):
 *                        nothing to report; the database gives the part up
 *                        "X <exit code> <why, may be empty>\n" once no process
 *                        of the part is alive (the command's code, 128 + signal)
 *   launcher -> keeper   'T' stop: SIGTERM to every process, SIGKILL after grace
 *                        'K' SIGKILL to every process now
 *                        'D' the launcher leaves on purpose: keep running and
 *                            wait adopt_s seconds for the next one
 *                        'A' the exit code is reported: clean up and exit
 *                        "R<deadline>\n" the lease is renewed: the part may
 *                            run until CLOCK_BOOTTIME reads deadline seconds
 *
 * The launcher connects before it forks the keeper (the connection waits
 * in the listening socket's backlog), so no command runs that no launcher
 * hears. A connection that ends without 'D' means the launcher died: the
 * keeper kills the part, so nothing of it outlives its lease
 * unsupervised, and answers any launcher that connects until the part is
 * gone; one that connected as it left still hears how the part ended. Nor
 * does it outlive its lease under a launcher that is stopped, hung or cut
 * off from the database: past the deadline of the last renewal the keeper
 * kills it, before the database hands the job to another node.
 */
#ifndef LX_KEEPER_H
#define LX_KEEPER_H

#include "account.h"
#include "job.h"

typedef struct lx_keeper_args
{
	const lx_job *job;
	const char *owner;			/* the job's role; the command's process looks its OS account up */
	const lx_account_rules *rules;
	const char *cgroup_base;	/* "" = no cgroups here */
	const char *part_name;		/* its cgroup's and socket's name */
	const char *socket_path;
	const char *output;			/* NULL: through the relay into the log (relay.h) */
	double		grace_s;
	double		adopt_s;
	double		fork_retry_s;	/* how long the command's fork is tried again when it fails */
	double		lease_until;	/* CLOCK_BOOTTIME deadline of the lease; 0: none known */
	int			listen_fd;
} lx_keeper_args;

void		lx_keeper_main(const lx_keeper_args *a) __attribute__((noreturn));

/*
 * The back-off of a fork that failed for want of the node's processes or
 * memory (a keeper's, by the launcher; the command's, by its keeper): the
 * wait after one of gap s (0: the first failure), 0.25 s doubling to 8 s.
 */
double		lx_fork_backoff(double gap);

#endif
