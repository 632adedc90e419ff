/*
 * preview.c — plan the tables as a round would, writing nothing
 * (preview.h).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"

#include "clock.h"
#include "guc.h"
#include "preview.h"
#include "privilege.h"
#include "profile_read.h"
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
	j->duration = h->duration;
	j->priority = h->priority;
	j->submitted = s->now;
	j->prev_type = -1;
	j->profile = h->model ? mx_read_model_profile(s, h->model) : -1;
	pv->extra = s->njobs++;
}

void
mx_preview_run(const mx_hypothetical *extra, mx_preview_fn fn, void *arg)
{
	mx_saved_user saved;
	mx_preview	pv;
	/* mixdnn.what_if() is SECURITY DEFINER: its caller is the outer user. */
	char	   *caller = GetUserNameFromId(GetOuterUserId(), false);

	memset(&pv, 0, sizeof(pv));
	pv.extra = -1;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	/* The plan depends on every user's jobs, which only the owner reads. */
	mx_become_owner(&saved);
	mx_read_snapshot(&pv.d, mx_clock_now(), mx_guc_planning_horizon);
	if (extra)
	{
		add_job(&pv, extra);
		pv.d.rows[pv.extra].owner = caller;
	}
	mx_guc_options(&pv.o);
	mx_read_owners(&pv.d, &pv.o);
	if (mx_tenancy_plan_round(&pv.d.snap, &pv.o, &pv.plan) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));
	/* The core's plan is malloc'd: free it on every path. */
	PG_TRY();
	{
		fn(&pv, arg);
	}
	PG_FINALLY();
	{
		mx_plan_free(&pv.plan);
	}
	PG_END_TRY();
	mx_restore_user(&saved);
	SPI_finish();
}
