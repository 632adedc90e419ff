/*
 * db.h — the launcher's side of the protocol: the mixdnn.* launcher
 * functions over one libpq connection.
 */
#ifndef LX_DB_H
#define LX_DB_H

#include <stdbool.h>

#include <libpq-fe.h>

#include "job.h"

/*
 * Results of a call: done, failed in SQL (logged), connection lost, or the
 * scheduler was busy (SQLSTATE 55P03 or 40P01: a lock wait bounded by
 * mixdnn.lock_timeout gave up; nothing changed, the call is simply retried).
 */
typedef enum lx_rc
{
	LX_OK = 0,
	LX_ERROR = -1,				/* transient: retried */
	LX_LOST = -2,
	LX_BUSY = -3,				/* the scheduler was busy (55P03, 40P01): retried, nothing lost */
	LX_FATAL = -4				/* a configuration error: retrying cannot help */
} lx_rc;

/* Whether an SQLSTATE is a configuration error, or a busy scheduler (the one list of each). */
bool		lx_db_fatal_state(const char *state);
bool		lx_db_busy_state(const char *state);

/*
 * The longest a call waits for the server's answer; then the connection is
 * taken for lost (LX_LOST) and shut down. Connecting is bounded by libpq's
 * connect_timeout (lx_db_connect).
 */
void		lx_db_set_answer_wait(double seconds);

/*
 * The session's mixdnn.lock_timeout in seconds (each lock wait of a launcher
 * call lasts at most that long); -1 if it cannot be read.
 */
double		lx_db_lock_wait_s(PGconn *conn);

/* Connects and prepares the session; NULL (logged) if that failed. */
PGconn	   *lx_db_connect(const char *dsn, const char *node, const char *password);

/*
 * The installation's id: cluster system identifier and extension oid.
 * LX_FATAL (logged) where the extension is not installed, or has no launch
 * tokens (not updated yet: docs/operations.md, "Versions and upgrades").
 */
lx_rc		lx_db_installation(PGconn *conn, char *id, size_t size);

/* One launcher per node: mixdnn.lock_node(), a session lock no other role can take. LX_ERROR if held elsewhere. */
lx_rc		lx_db_lock_node(PGconn *conn, const char *node);
lx_rc		lx_db_listen(PGconn *conn);

/* Reads notifications; sets the flags for those about this node. */
lx_rc		lx_db_notifies(PGconn *conn, const char *node, bool *launch, bool *cancel);

/* *lease_s: the lease the claim gave its parts (unchanged when it claimed none). */
lx_rc		lx_db_claim(PGconn *conn, const char *node, lx_job **jobs, int *njobs, double *lease_s);
/*
 * *counted: false for a stale or repeated report, one of another launch
 * than token's (NULL: a keeper of an earlier version, which knows none),
 * or one of a job that does not exist.
 */
lx_rc		lx_db_finish(PGconn *conn, const char *node, long long job_id, int attempt, const char *token,
						 int code, const char *why, bool *counted);

typedef struct lx_part
{
	long long	job_id;
	int			attempt;
	char		token[LX_TOKEN_LEN + 1];	/* its launch's token (job.h) */
	bool		running;		/* claimed; else still launching */
	bool		renewed;		/* heartbeat: its lease was renewed (not held back by a lock) */
	char		gpus[256];		/* node_parts: its GPU indices ("0,1") */
	bool		gpus_known;		/* ... false if the database holds none for it */
} lx_part;

/*
 * Renews the node's liveness and its parts' leases: *parts the parts it
 * runs, each renewed or not; *lease_s the lease the server uses now.
 */
lx_rc		lx_db_heartbeat(PGconn *conn, const char *node, lx_part **parts, int *nparts, double *lease_s);

lx_rc		lx_db_node_parts(PGconn *conn, const char *node, lx_part **parts, int *nparts);
/* The longest cause reset_node takes (characters; sql/install/60_reset_node.sql). */
#define LX_RESET_CAUSE_MAX 200

/*
 * Hands back the parts the node claimed and does not run: job_id < 0
 * every one. cause: why, when the launcher knows (NULL: it does not); the
 * job's reason is then "node N handed it back: CAUSE". *jobs: how many
 * jobs lost one.
 */
lx_rc		lx_db_reset_node(PGconn *conn, const char *node, long long job_id, const char *cause, int *jobs);

#endif
