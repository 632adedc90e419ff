/*
 * writeback.c — writes a round's plan back. Only jobs whose decision or
 * reason changed are touched, in one statement that also appends the
 * changed decisions to mixdnn.plan_history.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "clock.h"
#include "column.h"
#include "spi_cache.h"
#include "wake.h"
#include "writeback.h"

static bool
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

int64
mx_record_round(const mx_db_snapshot *d, const mx_plan *p, TimestampTz now, const char *event)
{
	Oid			argtypes[12] = {TIMESTAMPTZOID, TEXTOID, TEXTOID, TEXTOID, FLOAT8OID, INT4OID,
								INT4OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, INT4OID, INT4OID};
	Datum		values[12];
	char		nulls[12];
	bool		isnull;
	int			rc;

	memset(nulls, ' ', sizeof(nulls));
	values[0] = TimestampTzGetDatum(now);
	values[1] = CStringGetTextDatum(event);
	values[2] = CStringGetTextDatum(p->policy);
	values[3] = CStringGetTextDatum(p->solver);
	values[4] = Float8GetDatum(p->solve_ms);
	values[5] = Int32GetDatum(d->snap.njobs);
	values[6] = Int32GetDatum(d->running_jobs);
	values[7] = Float8GetDatum(p->objective);
	values[8] = Float8GetDatum(p->heuristic_objective);
	values[9] = Float8GetDatum(p->bound);
	if (!isfinite(p->bound))
		nulls[9] = 'n';
	values[10] = Int32GetDatum(p->milp_jobs);
	values[11] = Int32GetDatum(p->milp_vars);

	rc = mx_spi_execute("INSERT INTO mixdnn.rounds (at, event, policy, solver, solve_ms, waiting, running, "
						"launched, objective, heuristic_objective, bound, milp_jobs, milp_vars) "
						"VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11, $12) RETURNING round_id",
						12, argtypes, values, nulls, false, 1);
	if (rc != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
		elog(ERROR, "mixdnn: could not record the round: %s", SPI_result_code_string(rc));
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Lock the jobs of ids that no other transaction holds, in job_id order and
 * with the strength of the UPDATE that follows; returns their ids and sets
 * *skipped to how many of the nrevised jobs of revised_ids were left out.
 * A round never waits for a row lock: a multi-row user UPDATE locking in
 * another order (plan_mode worker, where users take no scheduler lock) or
 * a user's SELECT ... FOR UPDATE would deadlock with it or hold it up.
 * Skipped revisions are left to a retry round (round.c); a skipped reason
 * alone waits for the next round, so a row held for long starts no chain
 * of retries for it.
 */
static Datum
lock_free_jobs(Datum ids, Datum revised_ids, int nrevised, int *skipped)
{
	bool		isnull;
	Datum		locked;
	Datum		args[2] = {ids, revised_ids};

	if (mx_spi_execute("SELECT coalesce(array_agg(job_id), '{}'), count(*) FILTER (WHERE job_id = ANY($2)) FROM "
					   "(SELECT job_id FROM mixdnn.jobs WHERE job_id = ANY($1) "
					   " ORDER BY job_id FOR NO KEY UPDATE SKIP LOCKED) l",
					   2, (Oid[]) {INT8ARRAYOID, INT8ARRAYOID}, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not lock the planned jobs");
	locked = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*skipped = nrevised - (int) DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2,
															&isnull));
	return PointerGetDatum(DatumGetArrayTypeP(locked));
}

/* What a round writes to one job's row. */
typedef struct new_row
{
	bool		planned;
	const char *gpu_type;
	int			gpus;
	TimestampTz start;
	TimestampTz end;
	const char *reason;
} new_row;

/*
 * The row an assignment asks for. A plan whose times cannot be stored
 * leaves that one job pending with a reason instead of failing the round
 * for everyone (the core keeps plans inside its limits; this is the last
 * line).
 */
