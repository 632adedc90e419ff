/*
 * db.c — calls of the launcher functions (sql/install/60_launcher.sql).
 *
 * The session takes its database's and role's search_path, which a
 * database's owner may set: every type, operator and function below is
 * named with its schema (::pg_catalog.text, not ::text), so that no other
 * role's domain or operator first in that path runs with the launcher
 * role's rights (test/e2e/t/77_clients_search_path.sh).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "db.h"
#include "log.h"

static char *
xstrdup(const char *s)
{
	char	   *d = s ? strdup(s) : NULL;

	if (s && !d)
	{
		lx_log("out of memory");
		exit(1);
	}
	return d;
}

static void *
xcalloc(size_t n, size_t size)
{
	void	   *p = calloc(n, size);

	if (p == NULL)
	{
		lx_log("out of memory");
		exit(1);
	}
	return p;
}

/* Messages of libpq and the server on one line, without the trailing newline. */
static void
one_line(char *msg)
{
	size_t		n;

	for (n = 0; msg[n]; n++)
		if (msg[n] == '\n' || msg[n] == '\t')
			msg[n] = ' ';
	while (n > 0 && isspace((unsigned char) msg[n - 1]))
		msg[--n] = '\0';
}

/* Server notices (e.g. "terminating connection") as log lines. */
static void
log_notice(void *arg, const char *message)
{
	char		msg[1024];

	snprintf(msg, sizeof(msg), "%s", message);
	one_line(msg);
	lx_log("server: %s", msg);
}

/*
 * SQLSTATEs that mean the launcher is misconfigured, not that the server is
 * busy or restarting: retrying cannot help. Every other error is transient
 * and retried. One line per code.
 */
static const char *const fatal_states[] = {
	"42704",					/* undefined_object: --node names no registered node */
	"42501",					/* insufficient_privilege: the role lacks mixdnn_launcher */
	"42883",					/* undefined_function: mixdnn is not installed in this database */
	"3F000",					/* invalid_schema_name: likewise */
	NULL
};

/*
 * SQLSTATEs that mean the scheduler was busy (mixdnn.lock_timeout ran out,
 * or a deadlock was broken): nothing changed, the call is retried at once
 * and counts toward no failure limit.
 */
static const char *const busy_states[] = {
	"55P03",					/* lock_not_available */
	"40P01",					/* deadlock_detected */
	NULL
};

static bool
in_list(const char *state, const char *const *list)
{
	int			i;

	for (i = 0; state != NULL && list[i] != NULL; i++)
		if (strcmp(state, list[i]) == 0)
			return true;
	return false;
}

bool
lx_db_busy_state(const char *state)
{
	return in_list(state, busy_states);
}

bool
lx_db_fatal_state(const char *state)
{
	return in_list(state, fatal_states);
}

/* A failed result: lost connection, a configuration error, or one worth retrying. */
static lx_rc
failed(PGconn *conn, PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	lx_rc		rc = PQstatus(conn) == CONNECTION_BAD ? LX_LOST
		: lx_db_fatal_state(state) ? LX_FATAL
		: lx_db_busy_state(state) ? LX_BUSY : LX_ERROR;
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char		msg[1024];

	/* The primary message only: one line per event. */
	snprintf(msg, sizeof(msg), "%s", primary ? primary : PQerrorMessage(conn));
	one_line(msg);
	/* busy is no failure: another transaction held a lock for a moment, and the call is retried */
	lx_log("%s %s%s%s%s: %s", what, rc == LX_BUSY ? "refused for now" : "failed",
		   state ? " (SQLSTATE " : "", state ? state : "", state ? ")" : "",
		   rc == LX_LOST ? "connection lost" : msg);
	PQclear(res);
	return rc;
}

/* lx_db_set_answer_wait() */
static double answer_wait_s = 20.0;

void
lx_db_set_answer_wait(double seconds)
{
	answer_wait_s = seconds;
}

/* Waits until the socket is readable (or writable too); false once the deadline has passed. */
static bool
wait_socket(PGconn *conn, bool write, double deadline)
{
	struct pollfd pfd = {.fd = PQsocket(conn), .events = POLLIN | (write ? POLLOUT : 0)};

	for (;;)
	{
		double		left = deadline - lx_now();
		int			r;

		if (left <= 0)
			return false;
		r = poll(&pfd, 1, (int) (left * 1000) + 1);
		/* ready, or an error libpq's next call reports */
		if (r > 0 || (r < 0 && errno != EINTR))
			return true;
	}
}

