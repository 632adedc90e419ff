/*
 * preview.c — plan the tables as a round would, writing nothing
 * (preview.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"

#include "capacity.h"
#include "clock.h"
#include "guc.h"
#include "preview.h"
#include "privilege.h"
#include "profile_read.h"
#include "spi_cache.h"
#include "tenancy.h"
#include "tenancy_read.h"

/* Append *h to the snapshot's waiting jobs, submitted now, served last on ties. */
static void
add_job(mx_preview *pv, const mx_hypothetical *h)
{
	mx_snapshot *s = &pv->d.snap;
	mx_job	   *j;
	int			i;

	s->jobs = repalloc(s->jobs, sizeof(mx_job) * (s->njobs + 1));
	pv->d.rows = repalloc(pv->d.rows, sizeof(mx_job_row) * (s->njobs + 1));
	memset(&pv->d.rows[s->njobs], 0, sizeof(mx_job_row));
	j = &s->jobs[s->njobs];
	memset(j, 0, sizeof(*j));
	j->job_id = PG_INT64_MAX;
	j->cls = h->hard ? MX_HARD : MX_SOFT;
	j->ref_type = h->gpu_type ? mx_type_index(s, h->gpu_type) : -1;
	j->ref_gpus = h->gpus;
	j->min_gpus = h->min_gpus;
	j->max_gpus = h->max_gpus;
	if (h->hard)
		j->allowed = j->ref_type >= 0 ? UINT64CONST(1) << j->ref_type : 0;
	else if (h->nallowed < 0)
		j->allowed = s->ntypes >= 64 ? ~UINT64CONST(0) : (UINT64CONST(1) << s->ntypes) - 1;
	for (i = 0; !h->hard && i < h->nallowed; i++)
	{
		int			k = mx_type_index(s, h->allowed[i]);

		if (k >= 0)
			j->allowed |= UINT64CONST(1) << k;
	}
	/* an empty set of types is none, never all (0 would read as no restriction) */
	if (!h->hard && h->nallowed > 0 && j->allowed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mixdnn._what_if: none of allowed_types is a GPU type")));
	j->duration = h->duration;
	j->priority = h->priority;
	j->submitted = s->now;
	j->prev_type = -1;
	j->profile = h->model ? mx_read_model_profile(s, h->model) : -1;
	pv->ji = s->njobs++;
}

/*
 * Ranks in queue order (docs/design.md, "The waiting queue"): 1 + the
 * waiting jobs served before a job. A new job is submitted now with the
 * largest job_id, so it comes after every job of its priority submitted
 * until now.
 */
static const char *const rank_new_sql =
	"SELECT pg_catalog.count(*) + 1 FROM mixdnn.jobs w "
	"WHERE w.status IN ('pending', 'planned') "
	"  AND (w.priority > $1 OR (w.priority = $1 AND w.submitted_at <= $2))";
static const char *const rank_job_sql =
	"SELECT pg_catalog.count(*) + 1 FROM mixdnn.jobs w, mixdnn.jobs j "
	"WHERE j.job_id = $1 AND w.status IN ('pending', 'planned') "
	"  AND (w.priority > j.priority OR (w.priority = j.priority "
	"       AND (w.submitted_at, w.job_id) < (j.submitted_at, j.job_id)))";

static int64
queue_rank(const char *sql, int nargs, Oid *types, Datum *values)
{
	bool		isnull;

	return DatumGetInt64(mx_spi_value(sql, nargs, types, values, &isnull, "queue count"));
}

/* Later in queue order: lower priority, later submission, larger job_id. */
static bool
served_after(const mx_job *a, const mx_job *b)
{
	if (a->priority != b->priority)
		return a->priority < b->priority;
	if (a->submitted != b->submitted)
		return a->submitted > b->submitted;
	return a->job_id > b->job_id;
}

/* A new job within a full horizon pushes its last job out, as in a round. */
static void
drop_last_in_queue(mx_db_snapshot *d)
{
	mx_snapshot *s = &d->snap;
	int			last = 0,
				i;

	if (s->njobs == 0)
		return;
	for (i = 1; i < s->njobs; i++)
		if (served_after(&s->jobs[i], &s->jobs[last]))
			last = i;
	s->njobs--;
	memmove(&s->jobs[last], &s->jobs[last + 1], sizeof(mx_job) * (s->njobs - last));
	memmove(&d->rows[last], &d->rows[last + 1], sizeof(mx_job_row) * (s->njobs - last));
}

/* As the extension's owner: the plan depends on every user's jobs. */
static void
preview_begin(mx_preview *pv, mx_saved_user *saved)
{
	memset(pv, 0, sizeof(*pv));
	pv->ji = -1;
	pv->horizon = mx_guc_planning_horizon;
	mx_guc_options(&pv->o);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	mx_become_owner(saved);
}

/* As a round plans: under the owners' quotas and fair share. */
static void
preview_plan(mx_preview *pv)
{
	mx_read_owners(&pv->d, &pv->o);
	if (mx_tenancy_plan_round(&pv->d.snap, &pv->o, &pv->plan) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));
}