static void
decide_row(const mx_snapshot *s, const mx_assignment *a, const mx_job_row *r, new_row *nr)
{
	nr->planned = a->status == MX_PLANNED;
	nr->reason = a->reason[0] ? a->reason : NULL;
	if (nr->planned && !(mx_epoch_to_ts_ok(a->start, &nr->start) && mx_epoch_to_ts_ok(a->end, &nr->end)))
	{
		nr->planned = false;
		nr->reason = "its planned time is out of the range a timestamp can hold";
	}
	nr->gpu_type = nr->planned ? s->types[a->type].name : NULL;
	nr->gpus = nr->planned ? a->gpus : 0;
	if (!nr->planned)
		nr->start = nr->end = 0;
	/* A re-queued job keeps saying why (contract §3), before why it waits. */
	if (r->requeue_reason)
		nr->reason = nr->reason ? psprintf("%s; %s", r->requeue_reason, nr->reason) : r->requeue_reason;
	/* A plan nobody will carry out says so. */
	if (nr->planned && mx_worker_missing() != NULL)
		nr->reason = nr->reason ? psprintf("%s; %s", nr->reason, mx_worker_missing()) : mx_worker_missing();
}

/* What a round writes for one job (docs/design.md, "Write-back"). */
typedef enum row_change
{
	ROW_SAME = 0,				/* nothing */
	ROW_REASON,					/* its reason only: the plan stands, no history row */
	ROW_REVISED					/* a new decision: the row and a history row */
} row_change;

/*
 * Whether the decision for a job changed: its status or configuration, its
 * reason while it has no plan, its run time, or its planned start: always
 * when it moves earlier (the launch must not be late), and when it moves
 * later by more than `tolerance` times the time from now to the old start.
 * So a distant forecast pushed back a little by a new arrival is not
 * rewritten, nor is its history; a launch that comes due on a stale start
 * finds its GPUs held and is re-planned by a due round, never started on
 * top of another job. A plan that stands at the same start with another
 * reason (idle GPUs came or went: model.md, "Reasons") rewrites the
 * reason alone.
 */
static row_change
decision_changed(const mx_job_row *r, const new_row *nr, double now, double tolerance)
{
	double		old_s,
				new_s;

	if (nr->planned != r->planned || !str_eq(nr->gpu_type, r->gpu_type))
		return ROW_REVISED;
	if (!nr->planned)
		return str_eq(nr->reason, r->reason) ? ROW_SAME : ROW_REVISED;
	if (nr->gpus != r->gpus || !r->has_start)
		return ROW_REVISED;
	if (nr->end - nr->start != r->end - r->start)
		return ROW_REVISED;		/* another run time: the request changed */
	if (nr->start < r->start)
		return ROW_REVISED;
	if (nr->start > r->start)
	{
		/* Within the tolerance the row stays whole: its reason names its start. */
		old_s = mx_ts_to_epoch(r->start);
		new_s = mx_ts_to_epoch(nr->start);
		return new_s - old_s > tolerance * Max(0.0, old_s - now) ? ROW_REVISED : ROW_SAME;
	}
	return str_eq(nr->reason, r->reason) ? ROW_SAME : ROW_REASON;
}

double
mx_kept_start(const mx_db_snapshot *d, int i, const mx_assignment *a, double tolerance)
{
	const mx_job_row *r = &d->rows[i];
	new_row		nr;

	decide_row(&d->snap, a, r, &nr);
	if (nr.planned && r->planned && r->has_start && nr.start > r->start &&
		decision_changed(r, &nr, d->snap.now, tolerance) != ROW_REVISED)
		return mx_ts_to_epoch(r->start);
	return a->start;
}

/* The write-back statement's arrays: one entry per row it writes. */
typedef struct write_columns
{
	mx_column	id,
				status,
				type,
				gpus,
				start,
				end,
				reason,
				revised,
				revised_id;		/* the job_ids whose decision changed */
} write_columns;

