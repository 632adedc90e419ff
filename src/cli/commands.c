/*
 * commands.c — the commands of bin/mixdnn, each one or a few queries of
 * the extension's user surface (mixdnn.jobs, mixdnn.queue, mixdnn.explain,
 * mixdnn.what_if) under the caller's own rights and row-level security.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

/* The job columns a user sets (docs/reference.md), as a JSON job spec's keys. */
#define SPEC_KEYS "{name,model,model_class,gpu_type,gpus,min_gpus,max_gpus,allowed_types,duration,priority,command,workdir,env}"

/* The spec's integer columns: the job's counts and priority. */
#define SPEC_INT_KEYS "{gpus,min_gpus,max_gpus,priority}"

/*
 * The spec's keys that are not job columns a user sets, then the first of
 * its counts and priority that the column would not take (not null, nor a
 * JSON number or string of a whole number within int): MC_EXIT_USAGE when
 * any, in the words of the options' check (main.c, number_arg), before the
 * job is submitted or previewed. Within int, the column's range is the
 * server's to check, with its SQLSTATE. A JSON number's text is the one
 * the column is cast from, so 2.0 and 2.5 are refused here as they are
 * there, 1e2 (100) passes. At most ten digits but leading zeros, and only
 * the ASCII spaces the cast skips ([[:space:]] also takes Unicode spaces
 * under a UTF-8 collation, which the cast refuses), so that the numeric
 * cast cannot fail. The spaces are raw bytes in the pattern, not escapes:
 * with standard_conforming_strings off, '\v' is a v. The value is quoted
 * up to 40 characters. Then the first other column (but env, the server's
 * to check) given a JSON value of another kind than a string or number
 * (allowed_types: an array): its text would be cast, and PostgreSQL reads
 * the interval '{"hours": 2}' as 2 seconds.
 */
static int
check_spec(mc_ctx *c)
{
	PGresult   *res;
	const char *p[3] = {c->spec, SPEC_KEYS, SPEC_INT_KEYS};
	int			rc = mc_query(c, "SELECT (SELECT pg_catalog.string_agg(k, ', ' ORDER BY k) "
						  "        FROM pg_catalog.jsonb_object_keys($1::jsonb) k WHERE k <> ALL ($2::text[])), "
						  "    (SELECT e.key || ' in the job file must be a whole number from -2147483648 to 2147483647, not ' "
						  "            || pg_catalog.left(e.value::text, 40) "
						  "            || CASE WHEN pg_catalog.length(e.value::text) > 40 THEN '...' ELSE '' END "
						  "        FROM pg_catalog.jsonb_each($1::jsonb) e "
						  "        WHERE e.key = ANY ($3::text[]) AND pg_catalog.jsonb_typeof(e.value) <> 'null' "
						  "          AND NOT CASE WHEN pg_catalog.jsonb_typeof(e.value) IN ('number', 'string') "
						  "                        AND (e.value #>> '{}') ~ '^[ \t\n\r\f\v]*[+-]?0*[0-9]{1,10}[ \t\n\r\f\v]*$' "
						  "                   THEN (e.value #>> '{}')::numeric BETWEEN -2147483648 AND 2147483647 "
						  "                   ELSE false END "
						  "        ORDER BY e.key LIMIT 1), "
						  "    (SELECT e.key || ' in the job file must be ' "
						  "            || CASE WHEN e.key = 'allowed_types' THEN 'a JSON array of GPU types' "
						  "                    ELSE 'a JSON string or number' END || ', not ' "
						  "            || pg_catalog.left(e.value::text, 40) "
						  "            || CASE WHEN pg_catalog.length(e.value::text) > 40 THEN '...' ELSE '' END "
						  "        FROM pg_catalog.jsonb_each($1::jsonb) e "
						  "        WHERE e.key = ANY ($2::text[]) AND e.key <> 'env' AND pg_catalog.jsonb_typeof(e.value) <> 'null' "
						  "          AND CASE WHEN e.key = 'allowed_types' THEN pg_catalog.jsonb_typeof(e.value) <> 'array' "
						  "                   ELSE pg_catalog.jsonb_typeof(e.value) NOT IN ('string', 'number') END "
						  "        ORDER BY e.key LIMIT 1)",
						  3, p, &res);

	if (rc != 0)
		return rc == MC_EXIT_SQL ? MC_EXIT_USAGE : rc;
	if (!PQgetisnull(res, 0, 0))
	{
		fprintf(stderr, "mixdnn: unknown job field(s): %s\n", PQgetvalue(res, 0, 0));
		rc = MC_EXIT_USAGE;
	}
	else if (!PQgetisnull(res, 0, 1))
	{
		fprintf(stderr, "mixdnn: %s\n", PQgetvalue(res, 0, 1));
		rc = MC_EXIT_USAGE;
	}
	else if (!PQgetisnull(res, 0, 2))
	{
		fprintf(stderr, "mixdnn: %s\n", PQgetvalue(res, 0, 2));
		rc = MC_EXIT_USAGE;
	}
	PQclear(res);
	return rc;
}

