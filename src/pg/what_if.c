/*
 * what_if.c — mixdnn._what_if(), the core of mixdnn.what_if(): when and on
 * what a job would run if it were submitted now, from a plan made exactly
 * as a round makes it, with the job added; or why it would not be planned
 * (behind the planning horizon) or not accepted (the caller's waiting-jobs
 * limit: mixdnn.quotas, else mixdnn.max_waiting_jobs).
 * Nothing is written. The SQL wrapper (sql/install/70_surface.sql)
 * validates the arguments and applies the submission defaults first.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "clock.h"
#include "explain.h"
#include "guc.h"
#include "preview.h"
#include "privilege.h"
#include "spi_cache.h"
#include "tenancy.h"
#include "utility.h"
#include "writeback.h"

PG_FUNCTION_INFO_V1(mixdnn_what_if);

#define WHAT_IF_COLS 8

/* One result row; NULL plan columns unless planned, NULL position unless given. */
static void
put_row(ReturnSetInfo *rsinfo, const mx_preview *pv, int64 position, const char *reason, const char *cause)
{
	const mx_snapshot *s = &pv->d.snap;
	const mx_assignment *a = pv->ji >= 0 && !pv->behind_horizon ? &pv->plan.a[pv->ji] : NULL;
	Datum		v[WHAT_IF_COLS] = {0};
	bool		n[WHAT_IF_COLS] = {true, true, true, true, true, true, true, true};

	if (a && a->status == MX_PLANNED)
	{
		v[0] = CStringGetTextDatum(s->types[a->type].name);
		v[1] = Int32GetDatum(a->gpus);
		v[2] = TimestampTzGetDatum(mx_epoch_to_ts(a->start));
		v[3] = TimestampTzGetDatum(mx_epoch_to_ts(a->end));
		v[4] = DirectFunctionCall2(timestamp_mi, v[2], TimestampTzGetDatum(mx_epoch_to_ts(s->now)));
		n[0] = n[1] = n[2] = n[3] = n[4] = false;
	}
	n[5] = position <= 0;
	v[5] = Int32GetDatum((int32) Min(position, PG_INT32_MAX));
	n[6] = reason == NULL || reason[0] == '\0';
	v[6] = n[6] ? (Datum) 0 : CStringGetTextDatum(reason);
	n[7] = cause == NULL;
	v[7] = n[7] ? (Datum) 0 : CStringGetTextDatum(cause);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

/*
 * The job waits, unplanned, because of its owner's (the caller's) quotas,
 * not the up nodes: they could never let it run, or refused the start the
 * plan found for it, now or later, beside the owner's jobs planned before
 * it (tenancy.c marks the assignment), or a quota that lends nothing binds
 * the owner now on every type it may run on, so the round would refuse
 * its start.
 */
static bool
over_own_quota(const mx_preview *pv)
{
	const mx_snapshot *s = &pv->d.snap;
	const mx_job *j = &s->jobs[pv->ji];
	const mx_assignment *a = &pv->plan.a[pv->ji];
	int			need = j->cls == MX_HARD ? j->ref_gpus : j->min_gpus;
	uint64_t	types = mx_job_types(s, j);	/* a hard job's type is not in allowed */
	int			k;

	if (a->status == MX_UNPLANNABLE || a->by_quota)
		return a->by_quota;
	if (a->status != MX_WAITING || j->owner < 0 || j->owner >= s->nowners)
		return false;
	for (k = 0; k < s->ntypes && k < 64; k++)
		if ((types & (UINT64CONST(1) << k)) &&
			mx_tenancy_over_quota(s, &pv->plan, pv->ji, k, need, NULL, 0) == 2)
			return true;
	return false;
}

/*
 * Why a job the round leaves waiting, not over a quota, waits: the up
 * nodes cannot hold it (unplannable: cluster), or, under the policies that
 * start a job only now (k8s, sjf, ...), its GPUs are not free now: held by
 * launching or running jobs on every type it may run on (capacity), or
 * free but given to jobs the round starts first (reservations), as
 * mixdnn.explain() names them.
 */
static mx_block_cause
waiting_cause(const mx_preview *pv)
{
	const mx_snapshot *s = &pv->d.snap;
	const mx_job *j = &s->jobs[pv->ji];
	const mx_assignment *a = &pv->plan.a[pv->ji];
	int			need = j->cls == MX_HARD ? j->ref_gpus : j->min_gpus;
	uint64_t	types = mx_job_types(s, j);
	int			k;

	if (a->status != MX_WAITING)
		return MX_BLOCK_CLUSTER;
	/* the configuration the policy waits for (the requested one under k8s and sjf) */
	if (a->type >= 0 && a->type < s->ntypes && a->gpus > 0)
		return mx_type_free_now(pv, a->type) >= a->gpus ? MX_BLOCK_RESERVATIONS : MX_BLOCK_CAPACITY;
	for (k = 0; k < s->ntypes && k < 64; k++)
		if ((types & (UINT64CONST(1) << k)) && mx_type_free_now(pv, k) >= need)
			return MX_BLOCK_RESERVATIONS;
	return MX_BLOCK_CAPACITY;
}

/*
 * The job's position as mixdnn.queue will show it after the round its
 * submission runs: planned jobs by the start that round leaves stored
 * (a later start within mixdnn.replan_tolerance keeps the earlier one:
 * mx_kept_start) to the microsecond, as stored, then job_id; the new
 * job's id is the largest.
 */
static int
queue_position(const mx_preview *pv)
{
	const mx_assignment *me = &pv->plan.a[pv->ji];
	TimestampTz mine = mx_epoch_to_ts(me->start);	/* as stored: to the microsecond */
	int			i,
				pos = 1;

	for (i = 0; i < pv->plan.n; i++)
	{
		const mx_assignment *a = &pv->plan.a[i];

		if (i == pv->ji || a->status != MX_PLANNED)
			continue;
		if (mx_epoch_to_ts(mx_kept_start(&pv->d, i, a, mx_guc_replan_tolerance)) <= mine)
			pos++;
	}
	return pos;
}

static void
what_if_plan(const mx_preview *pv, void *arg)
{
	ReturnSetInfo *rsinfo = arg;
	const mx_assignment *a;

	if (pv->behind_horizon)
	{
		put_row(rsinfo, pv, pv->queue_rank, mx_queued_reason(pv->horizon),
				mx_block_cause_name(MX_BLOCK_HORIZON));
		return;
	}
	a = &pv->plan.a[pv->ji];
	if (a->status == MX_PLANNED)
		put_row(rsinfo, pv, queue_position(pv), a->reason, NULL);
	else
		put_row(rsinfo, pv, 0, a->reason,
				mx_block_cause_name(over_own_quota(pv) ? MX_BLOCK_QUOTA : waiting_cause(pv)));
}

/*
 * The caller's waiting-jobs limit as the submission trigger computes it
 * (mixdnn._waiting_limit: the strictest mixdnn.quotas row binding the
 * caller, else its mixdnn.max_waiting_jobs: its role's own, ALTER ROLE
 * SET, when it is not the session's user, else the session's); -1 for
 * none. *setting: whether that limit is the setting's, not a quotas
 * row's. The quotas are the admins' alone, so they are read as the
 * extension's owner.
 */
static int32
caller_waiting_limit(bool *setting)
{
	Datum		who = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(GetUserId(), false)));
	mx_saved_user saved;
	bool		isnull = true;
	int32		lim = -1;

	mx_become_owner(&saved);
	if (mx_spi_execute("SELECT mixdnn._waiting_limit($1), "
					   "COALESCE(mixdnn._role_setting($1, 'mixdnn.max_waiting_jobs'), "
					   "pg_catalog.current_setting('mixdnn.max_waiting_jobs')::pg_catalog.int4)",
					   1, (Oid[]) {NAMEOID}, &who, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		n;

		lim = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		*setting = lim == DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &n));
	}
	else
		elog(ERROR, "mixdnn: could not read the caller's waiting-jobs limit");
	mx_restore_user(&saved);
	return isnull ? -1 : lim;
}