static void
columns_init(write_columns *w, int n)
{
	mx_column_init(&w->id, n);
	mx_column_init(&w->status, n);
	mx_column_init(&w->type, n);
	mx_column_init(&w->gpus, n);
	mx_column_init(&w->start, n);
	mx_column_init(&w->end, n);
	mx_column_init(&w->reason, n);
	mx_column_init(&w->revised, n);
	mx_column_init(&w->revised_id, n);
}

static void
columns_push(write_columns *w, int64 job_id, const new_row *nr, row_change ch)
{
	mx_column_push(&w->id, Int64GetDatum(job_id), false);
	mx_column_push(&w->status, CStringGetTextDatum(nr->planned ? "planned" : "pending"), false);
	mx_column_push(&w->type, nr->planned ? CStringGetTextDatum(nr->gpu_type) : (Datum) 0, !nr->planned);
	mx_column_push(&w->gpus, Int32GetDatum(nr->gpus), !nr->planned);
	mx_column_push(&w->start, TimestampTzGetDatum(nr->start), !nr->planned);
	mx_column_push(&w->end, TimestampTzGetDatum(nr->end), !nr->planned);
	mx_column_push(&w->reason, nr->reason ? CStringGetTextDatum(nr->reason) : (Datum) 0, nr->reason == NULL);
	mx_column_push(&w->revised, BoolGetDatum(ch == ROW_REVISED), false);
	if (ch == ROW_REVISED)
		mx_column_push(&w->revised_id, Int64GetDatum(job_id), false);
}

int
mx_write_plan(const mx_db_snapshot *d, const mx_plan *p, int64 round_id, double tolerance, int *skipped)
{
	const mx_snapshot *s = &d->snap;
	write_columns w;
	int			i,
				rc;
	Oid			argtypes[10] = {INT8ARRAYOID, TEXTARRAYOID, TEXTARRAYOID, INT4ARRAYOID,
								TIMESTAMPTZARRAYOID, TIMESTAMPTZARRAYOID, TEXTARRAYOID, INT8OID, INT8ARRAYOID,
								BOOLARRAYOID};
	Datum		values[10];

	columns_init(&w, s->njobs);
	for (i = 0; i < p->n; i++)
	{
		const mx_assignment *a = &p->a[i];
		const mx_job_row *r = &d->rows[a->job];
		new_row		nr;
		row_change	ch;

		decide_row(s, a, r, &nr);
		ch = decision_changed(r, &nr, s->now, tolerance);
		if (ch != ROW_SAME)
			columns_push(&w, a->job_id, &nr, ch);
	}
	*skipped = 0;
	if (w.id.n == 0)
		return 0;

	values[0] = mx_column_array(&w.id, INT8OID);
	values[8] = lock_free_jobs(values[0], mx_column_array(&w.revised_id, INT8OID), w.revised_id.n, skipped);
	values[1] = mx_column_array(&w.status, TEXTOID);
	values[2] = mx_column_array(&w.type, TEXTOID);
	values[3] = mx_column_array(&w.gpus, INT4OID);
	values[4] = mx_column_array(&w.start, TIMESTAMPTZOID);
	values[5] = mx_column_array(&w.end, TIMESTAMPTZOID);
	values[6] = mx_column_array(&w.reason, TEXTOID);
	values[7] = Int64GetDatum(round_id);
	values[9] = mx_column_array(&w.revised, BOOLOID);

	rc = mx_spi_execute(
		"WITH plan AS (SELECT * FROM unnest($1, $2, $3, $4, $5, $6, $7, $10) "
		"              AS u(job_id, status, gpu_type, gpus, start_at, end_at, reason, revised)), "
		"changed AS (UPDATE mixdnn.jobs j SET status = plan.status, planned_gpu_type = plan.gpu_type, "
		"                   planned_gpus = plan.gpus, planned_start = plan.start_at, "
		"                   planned_end = plan.end_at, reason = plan.reason "
		"            FROM plan WHERE j.job_id = plan.job_id AND j.status IN ('pending', 'planned') "
		"              AND j.job_id = ANY($9) "
		"            RETURNING j.job_id, j.status, j.planned_gpu_type, j.planned_gpus, "
		"                      j.planned_start, j.planned_end, j.reason, plan.revised) "
		"INSERT INTO mixdnn.plan_history (round_id, job_id, status, planned_gpu_type, planned_gpus, "
		"                                 planned_start, planned_end, reason) "
		"SELECT $8, job_id, status, planned_gpu_type, planned_gpus, planned_start, planned_end, reason "
		"FROM changed WHERE revised",
		10, argtypes, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "mixdnn: could not write the plan: %s", SPI_result_code_string(rc));
	return (int) SPI_processed;
}

