/*
 * cli.h — bin/mixdnn, the command-line client: what each command needs
 * and the exit codes scripts rely on (docs/cli.md).
 */
#ifndef MC_CLI_H
#define MC_CLI_H

#include <stdbool.h>

#include "libpq-fe.h"

#define MC_EXIT_OK 0
#define MC_EXIT_SQL 1			/* the server refused: bad input, no privilege, ... */
#define MC_EXIT_USAGE 2			/* bad command line or job file */
#define MC_EXIT_NOT_FOUND 3		/* no such job, or not the caller's */
#define MC_EXIT_CONNECT 4		/* could not connect, or the connection was lost */

/* The session's lock_timeout unless it set its own (docs/cli.md). */
#define MC_LOCK_TIMEOUT "10s"

typedef struct mc_ctx
{
	PGconn	   *conn;
	bool		json;
	bool		all;			/* queue, history: every user's jobs (that the caller may see) */
	const char *user;			/* queue, history: this user's jobs */
	const char *spec;			/* submit, when: the job as a JSON object */
	int			limit;			/* history: rows */
	double		interval_s;		/* top: seconds between refreshes */
	int			iterations;		/* top: 0 = until interrupted */
	int			nargs;			/* positional arguments after the command */
	char	  **args;
} mc_ctx;

/* Run sql with text parameters; on error print it and return the exit code, else 0 and *res. */
int			mc_query(mc_ctx *c, const char *sql, int n, const char *const *params, PGresult **res);

/* Print res as a table or JSON, per c->json. */
void		mc_print(const mc_ctx *c, const PGresult *res);

int			mc_submit(mc_ctx *c);
int			mc_queue(mc_ctx *c);
int			mc_cancel(mc_ctx *c);
int			mc_why(mc_ctx *c);
int			mc_when(mc_ctx *c);
int			mc_history(mc_ctx *c);
int			mc_top(mc_ctx *c);

#endif
