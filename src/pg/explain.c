/*
 * explain.c — mixdnn.explain(job_id): the candidate configurations of a
 * waiting job and why the round gives it the one it does, from the core's
 * mx_explain_job() on a plan made exactly as a round makes it.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "clock.h"
#include "explain.h"
#include "guc.h"
#include "guards.h"
#include "preview.h"
#include "spi_cache.h"
#include "tolerance.h"
#include "writeback.h"

PG_FUNCTION_INFO_V1(mixdnn_explain);

#define EXPLAIN_COLS 10

typedef struct explain_call
{
	int64		job_id;
	ReturnSetInfo *rsinfo;
} explain_call;

static Interval *
seconds_interval(double s)
{
	Interval   *iv = palloc0(sizeof(Interval));

	iv->time = (TimeOffset) rint(s * USECS_PER_SEC);
	return iv;
}

/* The row's plain words: what was chosen, or what keeps it from running sooner. */
static char *
candidate_detail(const mx_preview *pv, const mx_candidate *c, int guard, double critical_from,
				 const char *reason)
{
	const mx_snapshot *s = &pv->d.snap;
	char		when[32];

	if (c->chosen && guard == MX_GUARD_NONE && c->blocked_by != MX_BLOCK_FAIR_SHARE &&
		mx_format_utc(critical_from, when, sizeof(when)) == 0)
		return psprintf("chosen: the round's plan; the job becomes makespan-critical at %s, "
						"once it has waited mixdnn.critical_wait times its run time", when);

	if (c->chosen && c->blocked_by == MX_BLOCK_FAIR_SHARE)
		return pstrdup("chosen: the round's plan, later than without fair share: "
					   "the job's owner has used more than its share (mixdnn.shares)");
	/* a critical job is served first only when its GPUs are free and (critical_trade) it is worth it */
	if (c->chosen && guard == MX_GUARD_CRITICAL && c->start > s->now + MX_TIME_EPS)
		return pstrdup("chosen: the job is makespan-critical but does not start now: its GPUs are not all "
					   "free, or serving it first would cost the other jobs more than it gains (mixdnn.critical_trade)");
	if (c->chosen)
		return psprintf("chosen: %s",
						guard == MX_GUARD_STARVING ? "the job is starving and holds a reservation" :
						guard == MX_GUARD_DRAIN ? "the job is makespan-critical and holds a reservation" :
						guard == MX_GUARD_CRITICAL ? "the job is makespan-critical and starts now" :
						"the round's plan");
	switch (c->blocked_by)
	{
		case MX_BLOCK_CAPACITY:
			/* how many are free now: the configuration's count is what it needs, not what is held */
			return psprintf("%d of the %d %s GPUs it needs are free now; launching or running jobs hold the "
							"others until their expected end", mx_type_free_now(pv, c->type), c->gpus,
							s->types[c->type].name);
		case MX_BLOCK_GUARDS:
			/* "some of them": the count is the configuration's, not how many are reserved */
			return psprintf("its %d %s GPUs are not all free for its run: starving or makespan-critical jobs "
							"have reserved some of them", c->gpus, s->types[c->type].name);
		case MX_BLOCK_RESERVATIONS:
			return psprintf("its %d %s GPUs are not all free for its run: other waiting jobs are planned on "
							"some of them", c->gpus, s->types[c->type].name);
		case MX_BLOCK_OBJECTIVE:
			return pstrdup("it would fit, but the round's plan has more total utility");
		case MX_BLOCK_CLUSTER:
			return pstrdup(reason[0] ? reason : "no configuration fits the up nodes");
		case MX_BLOCK_HORIZON:
			return psprintf("queued: position %lld in queue order, behind the planning horizon of the "
							"first %d waiting jobs; it is planned once it moves within it",
							(long long) pv->queue_rank, pv->horizon);
		case MX_BLOCK_QUOTA:
			return psprintf("%d %s GPUs would take the job's owner beyond its quota (mixdnn.quotas)",
							c->gpus, s->types[c->type].name);
		case MX_BLOCK_FAIR_SHARE:
			return psprintf("its %d %s GPUs are not all free for its run: other owners' jobs are planned on some "
							"of them, served first because this job's owner has used more than its fair share "
							"(mixdnn.shares)", c->gpus, s->types[c->type].name);
		default:
			return pstrdup(isfinite(c->start) ? "finishes no sooner than the chosen configuration"
						   : "never fits the up nodes beside the other jobs' plans");
	}
}

/*
 * The chosen row when the job's stored plan is on another configuration:
 * explain plans as a round would now, and a job launched since, or time
 * passed, can change what the configuration LP picks (docs/reference.md,
 * "mixdnn.explain"); the reader should not take the row for the stored plan.
 */