/*
 * The caller's waiting jobs, as the submission trigger counts them
 * (mixdnn._check_waiting_limit), when they reach the limit *lim; -1 when
 * the caller is not limited or below it. The count runs as the caller:
 * row-level security and owner = current_user select their jobs. It
 * stops at *lim + 1: more than the limit (a limit lowered since the jobs
 * were submitted) is told apart from the limit, not its exact count.
 */
static int64
waiting_jobs_over_limit(int32 *lim, bool *setting)
{
	int64		waiting;
	bool		isnull;

	if (superuser() || (*lim = caller_waiting_limit(setting)) < 0)
		return -1;
	if (mx_spi_execute("SELECT pg_catalog.count(*) FROM (SELECT FROM mixdnn.jobs j "
					   "WHERE j.owner = CURRENT_USER AND j.status IN ('pending', 'planned') LIMIT $1) w",
					   1, (Oid[]) {INT8OID}, (Datum[]) {Int64GetDatum((int64) *lim + 1)},
					   NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn: could not count the caller's waiting jobs");
	waiting = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	return waiting >= *lim ? waiting : -1;
}

/* A submission over the caller's waiting-jobs limit would fail: say so, plan nothing. */
static bool
refused_by_limit(ReturnSetInfo *rsinfo)
{
	mx_preview	none;
	int64		waiting;
	int32		lim = -1;
	bool		setting = false;
	const char *whose;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	waiting = waiting_jobs_over_limit(&lim, &setting);
	SPI_finish();
	if (waiting < 0)
		return false;
	memset(&none, 0, sizeof(none));
	none.ji = -1;
	whose = setting ? "mixdnn.max_waiting_jobs" : "its mixdnn.quotas row";
	put_row(rsinfo, &none, 0,
			waiting > lim ?
			psprintf("refused: role %s has more than the %d waiting jobs %s allows",
					 GetUserNameFromId(GetUserId(), false), lim, whose) :
			psprintf("refused: role %s has %lld waiting jobs, the most %s allows",
					 GetUserNameFromId(GetUserId(), false), (long long) waiting, whose),
			"limit");
	return true;
}

/* What mixdnn.what_if() checks, checked again: mixdnn._what_if is callable by itself. */
static void
check_arguments(const mx_hypothetical *h)
{
	int			named = 0,
				i;

	/* a soft job's empty set of types, or one of NULLs only, is none, never all */
	for (i = 0; i < h->nallowed; i++)
		named += h->allowed[i][0] != '\0';
	if (!h->hard && h->nallowed >= 0 && named == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mixdnn._what_if needs allowed_types to name a GPU type, or to be NULL")));
	if (h->gpus < 1 || h->gpus > 4096 || h->min_gpus < 1 || h->max_gpus > 4096 ||
		h->min_gpus > h->max_gpus || !(h->duration > 0) || h->duration > 366 * 86400.0 ||
		h->priority < -100 || h->priority > 100 || (h->hard && h->gpu_type == NULL) ||
		(h->model != NULL && pg_mbstrlen(h->model) > 63))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mixdnn._what_if needs the arguments mixdnn.what_if checks"),
				 errhint("Call mixdnn.what_if().")));
}

static int
text_array(ArrayType *arr, char ***out)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	*out = palloc0(sizeof(char *) * Max(n, 1));
	for (i = 0; i < n; i++)
		(*out)[i] = nulls[i] ? "" : TextDatumGetCString(elems[i]);
	return n;
}

