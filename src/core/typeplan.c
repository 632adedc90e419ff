/*
 * typeplan.c — apply the configuration LP's choices to a round's plan
 * (typeplan.h). See docs/model.md, "Configuration LP".
 *
 * A job pinned to its LP configuration is handed to the heuristic as a
 * hard job on exactly that configuration, so the heuristic's order, guards
 * and passes (start now, else deferred) place it without knowing about the
 * LP; the guards and the order stay those of the unpinned jobs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "typeplan.h"
#include "passes.h"

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
	r = mx_typelp_configs(s, o, holdcap, window, nw, deadline_ms, choice, st);
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
	mx_capacity_free(&work);
	free(pinned.jobs);
	free(choice);
	return MX_TYPELP_OK;
}