char *
mx_queued_reason(int horizon)
{
	return psprintf("queued: beyond the planning horizon of the first %d waiting jobs "
					"(by priority, then submission time)", horizon);
}

int
mx_write_queue(const mx_db_snapshot *d, int64 round_id, int horizon)
{
	const mx_snapshot *s = &d->snap;
	mx_column	ids;
	Datum		values[3];
	int			i,
				rc,
				n = 0;

	if (!d->horizon_full)
		return 0;
	mx_column_init(&ids, s->njobs);
	for (i = 0; i < s->njobs; i++)
		mx_column_push(&ids, Int64GetDatum(s->jobs[i].job_id), false);
	values[0] = mx_column_array(&ids, INT8OID);
	values[1] = CStringGetTextDatum(mx_queued_reason(horizon));
	values[2] = Int64GetDatum(round_id);

	/*
	 * Planned jobs that a fuller horizon pushed out lose their plan (a
	 * decision: history row); they were planned around capacity this round
	 * no longer reserves for them.
	 */
	rc = mx_spi_execute(
		"WITH out AS (SELECT job_id FROM mixdnn.jobs WHERE status = 'planned' "
		"               AND job_id NOT IN (SELECT pg_catalog.unnest($1::pg_catalog.int8[])) "
		"             ORDER BY job_id FOR NO KEY UPDATE SKIP LOCKED), "
		"changed AS (UPDATE mixdnn.jobs j SET status = 'pending', planned_gpu_type = NULL, "
		"                   planned_gpus = NULL, planned_start = NULL, planned_end = NULL, reason = $2 "
		"            FROM out WHERE j.job_id = out.job_id "
		"            RETURNING j.job_id, j.status, j.planned_gpu_type, j.planned_gpus, "
		"                      j.planned_start, j.planned_end, j.reason) "
		"INSERT INTO mixdnn.plan_history (round_id, job_id, status, planned_gpu_type, planned_gpus, "
		"                                 planned_start, planned_end, reason) "
		"SELECT $3, * FROM changed",
		3, (Oid[]) {INT8ARRAYOID, TEXTOID, INT8OID}, values, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "mixdnn: could not write the queue: %s", SPI_result_code_string(rc));
	n = (int) SPI_processed;

	/* New jobs behind the horizon: a reason, no plan and so no history. */
	rc = mx_spi_execute(
		"UPDATE mixdnn.jobs j SET reason = $2 "
		"FROM (SELECT job_id FROM mixdnn.jobs WHERE status = 'pending' AND reason IS NULL "
		"        AND job_id NOT IN (SELECT pg_catalog.unnest($1::pg_catalog.int8[])) "
		"      ORDER BY job_id FOR NO KEY UPDATE SKIP LOCKED) q "
		"WHERE j.job_id = q.job_id",
		2, (Oid[]) {INT8ARRAYOID, TEXTOID}, values, NULL, false, 0);
	if (rc != SPI_OK_UPDATE)
		elog(ERROR, "mixdnn: could not write the queue: %s", SPI_result_code_string(rc));
	return n + (int) SPI_processed;
}