/*
 * The answer to the query just sent (sent: what PQsend* returned), as
 * PQexec gives it, waited for at most answer_wait_s. A server that does
 * not answer in time (its backend or postmaster stopped, a commit waiting
 * for a synchronous standby that is gone) has the connection taken for
 * lost: it is shut down, so that libpq marks it bad (LX_LOST, the
 * launcher reconnects), and NULL is returned. Before, the call waited in
 * libpq for as long as the server took, without bound: over a Unix socket
 * neither TCP keepalives nor tcp_user_timeout apply, and
 * statement_timeout cannot stop a stopped server; neither SIGUSR2 nor
 * SIGTERM could end the launcher meanwhile.
 */
static PGresult *
answer(PGconn *conn, int sent)
{
	double		deadline = lx_now() + answer_wait_s;
	bool		in_time = true;
	PGresult   *res,
			   *last = NULL;
	int			i;

	if (!sent)
		return NULL;
	/* nonblocking (lx_db_connect): what does not fit the socket now is sent as it drains */
	while (in_time && PQflush(conn) == 1)
		if (!(in_time = wait_socket(conn, true, deadline)) || !PQconsumeInput(conn))
			break;
	for (;;)
	{
		while (in_time && PQstatus(conn) != CONNECTION_BAD && PQisBusy(conn))
			if ((in_time = wait_socket(conn, false, deadline)) && !PQconsumeInput(conn))
				break;			/* the result is the error */
		if (!in_time)
		{
			lx_log("no answer from the server within %.0f s: taking the connection for lost", answer_wait_s);
			(void) shutdown(PQsocket(conn), SHUT_RDWR);
			for (i = 0; i < 100 && PQstatus(conn) != CONNECTION_BAD; i++)
				(void) PQconsumeInput(conn);
			PQclear(last);
			return NULL;
		}
		if ((res = PQgetResult(conn)) == NULL)
			return last;
		PQclear(last);
		last = res;
	}
}

static PGresult *
exec(PGconn *conn, const char *sql, int nparams, const char *const *params)
{
	return answer(conn, PQsendQueryParams(conn, sql, nparams, NULL, params, NULL, NULL, 0));
}

/* seconds, per host (libpq's connect_timeout) */
#define CONNECT_TIMEOUT "10"
static bool warned_timeout = false;

/*
 * The launcher's connect_timeout (10 s) is a default that --dsn may
 * override, but not with libpq's "no limit", an integer of 0 or less: a
 * server that accepts the connection and never answers (a stopped
 * postmaster, a proxy whose backend is gone) would keep the launcher in
 * libpq for good, deaf to SIGTERM. Only the blocking connect applies
 * connect_timeout, to each host (address) of a list in turn before the
 * next is tried (failover), so the launcher keeps that connect and bounds
 * it this way. true when dsn sets such a value.
 */
static bool
unbounded_connect_timeout(const char *dsn)
{
	PQconninfoOption *opts,
			   *o;
	bool		unbounded = false;

	if (dsn == NULL || dsn[0] == '\0' || (opts = PQconninfoParse(dsn, NULL)) == NULL)
		return false;			/* no DSN, or one libpq refuses (it says why) */
	for (o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, "connect_timeout") == 0 && o->val != NULL)
		{
			char	   *end;
			long		v = strtol(o->val, &end, 10);

			while (isspace((unsigned char) *end))
				end++;
			/* an int libpq reads as no limit; what it cannot read (empty, out of range) it refuses itself */
			unbounded = end != o->val && *end == '\0' && v <= 0 && v >= INT_MIN;
		}
	PQconninfoFree(opts);
	return unbounded;
}