/* Run the query and print its rows; the exit code. */
static int
print_query(mc_ctx *c, const char *sql, int n, const char *const *params)
{
	PGresult   *res;
	int			rc = mc_query(c, sql, n, params, &res);

	if (rc != 0)
		return rc;
	mc_print(c, res);
	PQclear(res);
	return 0;
}

int
mc_submit(mc_ctx *c)
{
	PGresult   *res;
	char	   *id;
	int			rc = check_spec(c);

	if (rc != 0)
		return rc;
	rc = mc_query(c, "INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, "
				  "    allowed_types, duration, priority, command, workdir, env) "
				  "SELECT r.name, r.model, coalesce(r.model_class, 'soft'), r.gpu_type, r.gpus, r.min_gpus, "
				  "    r.max_gpus, r.allowed_types, r.duration, coalesce(r.priority, 0), r.command, "
				  "    r.workdir, r.env "
				  "FROM pg_catalog.jsonb_populate_record(NULL::mixdnn.jobs, $1::jsonb) r RETURNING job_id",
				  1, (const char *[]) {c->spec}, &res);
	if (rc != 0)
		return rc;
	id = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	/* Autocommitted: the arrival's round has run (or, in worker mode, is on its way). */
	rc = print_query(c, "SELECT job_id, status, planned_gpu_type, planned_gpus, planned_start, planned_end, reason "
					 "FROM mixdnn.jobs WHERE job_id = $1::bigint", 1, (const char *[]) {id});
	free(id);
	return rc;
}

int
mc_queue(mc_ctx *c)
{
	const char *p[2] = {c->all ? "all" : c->user ? "user" : "mine", c->user};

	return print_query(c, "SELECT position, job_id, owner, name, status, model_class AS class, "
						  "    coalesce(requested_gpu_type, '*') || ':' || requested_gpus AS requested, "
						  "    planned_gpu_type || ':' || planned_gpus AS planned, "
						  "    pg_catalog.date_trunc('second', planned_start) AS planned_start, "
						  "    pg_catalog.date_trunc('second', planned_end) AS planned_end, "
						  "    pg_catalog.array_to_string(nodes, ',') AS nodes, "
						  "    pg_catalog.date_trunc('second', waited) AS waited, reason "
						  "FROM mixdnn.queue "
						  "WHERE $1 = 'all' OR ($1 = 'mine' AND mine) OR ($1 = 'user' AND owner = $2::name) "
						  "ORDER BY position NULLS FIRST, job_id",
						  2, p);
}

/* A positional job id, or MC_EXIT_USAGE. */
static int
job_arg(const char *s)
{
	size_t		n = strspn(s, "0123456789");

	/* up to bigint's 19 digits; the server refuses one beyond its range */
	if (n == 0 || n > 19 || s[n] != '\0')
	{
		fprintf(stderr, "mixdnn: \"%s\" is not a job id\n", s);
		return MC_EXIT_USAGE;
	}
	return 0;
}

