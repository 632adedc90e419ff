/*
 * proc.h — the commands the launcher runs, one process group each.
 *
 * Each job part runs under a small keeper process (a fork of the launcher)
 * that leads the part's process group: it runs the command with /bin/sh -c
 * in that group, exits with the command's exit code (128 + signal when the
 * command was killed), and kills the whole group if the launcher dies, so a
 * lost launcher never leaves processes on GPUs the scheduler gives away.
 */
#ifndef LX_PROC_H
#define LX_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "job.h"

typedef struct lx_child
{
	pid_t		pid;			/* the keeper, also the process group id */
	long long	job_id;
	int			attempt;
	double		started;		/* lx_now() at start */
	double		term_sent;		/* lx_now() of the SIGTERM, 0 if none */
	bool		kill_sent;
	bool		exited;
	int			code;			/* exit code to report, once exited */
	int			report_errors;	/* failed reports (SQL errors) so far */
	double		report_after;	/* lx_now() before which not to retry */
} lx_child;

/*
 * Starts a job part; if that fails the part is recorded as exited with 127.
 * close_fd is the database socket, which the keeper must never touch.
 */
lx_child   *lx_spawn(const lx_job *job, const char *output_dir, int close_fd);

/* Reaps exited keepers and kills what they left in their groups. */
void		lx_reap(void);

/* SIGTERM to the part's group; SIGKILL once grace seconds have passed. */
void		lx_stop(lx_child *c, const char *why);
void		lx_escalate(double grace);

/* SIGKILL to every part's group at once. */
void		lx_kill_all(void);

/* Earliest time lx_escalate() has something to do, or 0. */
double		lx_next_escalation(double grace);

/* The table of parts, live and exited-but-unreported. */
int			lx_nchildren(void);
lx_child   *lx_child_at(int i);
lx_child   *lx_find(long long job_id, int attempt);
void		lx_forget(lx_child *c);
int			lx_nlive(void);

#endif