PGconn *
lx_db_connect(const char *dsn, const char *node, const char *password)
{
	char		appname[64];
	const char *keys[12];
	const char *values[12];
	int			k = 0;
	PGconn	   *conn;

	snprintf(appname, sizeof(appname), "mixdnn-launcher %s", node);
	/* Defaults first: the DSN and PG* variables override them. */
	keys[k] = "application_name";
	values[k++] = appname;
	keys[k] = "connect_timeout";
	values[k++] = CONNECT_TIMEOUT;
	/* A dead server or network is noticed within seconds, not hours. */
	keys[k] = "keepalives_idle";
	values[k++] = "10";
	keys[k] = "keepalives_interval";
	values[k++] = "3";
	keys[k] = "keepalives_count";
	values[k++] = "3";
	keys[k] = "tcp_user_timeout";
	values[k++] = "30000";
	if (password != NULL)
	{
		keys[k] = "password";
		values[k++] = password;
	}
	if (dsn != NULL && dsn[0] != '\0')
	{
		keys[k] = "dbname";
		values[k++] = dsn;
	}
	/* a key after the DSN overrides the DSN's own */
	if (unbounded_connect_timeout(dsn))
	{
		keys[k] = "connect_timeout";
		values[k++] = CONNECT_TIMEOUT;
		if (!warned_timeout)
			lx_log("--dsn's connect_timeout means no limit: %s s per host instead", CONNECT_TIMEOUT);
		warned_timeout = true;
	}
	keys[k] = NULL;
	values[k] = NULL;

	conn = PQconnectdbParams(keys, values, 1);
	if (conn == NULL || PQstatus(conn) != CONNECTION_OK)
	{
		char		msg[1024];

		snprintf(msg, sizeof(msg), "%s", conn ? PQerrorMessage(conn) : "out of memory");
		one_line(msg);
		lx_log("cannot connect: %s", msg);
		PQfinish(conn);
		return NULL;
	}
	PQsetNoticeProcessor(conn, log_notice, NULL);
	/* every call waits for its answer in answer(), with a deadline */
	if (PQsetnonblocking(conn, 1) != 0)
	{
		lx_log("cannot make the connection nonblocking");
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

lx_rc
lx_db_lock_node(PGconn *conn, const char *node)
{
	const char *params[1] = {node};
	PGresult   *res = exec(conn,
						   "SELECT mixdnn.lock_node($1)", 1, params);
	bool		got;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return failed(conn, res, "locking the node");
	got = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (!got)
	{
		lx_log("another launcher serves node %s in this database", node);
		return LX_ERROR;
	}
	return LX_OK;
}

double
lx_db_lock_wait_s(PGconn *conn)
{
	PGresult   *res = answer(conn, PQsendQuery(conn,
											   "SELECT EXTRACT(epoch FROM pg_catalog.current_setting('mixdnn.lock_timeout', true)"
											   "::pg_catalog.interval)::pg_catalog.float8"));
	double		s = -1;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && !PQgetisnull(res, 0, 0))
		s = atof(PQgetvalue(res, 0, 0));
	PQclear(res);
	return s;
}

lx_rc
lx_db_listen(PGconn *conn)
{
	PGresult   *res = answer(conn, PQsendQuery(conn, "LISTEN mixdnn_launch; LISTEN mixdnn_cancel"));

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		return failed(conn, res, "LISTEN");
	PQclear(res);
	return LX_OK;
}

/*
 * The node named in a payload such as {"job_id": 42, "node": "v100-3"}.
 * Node names need no JSON escapes (gpu_nodes_name_check), so a plain scan
 * does; on anything unexpected the caller assumes the notice is for it.
 */
static bool
payload_node(const char *payload, char *node, size_t size)
{
	const char *p = strstr(payload, "\"node\"");
	size_t		n = 0;

	if (p == NULL)
		return false;
	p += 6;
	while (isspace((unsigned char) *p))
		p++;
	if (*p++ != ':')
		return false;
	while (isspace((unsigned char) *p))
		p++;
	if (*p++ != '"')
		return false;
	while (*p && *p != '"' && *p != '\\' && n + 1 < size)
		node[n++] = *p++;
	node[n] = '\0';
	return *p == '"';
}

lx_rc
lx_db_notifies(PGconn *conn, const char *node, bool *launch, bool *cancel)
{
	PGnotify   *n;

	if (!PQconsumeInput(conn))
		return failed(conn, NULL, "reading notifications");
	while ((n = PQnotifies(conn)) != NULL)
	{
		char		target[256];
		bool		mine = !payload_node(n->extra, target, sizeof(target)) || strcmp(target, node) == 0;

		if (mine && strcmp(n->relname, "mixdnn_launch") == 0)
			*launch = true;
		else if (mine && strcmp(n->relname, "mixdnn_cancel") == 0)
			*cancel = true;
		PQfreemem(n);
	}
	return PQstatus(conn) == CONNECTION_BAD ? LX_LOST : LX_OK;
}

/* A job's own row of the claim; its variables follow it (env_rows counts them). */
static void
claimed_job(PGresult *res, int row, lx_job *j)
{
	long long	job_id = strtoll(PQgetvalue(res, row, 0), NULL, 10);
	int			env_rows = 0;

	while (row + 1 + env_rows < PQntuples(res)
		   && strtoll(PQgetvalue(res, row + 1 + env_rows, 0), NULL, 10) == job_id)
		env_rows++;
	j->job_id = job_id;
	j->name = xstrdup(PQgetvalue(res, row, 1));
	j->command = PQgetisnull(res, row, 2) ? NULL : xstrdup(PQgetvalue(res, row, 2));
	j->node_rank = atoi(PQgetvalue(res, row, 3));
	j->world_gpus = atoi(PQgetvalue(res, row, 4));
	j->attempt = atoi(PQgetvalue(res, row, 7));
	j->workdir = PQgetisnull(res, row, 8) ? NULL : xstrdup(PQgetvalue(res, row, 8));
	j->owner = xstrdup(PQgetvalue(res, row, 9));
	if (!lx_token_parse(PQgetvalue(res, row, 11), j->token))
		lx_log("job %lld attempt %d: the claim gave no launch token: its part is told from other launches "
			   "by job, attempt and node alone", job_id, j->attempt);
	j->env = xcalloc(env_rows > 0 ? env_rows : 1, sizeof(lx_env));
}

static void
claimed_env(PGresult *res, int row, lx_job *j)
{
	j->env[j->nenv].key = xstrdup(PQgetvalue(res, row, 5));
	j->env[j->nenv].value = xstrdup(PQgetisnull(res, row, 6) ? "" : PQgetvalue(res, row, 6));
	if (strcmp(j->env[j->nenv].key, "CUDA_VISIBLE_DEVICES") == 0)
		j->gpus = xstrdup(j->env[j->nenv].value);
	j->nenv++;
}

/*
 * claim_parts(): claim() with each part's launch token (63_launcher_parts.sql).
 * A row per job, then a row per environment variable of it: no JSON
 * parsing here, and the command comes once per job rather than once per
 * variable (a join would repeat a 64 kB command for each of thousands of
 * variables). The CTE is evaluated once: claim() is volatile.
 */
lx_rc
lx_db_claim(PGconn *conn, const char *node, lx_job **jobs, int *njobs, double *lease_s)
{
	const char *params[1] = {node};
	/* the lease the claim gave, with each job: it may have changed since the last heartbeat */
	PGresult   *res = exec(conn,
						   "WITH c AS MATERIALIZED (SELECT * FROM mixdnn.claim_parts($1)) "
						   "SELECT c.job_id, c.name, c.command, c.node_rank, c.world_gpus, NULL::pg_catalog.text, NULL::pg_catalog.text, "
						   "c.attempt, c.workdir, c.owner, pg_catalog.date_part('epoch', "
						   "pg_catalog.current_setting('mixdnn.lease_timeout')::pg_catalog.interval), c.launch_token::pg_catalog.text FROM c "
						   "UNION ALL "
						   "SELECT c.job_id, NULL, NULL, NULL, NULL, e.key, e.value, NULL, NULL, NULL, NULL, NULL "
						   "FROM c, pg_catalog.jsonb_each_text(c.env) e "
						   "ORDER BY 1, 6 NULLS FIRST", 1, params);
	int			rows,
				i;
	lx_job	   *out = NULL;
	int			n = 0;

	*jobs = NULL;
	*njobs = 0;
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return failed(conn, res, "claim");
	rows = PQntuples(res);
	if (rows > 0)
		out = xcalloc(rows, sizeof(lx_job));
	for (i = 0; i < rows; i++)
	{
		if (PQgetisnull(res, i, 5))
		{
			claimed_job(res, i, &out[n++]);
			*lease_s = atof(PQgetvalue(res, i, 10));
		}
		else if (n > 0)
			claimed_env(res, i, &out[n - 1]);
	}
	PQclear(res);
	*jobs = out;
	*njobs = n;
	return LX_OK;
}

lx_rc
lx_db_heartbeat(PGconn *conn, const char *node, lx_part **parts, int *nparts, double *lease_s)
{
	const char *params[1] = {node};
	/* one row with the lease even when the node runs nothing */
	PGresult   *res = exec(conn,
						   "WITH h AS MATERIALIZED (SELECT * FROM mixdnn.heartbeat_parts($1)) "
						   "SELECT pg_catalog.date_part('epoch', "
						   "pg_catalog.current_setting('mixdnn.lease_timeout')::pg_catalog.interval), "
						   "h.job_id, h.attempt, h.renewed, h.launch_token FROM (VALUES (1)) AS one (x) LEFT JOIN h ON true",
						   1, params);
	int			i,
				rows;

	*parts = NULL;
	*nparts = 0;
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) < 1)
		return failed(conn, res, "heartbeat");
	*lease_s = atof(PQgetvalue(res, 0, 0));
	rows = PQgetisnull(res, 0, 1) ? 0 : PQntuples(res);
	if (rows > 0)
		*parts = xcalloc(rows, sizeof(lx_part));
	for (i = 0; i < rows; i++)
	{
		(*parts)[i].job_id = strtoll(PQgetvalue(res, i, 1), NULL, 10);
		(*parts)[i].attempt = atoi(PQgetvalue(res, i, 2));
		(*parts)[i].renewed = strcmp(PQgetvalue(res, i, 3), "t") == 0;
		(void) lx_token_parse(PQgetvalue(res, i, 4), (*parts)[i].token);
	}
	*nparts = rows;
	PQclear(res);
	return LX_OK;
}