static char *
stored_plan_note(const mx_preview *pv, const mx_candidate *c, char *detail)
{
	const mx_job *j = &pv->d.snap.jobs[pv->ji];
	char		when[32];

	if (!c->chosen || j->prev_type < 0)
		return detail;
	/*
	 * The same configuration a little later than the stored start: a round
	 * computes this start but keeps the stored one (mixdnn.replan_tolerance,
	 * src/pg/writeback.c), so the queue shows another start than this row.
	 */
	if (c->start > j->prev_start + MX_TIME_EPS &&
		mx_kept_start(&pv->d, pv->ji, &pv->plan.a[pv->ji], mx_guc_replan_tolerance) == j->prev_start &&
		mx_format_utc(j->prev_start, when, sizeof(when)) == 0)
		return psprintf("%s; the stored plan keeps its earlier start, %s: a round rewrites a start that "
						"moves later only by more than mixdnn.replan_tolerance of the time until it, and "
						"a launch due then finds the GPUs held and plans the job again", detail, when);
	if (j->prev_type == c->type && j->prev_gpus == c->gpus)
		return detail;
	return psprintf("%s; a round now would choose this, while the stored plan, from an earlier round, "
					"is %d %s GPUs: the next round plans it again", detail, j->prev_gpus,
					pv->d.snap.types[j->prev_type].name);
}

static void
emit_candidate(const mx_preview *pv, ReturnSetInfo *rsinfo, const mx_candidate *c, int guard, double critical_from,
			   const char *reason)
{
	const mx_snapshot *s = &pv->d.snap;
	Datum		v[EXPLAIN_COLS];
	bool		n[EXPLAIN_COLS] = {false};
	const char *cause = mx_block_cause_name(c->blocked_by);

	n[0] = n[1] = n[2] = n[3] = c->type < 0;
	if (c->type >= 0)
	{
		v[0] = CStringGetTextDatum(s->types[c->type].name);
		v[1] = Int32GetDatum(c->gpus);
		v[2] = Float8GetDatum(c->utility);
		v[3] = IntervalPGetDatum(seconds_interval(c->runtime));
	}
	{
		TimestampTz from,
					to;

		/* a time beyond timestamptz's range (a far overrun) is shown as unknown */
		n[4] = !mx_epoch_to_ts_ok(c->start, &from);
		n[5] = !mx_epoch_to_ts_ok(c->start + c->runtime, &to);
		v[4] = n[4] ? (Datum) 0 : TimestampTzGetDatum(from);
		v[5] = n[5] ? (Datum) 0 : TimestampTzGetDatum(to);
	}
	n[6] = !isfinite(c->value);
	v[6] = Float8GetDatum(c->value);
	v[7] = BoolGetDatum(c->chosen);
	n[8] = cause == NULL;
	v[8] = cause ? CStringGetTextDatum(cause) : (Datum) 0;
	v[9] = CStringGetTextDatum(stored_plan_note(pv, c, candidate_detail(pv, c, guard, critical_from, reason)));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

static void
explain_plan(const mx_preview *pv, void *arg)
{
	explain_call *call = arg;
	mx_explanation e;
	const char *reason;
	int			ji = pv->ji,
				i;

	if (ji < 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("job %lld is no longer waiting", (long long) call->job_id)));
	if (mx_explain_job(&pv->d.snap, &pv->o, &pv->plan, ji, &e) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));
	reason = pv->behind_horizon ? (pv->d.snap.jobs[ji].refuse ? pv->d.snap.jobs[ji].refuse : "")
		: pv->plan.a[ji].reason;
	PG_TRY();
	{
		for (i = 0; i < e.n; i++)
			emit_candidate(pv, call->rsinfo, &e.c[i], e.guard, e.critical_from, reason);
	}
	PG_FINALLY();
	{
		mx_explanation_free(&e);
	}
	PG_END_TRY();
}

/* As the caller, so that row-level security decides what they may ask about. */
static char *
visible_status(int64 job_id)
{
	char	   *status = NULL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	if (mx_spi_execute("SELECT status FROM mixdnn.jobs WHERE job_id = $1", 1, (Oid[]) {INT8OID},
					   (Datum[]) {Int64GetDatum(job_id)}, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read the job");
	if (SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		/* Outlives SPI_finish(): allocated in the caller's context. */
		status = SPI_palloc(strlen(v) + 1);
		strcpy(status, v);
	}
	SPI_finish();
	return status;
}

Datum
mixdnn_explain(PG_FUNCTION_ARGS)
{
	explain_call call;
	char	   *status;

	/* Not STRICT: a NULL job_id would otherwise be an empty answer, not an error. */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("job_id must not be NULL")));
	call.job_id = PG_GETARG_INT64(0);
	InitMaterializedSRF(fcinfo, 0);
	call.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	status = visible_status(call.job_id);
	if (status == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA_FOUND),
				 errmsg("job %lld does not exist or is not yours", (long long) call.job_id)));
	if (strcmp(status, "pending") != 0 && strcmp(status, "planned") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("job %lld is %s; mixdnn.explain covers waiting jobs (pending or planned)",
						(long long) call.job_id, status),
				 errhint("Its plan and its run are in mixdnn.queue and mixdnn.schedule.")));
	mx_preview_job(call.job_id, explain_plan, &call);
	return (Datum) 0;
}
