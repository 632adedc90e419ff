/*
 * typeplan.c — apply the configuration LP's choices to a round's plan
 * (typeplan.h). See docs/model.md, "Configuration LP".
 *
 * A job pinned to its LP configuration is handed to the heuristic as a
 * hard job on exactly that configuration, so the heuristic's order, guards
 * and passes (start now, else deferred) place it without knowing about the
 * LP; the guards and the order stay those of the unpinned jobs. Then the
 * backfill starts a window job its configuration makes wait on a free one
 * of its own that ends it sooner (docs/model.md, "The LP's backfill").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "typeplan.h"
#include "passes.h"
#include "tolerance.h"
#include "utility.h"

/* Job j restated as a hard job on configuration c (its run time and count). */
static void
pin_job(mx_job *j, const mx_config *c)
{
	j->cls = MX_HARD;
	j->ref_type = c->type;
	j->ref_gpus = c->gpus;
	j->min_gpus = c->gpus;
	j->max_gpus = c->gpus;
	j->allowed = (uint64_t) 1 << c->type;
	j->duration = c->runtime;
	j->profile = -1;
}

/*
 * The configuration of cf[0..n) that fits work now for its whole run, ends
 * job ji before its plan does and passes the options' start check (its
 * owner's quotas, beside what p starts now): the shortest run, then the
 * fewest GPUs, then the first type; -1 when none. The job's own plan is
 * out of work.
 */
static int
sooner_now(const mx_snapshot *s, const mx_options *o, const mx_capacity *work,
		   const mx_plan *p, int ji, const mx_config *cf, int n)
{
	const mx_assignment *a = &p->a[ji];
	int			best = -1;

	for (int c = 0; c < n; c++)
	{
		if (!(s->now + cf[c].runtime < a->end - MX_TIME_EPS) ||
			mx_capacity_earliest(work, cf[c].type, cf[c].gpus, cf[c].runtime, s->now) > s->now + MX_TIME_EPS ||
			(o->start_check != NULL &&
			 o->start_check(o->start_check_ctx, p, ji, cf[c].type, cf[c].gpus) != MX_START_OK))
			continue;
		if (best < 0 || cf[c].runtime < cf[best].runtime - MX_TIME_EPS ||
			(!(cf[c].runtime > cf[best].runtime + MX_TIME_EPS) &&
			 (cf[c].gpus < cf[best].gpus || (cf[c].gpus == cf[best].gpus && cf[c].type < cf[best].type))))
			best = c;
	}
	return best;
}

int
mx_typeplan_backfill(const mx_snapshot *s, const mx_options *o, mx_capacity *work,
					 const int *window, int nw, mx_plan *p)
{
	mx_config  *cf = NULL;
	int			ccap = 0,
				moved = 0;

	for (int i = 0; i < nw; i++)
	{
		mx_assignment *a = &p->a[window[i]];
		int			n,
					c;

		if (a->status != MX_PLANNED || !(a->start > s->now + MX_TIME_EPS))
			continue;
		n = mx_job_configs_buf(s, &s->jobs[window[i]], o->scaling_alpha, &cf, &ccap);
		/* Its own plan starts later: what is free now does not depend on it. */
		for (c = 0; c < n && mx_capacity_free_at(work, cf[c].type, s->now) < cf[c].gpus; c++)
			;
		if (c >= n || mx_capacity_release(work, a->type, a->gpus, a->start, a->end - a->start) < 0)
			continue;
		c = sooner_now(s, o, work, p, window[i], cf, n);
		if (c < 0 || mx_capacity_reserve(work, cf[c].type, cf[c].gpus, s->now, cf[c].runtime) < 0)
		{
			/* Only out of memory fails here; then work is not whole: stop. */
			if (mx_capacity_reserve(work, a->type, a->gpus, a->start, a->end - a->start) < 0)
				break;
			continue;
		}
		a->type = cf[c].type;
		a->gpus = cf[c].gpus;
		a->start = s->now;
		a->end = s->now + cf[c].runtime;
		a->utility = cf[c].utility;
		moved++;
	}
	free(cf);
	return moved;
}

mx_typelp_result
mx_typeplan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
			const mx_capacity *holdcap, const int *order, int np,
			const int *window, int nw, const unsigned char *guard,
			const double *best, double deadline_ms, mx_plan *p,
			mx_typelp_stats *st)
{
	mx_config  *choice = malloc((size_t) (nw > 0 ? nw : 1) * sizeof(mx_config));
	mx_snapshot pinned = *s;
	mx_capacity work;
	mx_typelp_result r;
	int			i;

	if (choice == NULL)
		return MX_TYPELP_ERROR;
	r = mx_typelp_configs(s, o, holdcap, window, nw, p, deadline_ms, choice, st);
	if (r != MX_TYPELP_OK)
	{
		free(choice);
		return r;
	}
	pinned.jobs = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(mx_job));
	if (pinned.jobs == NULL || mx_capacity_copy(&work, cap) < 0)
	{
		free(pinned.jobs);
		free(choice);
		return MX_TYPELP_ERROR;
	}
	memcpy(pinned.jobs, s->jobs, (size_t) s->njobs * sizeof(mx_job));
	for (i = 0; i < nw; i++)
		if (choice[i].type >= 0)
			pin_job(&pinned.jobs[window[i]], &choice[i]);

	mx_heuristic_plan_guarded(&pinned, o, &work, order, np, p, guard, best);
	for (i = 0; i < nw; i++)
		if (choice[i].type >= 0 && p->a[window[i]].status == MX_PLANNED)
			p->a[window[i]].utility = choice[i].utility;
	if (o->lp_backfill)
		(void) mx_typeplan_backfill(s, o, &work, window, nw, p);
	mx_capacity_free(&work);
	free(pinned.jobs);
	free(choice);
	return MX_TYPELP_OK;
}