/* (hard bool, gpu_type text, gpus int, min_gpus int, max_gpus int, allowed_types text[], duration_s float8, priority int, model text) */
Datum
mixdnn_what_if(PG_FUNCTION_ARGS)
{
	mx_hypothetical h;
	int			i;

	for (i = 0; i < 9; i++)
		if (PG_ARGISNULL(i) && i != 1 && i != 5 && i != 8)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("mixdnn._what_if needs the arguments mixdnn.what_if checks"),
					 errhint("Call mixdnn.what_if().")));
	memset(&h, 0, sizeof(h));
	h.hard = PG_GETARG_BOOL(0);
	h.gpu_type = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	h.gpus = PG_GETARG_INT32(2);
	h.min_gpus = PG_GETARG_INT32(3);
	h.max_gpus = PG_GETARG_INT32(4);
	h.nallowed = PG_ARGISNULL(5) ? -1 : text_array(PG_GETARG_ARRAYTYPE_P(5), &h.allowed);
	h.duration = PG_GETARG_FLOAT8(6);
	h.priority = PG_GETARG_INT32(7);
	h.model = PG_ARGISNULL(8) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(8));
	check_arguments(&h);

	InitMaterializedSRF(fcinfo, 0);
	if (!refused_by_limit((ReturnSetInfo *) fcinfo->resultinfo))
		mx_preview_run(&h, what_if_plan, fcinfo->resultinfo);
	return (Datum) 0;
}