/* The core's plan is malloc'd: free it on every path. */
static void
call_with_plan(mx_preview *pv, mx_preview_fn fn, void *arg)
{
	PG_TRY();
	{
		fn(pv, arg);
	}
	PG_CATCH();
	{
		mx_plan_free(&pv->plan);
		PG_RE_THROW();
	}
	PG_END_TRY();
	mx_plan_free(&pv->plan);
}

static void
preview_end(mx_preview *pv, const mx_saved_user *saved, mx_preview_fn fn, void *arg)
{
	call_with_plan(pv, fn, arg);
	mx_restore_user(saved);
	SPI_finish();
}

void
mx_preview_run(const mx_hypothetical *extra, mx_preview_fn fn, void *arg)
{
	mx_saved_user saved;
	mx_preview	pv;
	TimestampTz now = mx_clock_now();
	/* The job would be the caller's (jobs.owner), read before becoming the owner. */
	char	   *caller = GetUserNameFromId(GetUserId(), false);

	preview_begin(&pv, &saved);
	pv.queue_rank = queue_rank(rank_new_sql, 2, (Oid[]) {INT4OID, TIMESTAMPTZOID},
							   (Datum[]) {Int32GetDatum(extra->priority), TimestampTzGetDatum(now)});
	pv.behind_horizon = pv.queue_rank > pv.horizon;
	if (!pv.behind_horizon)
	{
		mx_read_snapshot(&pv.d, now, pv.horizon);
		if (pv.d.horizon_full)
			drop_last_in_queue(&pv.d);
		add_job(&pv, extra);
		pv.d.rows[pv.ji].owner = caller;
		preview_plan(&pv);
	}
	preview_end(&pv, &saved, fn, arg);
}

void
mx_preview_job(int64 job_id, mx_preview_fn fn, void *arg)
{
	mx_saved_user saved;
	mx_preview	pv;
	int			i;

	preview_begin(&pv, &saved);
	mx_read_snapshot(&pv.d, mx_clock_now(), pv.horizon);
	preview_plan(&pv);
	for (i = 0; i < pv.d.snap.njobs && pv.ji < 0; i++)
		if (pv.d.snap.jobs[i].job_id == job_id)
			pv.ji = i;
	if (pv.ji < 0)
	{
		/* Behind the horizon: read after planning, so the plan does not cover it. */
		pv.ji = mx_read_waiting_job(&pv.d, job_id);
		pv.behind_horizon = pv.ji >= 0;
		/* Not among the planned jobs' owners: no owner causes apply to it. */
		if (pv.behind_horizon)
			pv.d.snap.jobs[pv.ji].owner = -1;
		if (pv.behind_horizon)
			pv.queue_rank = queue_rank(rank_job_sql, 1, (Oid[]) {INT8OID},
									   (Datum[]) {Int64GetDatum(job_id)});
	}
	preview_end(&pv, &saved, fn, arg);
}

/*
 * GPUs of a type free now, as the round's capacity counts them (the
 * core's, at the snapshot's now).
 */
int
mx_type_free_now(const mx_preview *pv, int type)
{
	mx_capacity c;
	int			free;

	if (mx_capacity_init(&c, &pv->d.snap, pv->o.overrun_s, mx_overrun_factor(&pv->o)) < 0)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	free = mx_capacity_free_at(&c, type, pv->d.snap.now);
	mx_capacity_free(&c);
	return free;
}
