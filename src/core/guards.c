/*
 * guards.c — which waiting jobs hold GPUs this round: starving, and
 * makespan-critical or draining against the bound T (guards.h). See
 * docs/model.md, "Who holds GPUs".
 */
#include <math.h>
#include <stdlib.h>

#include "guards.h"
#include "overrun.h"
#include "tolerance.h"
#include "utility.h"

/* What the guards' T is built from (mx_job_guards' comment). */
typedef struct guard_bound
{
	double	   *busy;			/* per type: GPU-seconds of running parts */
	double	   *hard;			/* per type: least GPU-seconds of the hard jobs that need it */
	int		   *tot;			/* per type: up GPUs */
	int			totall;
	double		allbusy;
	double		allwork;		/* least GPU-seconds of every waiting job */
	double		T;
} guard_bound;

/* The up GPUs, and the running parts' ends and busy GPU-seconds. */
static void
bound_from_parts(const mx_snapshot *s, const mx_options *o, guard_bound *g)
{
	for (int i = 0; i < s->nnodes; i++)
		if (s->nodes[i].status == MX_NODE_UP && s->nodes[i].type >= 0 && s->nodes[i].type < s->ntypes)
			g->tot[s->nodes[i].type] += s->nodes[i].gpus;
	for (int k = 0; k < s->ntypes; k++)
		g->totall += g->tot[k];
	for (int i = 0; i < s->nparts; i++)
	{
		const mx_running_part *r = &s->parts[i];
		double		e = mx_overrun_end(r->expected_end, s->now, o->overrun_s, mx_overrun_factor(o));

		if (r->node < 0 || r->node >= s->nnodes || s->nodes[r->node].status != MX_NODE_UP ||
			!(r->gpus > 0))
			continue;
		g->busy[s->nodes[r->node].type] += r->gpus * (e - s->now);
		g->allbusy += r->gpus * (e - s->now);
		if (e > g->T)
			g->T = e;
	}
}

/*
 * Every waiting job's best run time rt[i] (INFINITY: no configuration) and
 * least GPU-seconds. -1 when out of memory.
 */
static int
bound_from_jobs(const mx_snapshot *s, const mx_options *o, guard_bound *g, double *rt)
{
	mx_config  *cf = NULL;
	int			ccap = 0;

	for (int i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &s->jobs[i];
		int			nc = mx_job_configs_buf(s, j, o->scaling_alpha, &cf, &ccap);
		double		w = INFINITY;

		if (nc < 0)
		{
			free(cf);
			return -1;
		}
		rt[i] = INFINITY;
		for (int c = 0; c < nc; c++)
		{
			if (cf[c].runtime < rt[i])
				rt[i] = cf[c].runtime;
			if (cf[c].runtime * cf[c].gpus < w)
				w = cf[c].runtime * cf[c].gpus;
		}
		if (!isfinite(rt[i]))
			continue;
		if (s->now + rt[i] > g->T)
			g->T = s->now + rt[i];
		g->allwork += w;
		if (j->cls == MX_HARD && j->ref_type >= 0 && j->ref_type < s->ntypes)
			g->hard[j->ref_type] += w;
	}
	free(cf);
	return 0;
}

/* The work bounds: all work on all GPUs, and each type's own. */
static void
bound_from_work(const mx_snapshot *s, guard_bound *g)
{
	if (g->totall > 0 && s->now + (g->allbusy + g->allwork) / g->totall > g->T)
		g->T = s->now + (g->allbusy + g->allwork) / g->totall;
	for (int k = 0; k < s->ntypes; k++)
		if (g->tot[k] > 0 && s->now + (g->busy[k] + g->hard[k]) / g->tot[k] > g->T)
			g->T = s->now + (g->busy[k] + g->hard[k]) / g->tot[k];
}

/* A job's guard, given T and its best run time r. */
static unsigned char
guard_of(const mx_job *j, const mx_options *o, double now, double T, double r)
{
	double		dl = j->submitted + o->starve_factor * r;

	if (o->starve_factor > 0 && isfinite(dl) && now >= dl)
		return MX_GUARD_STARVING;
	if (o->critical_wait > 0 && now < j->submitted + o->critical_wait * r)
		return MX_GUARD_NONE;	/* too soon to be critical or draining */
	if (o->drain_margin >= 0 && now >= T - (1.0 + o->drain_margin) * r)
		return MX_GUARD_DRAIN;
	if (o->critical_margin >= 0 && now >= T - (1.0 + o->critical_margin) * r)
		return MX_GUARD_CRITICAL;
	return MX_GUARD_NONE;
}

/*
 * The guards (docs/model.md, "Who holds GPUs"). T is a lower bound on the
 * makespan of the work the round knows, the largest of
 *
 *   - the latest expected end of a running part on an up node (an overdue
 *     part: the overrun rule, overrun.h);
 *   - now + the best run time of every waiting job;
 *   - now + (busy GPU-seconds of the running parts + the least GPU-seconds
 *     of every waiting job) / the up GPUs (all work on all GPUs);
 *   - per type k: now + (busy GPU-seconds on k + the GPU-seconds of the
 *     hard jobs that need k) / the up GPUs of k.
 *
 * A job with best run time r is
 *
 *   starving when now >= submitted + X r  (X = starve_factor > 0), and
 *   critical when now >= T - (1 + mu) r   (mu = critical_margin >= 0),
 *
 * starving winning when both hold; draining and critical only once it has
 * waited kappa r (now >= submitted + kappa r, kappa = critical_wait > 0):
 * the short jobs that arrived with a long one go first for that moment
 * (docs/model.md, table K). kappa = 0 is the guard without a wait, also
 * for a job whose submission time lies ahead of now.
 */
int
mx_job_guards(const mx_snapshot *s, const mx_options *o, unsigned char *guard, double *best)
{
	guard_bound g = {.T = s->now};
	double	   *rt = NULL;
	int			rc = -1;

	for (int i = 0; i < s->njobs; i++)
		guard[i] = MX_GUARD_NONE;
	if (s->njobs <= 0 || o->reserve_all)
		return 0;
	rt = best ? best : malloc((size_t) s->njobs * sizeof(double));
	g.busy = calloc((size_t) s->ntypes + 1, sizeof(double));
	g.hard = calloc((size_t) s->ntypes + 1, sizeof(double));
	g.tot = calloc((size_t) s->ntypes + 1, sizeof(int));
	if (!rt || !g.busy || !g.hard || !g.tot)
		goto out;
	bound_from_parts(s, o, &g);
	if (bound_from_jobs(s, o, &g, rt) < 0)
		goto out;
	bound_from_work(s, &g);
	for (int i = 0; i < s->njobs; i++)
		if (isfinite(rt[i]))
			guard[i] = guard_of(&s->jobs[i], o, s->now, g.T, rt[i]);
	rc = 0;
out:
	if (rt != best)
		free(rt);
	free(g.busy);
	free(g.hard);
	free(g.tot);
	return rc;
}

int
mx_guard_holds(unsigned char g, double start, double now)
{
	return g == MX_GUARD_STARVING || g == MX_GUARD_DRAIN ||
		(g == MX_GUARD_CRITICAL && start <= now + MX_TIME_EPS);
}