lx_rc
lx_db_finish(PGconn *conn, const char *node, long long job_id, int attempt, const char *token, int code,
			 const char *why, bool *counted)
{
	char		job[32],
				att[16],
				ec[16],
				reason[2048];
	const char *params[6] = {job, ec, node, att, why && why[0] ? reason : NULL, token};
	PGresult   *res;
	const char *state;

	/*
	 * Escaped as in the log: valid UTF-8 whatever the reason holds (cut to
	 * 512 bytes it can end in half a character, which the server refuses
	 * with 22021, so the report failed each time and the part was lost).
	 */
	if (why && why[0])
		(void) lx_log_escape(reason, sizeof(reason), why, strlen(why), "");
	snprintf(job, sizeof(job), "%lld", job_id);
	snprintf(att, sizeof(att), "%d", attempt);
	snprintf(ec, sizeof(ec), "%d", code);
	res = exec(conn, "SELECT mixdnn.finish($1::pg_catalog.int8, $2::pg_catalog.int4, $3, $4::pg_catalog.int4, $5, $6::pg_catalog.uuid)", 6, params);
	state = PQresultStatus(res) == PGRES_FATAL_ERROR ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (state != NULL && strcmp(state, "P0002") == 0)
	{
		/*
		 * No such job (a keeper of an earlier version reports without a
		 * token, which finish() answers with false): nothing to count, now
		 * or later. Retried, the report waited for a new job to take the
		 * id (a copy of the database restored to an earlier time) and
		 * counted for it.
		 */
		lx_log("finish: job %lld does not exist", job_id);
		PQclear(res);
		*counted = false;
		return LX_OK;
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return failed(conn, res, "finish");
	*counted = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	return LX_OK;
}

/* The error says schema mixdnn or its functions do not exist. */
static bool
extension_gone(const PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

	return state != NULL && (strcmp(state, "3F000") == 0 || strcmp(state, "42883") == 0);
}

lx_rc
lx_db_node_parts(PGconn *conn, const char *node, lx_part **parts, int *nparts)
{
	const char *params[1] = {node};
	PGresult   *res = exec(conn, "SELECT job_id, attempt, state, gpus, launch_token FROM mixdnn.node_parts($1)",
							1, params);
	int			i,
				rows;

	*parts = NULL;
	*nparts = 0;
	if (PQresultStatus(res) == PGRES_FATAL_ERROR && extension_gone(res))
	{
		/* A forced DROP EXTENSION (docs/operations.md): the node runs nothing now. */
		lx_log("the mixdnn extension is gone from the database; stopping every job");
		PQclear(res);
		return LX_OK;
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return failed(conn, res, "node_parts");
	rows = PQntuples(res);
	if (rows > 0)
		*parts = xcalloc(rows, sizeof(lx_part));
	for (i = 0; i < rows; i++)
	{
		(*parts)[i].job_id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
		(*parts)[i].attempt = atoi(PQgetvalue(res, i, 1));
		(*parts)[i].running = strcmp(PQgetvalue(res, i, 2), "running") == 0;
		snprintf((*parts)[i].gpus, sizeof((*parts)[i].gpus), "%s", PQgetvalue(res, i, 3));
		(*parts)[i].gpus_known = !PQgetisnull(res, i, 3);
		(void) lx_token_parse(PQgetvalue(res, i, 4), (*parts)[i].token);
	}
	*nparts = rows;
	PQclear(res);
	return LX_OK;
}

/*
 * The cause as reset_node takes it: printable ASCII (a control character
 * becomes a space, any other byte '?': the server refuses control
 * characters, and a byte not valid in the connection's encoding would
 * fail the call), at most LX_RESET_CAUSE_MAX characters (cut short with
 * "..."); NULL for none.
 */
static const char *
reset_cause(const char *cause, char *buf)
{
	size_t		n;

	if (cause == NULL || cause[0] == '\0')
		return NULL;
	for (n = 0; cause[n] && n < LX_RESET_CAUSE_MAX; n++)
		buf[n] = (unsigned char) cause[n] < 0x20 || cause[n] == 0x7f ? ' '
			: (unsigned char) cause[n] > 0x7f ? '?' : cause[n];
	if (cause[n])
		memcpy(buf + LX_RESET_CAUSE_MAX - 3, "...", 3);
	buf[n] = '\0';
	return buf;
}

lx_rc
lx_db_reset_node(PGconn *conn, const char *node, long long job_id, const char *cause, int *jobs)
{
	char		job[32],
				why[LX_RESET_CAUSE_MAX + 1];
	const char *params[3] = {node, job_id < 0 ? NULL : job, reset_cause(cause, why)};
	PGresult   *res;

	snprintf(job, sizeof(job), "%lld", job_id);
	res = exec(conn, "SELECT mixdnn.reset_node($1, $2::pg_catalog.int8, $3::pg_catalog.text)", 3, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		if (state == NULL || strcmp(state, "42883") != 0)
			return failed(conn, res, "reset_node");
		/* an extension whose reset_node takes no cause (a build of 0.2.0 before it did) */
		PQclear(res);
		res = job_id < 0
			? exec(conn, "SELECT mixdnn.reset_node($1)", 1, params)
			: exec(conn, "SELECT mixdnn.reset_node($1, $2::pg_catalog.int8)", 2, params);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			return failed(conn, res, "reset_node");
	}
	*jobs = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return LX_OK;
}

lx_rc
lx_db_installation(PGconn *conn, char *id, size_t size)
{
	/* and whether the extension has launch tokens: an update not yet made leaves it without */
	PGresult   *res = answer(conn, PQsendQuery(conn,
							 "SELECT pg_catalog.format('%s-%s', pg_catalog.to_hex(s.system_identifier), e.oid), "
							 "pg_catalog.to_regprocedure('mixdnn.claim_parts(pg_catalog.text)') IS NOT NULL, e.extversion "
							 "FROM pg_catalog.pg_control_system() s, pg_catalog.pg_extension e "
							 "WHERE e.extname OPERATOR(pg_catalog.=) 'mixdnn'"));

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return failed(conn, res, "reading the installation id");
	if (PQntuples(res) != 1)
	{
		lx_log("the extension mixdnn is not installed in database \"%s\"", PQdb(conn));
		PQclear(res);
		return LX_FATAL;
	}
	if (strcmp(PQgetvalue(res, 0, 1), "t") != 0)
	{
		/* Else every claim and reconciliation failed with 42703, retried without end (docs/operations.md). */
		lx_log("the extension mixdnn in database \"%s\" (version %s) has no launch tokens "
			   "(mixdnn.claim_parts), which this launcher needs: update the extension first: "
			   "ALTER EXTENSION mixdnn UPDATE", PQdb(conn), PQgetvalue(res, 0, 2));
		PQclear(res);
		return LX_FATAL;
	}
	snprintf(id, size, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return LX_OK;
}
