/*
 * proc.h — the launcher's side of its job parts: each runs under a keeper
 * (keeper.h) that the launcher talks to over a Unix socket in its state
 * directory, so that a launcher restarted with SIGUSR2 can adopt the parts
 * of the one before.
 */
#ifndef LX_PROC_H
#define LX_PROC_H

#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

#include "account.h"
#include "job.h"

/* The longest name of a part's cgroup or output file: a directory entry's (NAME_MAX). */
#define LX_PART_NAME_MAX 255

typedef struct lx_spawn_ctx
{
	const char *cgroup_base;	/* "" = no cgroups: subreaper keepers only */
	const char *output_dir;		/* NULL: parts' output into the log (relay.h) */
	const char *output_prefix;	/* file name prefix: database and installation */
	const char *node;
	lx_account_rules accounts;	/* whom jobs may run as */
	double		grace_s;
	double		fork_retry_s;	/* a part whose keeper cannot be forked waits this long for a fork */
	double		adopt_s;		/* how long a detached keeper waits for a launcher */
	double		lease_until;	/* the parts' lease as a CLOCK_BOOTTIME deadline (keeper.h) */
} lx_spawn_ctx;

typedef struct lx_child
{
	long long	job_id;
	int			attempt;
	char		token[LX_TOKEN_LEN + 1];	/* its launch's token, in its socket's and cgroup's names; "" for
										 * a keeper of an earlier version (named without one) */
	char		learned[LX_TOKEN_LEN + 1];	/* such a keeper's token, as the database first listed it */
	bool		disowned;		/* such a keeper found not to be the launch the database lists
								 * (lx_disown()): never taken for one, its exit not reported */
	pid_t		pid;			/* the keeper, from its hello; 0 until then */
	int			fd;				/* connection to the keeper, -1 once gone */
	char		in[1024];		/* unread bytes of the keeper's lines */
	int			inlen;
	double		started;
	bool		stop_sent;
	bool		kill_sent;
	bool		exited;			/* no process of the part is alive */
	bool		lease_lost;		/* its keeper killed it for want of a launcher or lease, or it could
								 * not be forked (the node's failure): give it up, to be re-queued */
	int			installation;	/* lx_new_installation()'s count when it was started or adopted */
	int			code;			/* exit code to report, once exited */
	char		why[512];		/* why it failed, when the launcher knows */
	char		cgroup[PATH_MAX];	/* the part's cgroup, from the hello */
	int			report_errors;
	double		report_after;
	char		gpus[256];		/* CUDA_VISIBLE_DEVICES of the part */
	bool		gpus_unknown;	/* adopted, and its keeper has not said its GPUs: it may hold any */
	lx_job	   *waiting;		/* not started yet: a GPU of it still has another part's processes,
								 * or its keeper could not be forked yet */
	double		fork_failing_since;	/* since when it waits for a fork of a keeper (its own failed,
									 * or the node's back-off held it); 0: never */
	double		lease_until;	/* its lease as last renewed, CLOCK_BOOTTIME (a waiting part's too) */
	bool		lease_noted;	/* the log said it waits for a renewal (since the last one) */
} lx_child;

/*
 * Starts a job part in the current directory (the state directory); a part
 * that cannot start is recorded as exited (126/127) with the reason. A part
 * whose keeper cannot be forked waits and is tried again, with a back-off
 * shared by the node's parts, for ctx->fork_retry_s; then it is given up
 * (lease_lost). A part that needs a GPU on which a stopped part's
 * processes are still ending waits for them: two jobs never share a GPU,
 * whatever the database says.
 */
lx_child   *lx_spawn(const lx_job *job, const lx_spawn_ctx *ctx);

/* Starts the waiting parts whose GPUs are free now and whose leases have not run out. */
void		lx_start_waiting(const lx_spawn_ctx *ctx);

/* What a waiting part waits for, for a reason: "for its GPUs", "to fork its keeper", else "to start". */
const char *lx_waits_for(const lx_child *c);

/* When a waiting part's fork is next tried (CLOCK_BOOTTIME, lx_now()); a large value if none waits for one. */
double		lx_fork_retry_at(void);

/* Connects to the keepers left in the current directory; returns how many. */
int			lx_adopt(const lx_spawn_ctx *ctx);

/*
 * A part's name, its cgroup's: the spawn context's database, installation
 * and node (the last lx_spawn() or lx_adopt() given), job, attempt and
 * token; at most LX_PART_NAME_MAX bytes, the first three replaced by their
 * hash where they would make it longer.
 */
void		lx_part_name(char *buf, size_t size, long long job_id, int attempt, const char *token);

/*
 * A part's output file's name in --output-dir: database and installation
 * (ctx's output_prefix), job, attempt, node, rank and token; at most
 * LX_PART_NAME_MAX bytes, the first two replaced by their hash where they
 * would make it longer.
 */
void		lx_output_name(char *buf, size_t size, const lx_spawn_ctx *ctx, long long job_id, int attempt, int rank,
						   const char *token);

/* An adopted part's GPUs, as the database holds them, until its keeper says. */
void		lx_learn_gpus(lx_child *c, const char *gpus);

/*
 * Whether c is the launch with this token: the part lx_find() returns for
 * its job, attempt and token. A part started here or adopted from a keeper
 * that knows its token is that one launch only; a keeper of an earlier
 * launcher version, which knows none, is taken for the launch of its job,
 * attempt and node that no other part knows as its own, until
 * lx_learn_token() binds it to one or lx_disown() to none.
 */
bool		lx_is_launch(const lx_child *c, const char *token);
/* The token of c's launch, for its report: NULL where it knows none. */
const char *lx_launch_token(const lx_child *c);
/* A keeper of an earlier version is taken for the launch with this token from now on. */
void		lx_learn_token(lx_child *c, const char *token);
/*
 * Stops c, another launch's than the database lists: a keeper of an
 * earlier version, which knows no launch, is never taken for one again,
 * and its exit, whose report would name none and count for whichever
 * launch of its job, attempt and node the database lists, is not reported.
 */
void		lx_disown(lx_child *c, const char *why);

/* Reads what keepers said; reaps the launcher's own exited keepers. */
void		lx_read_keepers(void);
int			lx_keeper_fds(struct pollfd *fds, int max);

void		lx_stop(lx_child *c, const char *why);
void		lx_kill_all(void);

/*
 * The extension was dropped and created again: the parts known so far are
 * the old one's, whose job ids the new one reuses; lx_old_installation()
 * tells them apart, so that none is reported as a new job's.
 */
void		lx_new_installation(void);
bool		lx_old_installation(const lx_child *c);
/* c's lease now runs until 'until' (CLOCK_BOOTTIME): its keeper is told, or told at its start. */
void		lx_renew(lx_child *c, double until);
/* Tells every keeper the launcher leaves on purpose (SIGUSR2). */
void		lx_detach_all(void);
/* The part's exit code was reported: the keeper may go. */
void		lx_forget(lx_child *c);

int			lx_nchildren(void);
lx_child   *lx_child_at(int i);
/*
 * Of the current installation, the launch with this token: the part that
 * knows it as its own, else a keeper of an earlier version that knows
 * none and was not disowned; any part of the job and attempt for "".
 */
lx_child   *lx_find(long long job_id, int attempt, const char *token);
int			lx_nlive(void);

#endif