int
mc_cancel(mc_ctx *c)
{
	int			i,
				worst = 0;

	if (c->nargs == 0)
	{
		fprintf(stderr, "mixdnn: cancel needs at least one job id\n");
		return MC_EXIT_USAGE;
	}
	/* a bad command line cancels nothing */
	for (i = 0; i < c->nargs; i++)
		if (job_arg(c->args[i]) != 0)
			return MC_EXIT_USAGE;
	for (i = 0; i < c->nargs; i++)
	{
		PGresult   *res;
		int			rc = mc_query(c, "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $1::bigint "
						  "RETURNING job_id, status", 1, (const char *const *) &c->args[i], &res);

		if (rc == 0 && PQntuples(res) == 0)
		{
			fprintf(stderr, "mixdnn: job %s does not exist or is not yours\n", c->args[i]);
			rc = MC_EXIT_NOT_FOUND;
		}
		else if (rc == 0)
			mc_print(c, res);
		if (rc == 0)
			PQclear(res);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}

int
mc_why(mc_ctx *c)
{
	int			rc;

	if (c->nargs != 1)
	{
		fprintf(stderr, "mixdnn: why needs one job id\n");
		return MC_EXIT_USAGE;
	}
	if ((rc = job_arg(c->args[0])) != 0)
		return rc;
	return print_query(c, "SELECT gpu_type, gpus, round(utility::numeric, 3) AS utility, "
				  "    pg_catalog.date_trunc('second', run_time) AS run_time, "
				  "    pg_catalog.date_trunc('second', earliest_start) AS earliest_start, "
				  "    pg_catalog.date_trunc('second', earliest_end) AS earliest_end, "
				  "    round(value::numeric, 4) AS value, chosen, blocked_by, detail "
				  "FROM mixdnn.explain($1::bigint)", 1, (const char *const *) c->args);
}

int
mc_when(mc_ctx *c)
{
	PGresult   *res;
	int			rc = check_spec(c);

	if (rc != 0)
		return rc;
	/*
	 * what_if plans the job's shape only; what a submission of the same
	 * file would be refused for besides (its workdir, command, env) is
	 * refused here too, with the submission's error and exit code.
	 */
	rc = mc_query(c, "SELECT mixdnn._check_job_text(r.workdir, r.command, r.env) "
				  "FROM pg_catalog.jsonb_populate_record(NULL::mixdnn.jobs, $1::jsonb) r",
				  1, (const char *[]) {c->spec}, &res);
	if (rc != 0)
		return rc;
	PQclear(res);
	return print_query(c, "SELECT w.* FROM pg_catalog.jsonb_populate_record(NULL::mixdnn.jobs, $1::jsonb) r, "
				  "LATERAL mixdnn.what_if(model_class => coalesce(r.model_class, 'soft'), gpu_type => r.gpu_type, "
				  "    gpus => r.gpus, min_gpus => r.min_gpus, max_gpus => r.max_gpus, "
				  "    allowed_types => r.allowed_types, duration => r.duration, "
				  "    priority => coalesce(r.priority, 0), model => r.model) w",
				  1, (const char *[]) {c->spec});
}

int
mc_history(mc_ctx *c)
{
	char		limit[16];
	const char *p[3] = {c->all ? "all" : c->user ? "user" : "mine", c->user, limit};

	snprintf(limit, sizeof(limit), "%d", c->limit);
	/*
	 * run_time ends where the last launch's parts ended when that was
	 * before the job did: a job re-queued (its launcher lost) and then
	 * cancelled while waiting again ran until the re-queue, not until the
	 * cancel; started_at stays that of its last launch.
	 */
	return print_query(c, "SELECT j.job_id, j.owner, j.name, j.model, j.status, "
				  "    pg_catalog.date_trunc('second', j.finished_at) AS finished_at, "
				  "    pg_catalog.date_trunc('second', j.started_at - j.submitted_at) AS wait, "
				  "    pg_catalog.date_trunc('second', j.finished_at - j.submitted_at) AS jct, "
				  "    pg_catalog.date_trunc('second', "
				  "        CASE WHEN p.open OR p.last_end IS NULL OR p.last_end > j.finished_at "
				  "             THEN j.finished_at ELSE p.last_end END - j.started_at) AS run_time, "
				  "    CASE WHEN j.status = 'completed' THEN pg_catalog.date_trunc('second', j.finished_at - j.planned_end) END "
				  "        AS estimate_error, j.exit_code "
				  "FROM (SELECT * FROM mixdnn.jobs "
				  "      WHERE status IN ('completed', 'failed', 'cancelled') "
				  "        AND ($1 = 'all' OR ($1 = 'mine' AND owner = current_user) OR ($1 = 'user' AND owner = $2::name)) "
				  "      ORDER BY finished_at DESC, job_id DESC LIMIT $3::int) j "
				  "LEFT JOIN LATERAL (SELECT pg_catalog.max(x.finished_at) AS last_end, "
				  "    pg_catalog.bool_or(x.finished_at IS NULL) AS open "
				  "    FROM mixdnn.job_parts x WHERE x.job_id = j.job_id AND x.attempt = j.attempt) p ON true "
				  "ORDER BY j.finished_at DESC, j.job_id DESC",
				  3, p);
}

/*
 * One screen of top: GPUs per type, jobs per status, the head of the queue.
 * "up" counts the GPUs of nodes that take jobs, as mixdnn.metrics'
 * gpus_free does: status up and reachable (a node whose launcher lost its
 * lease is not).
 */
static int
top_once(mc_ctx *c)
{
	static const char *const titles[3] = {"gpus", "jobs", "queue"};
	static const char *const sql[3] = {
		"SELECT n.gpu_type, sum(n.gpus) FILTER (WHERE n.status = 'up' AND n.unreachable_since IS NULL) AS up, "
		"    (SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.gpu_nodes m ON m.node = h.node "
		"      WHERE m.gpu_type = n.gpu_type) AS busy, "
		"    sum(n.gpus) FILTER (WHERE n.status <> 'up' OR n.unreachable_since IS NOT NULL) AS not_up "
		"FROM mixdnn.gpu_nodes n GROUP BY n.gpu_type ORDER BY n.gpu_type",
		"SELECT status, count(*) AS jobs, sum(coalesce(planned_gpus, requested_gpus)) AS gpus "
		"FROM mixdnn.queue GROUP BY status ORDER BY min(coalesce(position, 0))",
		"SELECT position, job_id, owner, name, status, planned_gpu_type || ':' || planned_gpus AS planned, "
		"    pg_catalog.date_trunc('second', planned_start) AS planned_start, "
		"    pg_catalog.date_trunc('second', waited) AS waited "
		"FROM mixdnn.queue ORDER BY position NULLS FIRST, job_id LIMIT 20"
	};
	PGresult   *res[3];
	int			i,
				rc;

	/* every query first: one that fails must not leave half a screen or half a JSON object */
	for (i = 0; i < 3; i++)
		if ((rc = mc_query(c, sql[i], 0, NULL, &res[i])) != 0)
		{
			while (i-- > 0)
				PQclear(res[i]);
			return rc;
		}
	if (!c->json && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	fputs(c->json ? "{" : "", stdout);
	for (i = 0; i < 3; i++)
	{
		if (c->json)
		{
			fprintf(stdout, "%s\"%s\": ", i ? ", " : "", titles[i]);
			mc_print_json(stdout, res[i]);
		}
		else
		{
			fprintf(stdout, "%s== %s\n", i ? "\n" : "", titles[i]);
			mc_print_table(stdout, res[i]);
		}
		PQclear(res[i]);
	}
	fputs(c->json ? "}\n" : "", stdout);
	fflush(stdout);
	return 0;
}

int
mc_top(mc_ctx *c)
{
	int			n,
				rc;

	for (n = 0; c->iterations == 0 || n < c->iterations; n++)
	{
		if (n > 0)
			usleep((useconds_t) (c->interval_s * 1e6));
		if ((rc = top_once(c)) != 0)
			return rc;
	}
	return 0;
}
