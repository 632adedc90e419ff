/*
 * comparators.c — sjf, hgreedy, hsjf and k8s-any (comparators.h).
 *
 * The shared rules of contract §6, so that an independent implementation
 * agrees with this one:
 *   - a job's run time on a configuration is its stated duration (the
 *     estimate) divided by the configuration's utility;
 *   - a running job is expected back at its start plus its run time under
 *     the estimate; one that outlived it counts as ending now, but its GPUs
 *     stay held (freepool.h);
 *   - soft counts are min_gpus, max_gpus, the requested count and the
 *     powers of two between (mx_job_configs), types in TYPES.csv order;
 *   - equal finish times prefer fewer GPUs, then the earlier type;
 *   - equal ordering keys fall back to submit order (submitted, job_id).
 *
 *   sjf      requested configuration; shortest estimated run time first;
 *            a job starts now when its GPUs are free now, else it waits and
 *            later jobs may still start.
 *   hgreedy  submit order; each job takes the allowed configuration that is
 *            expected to finish it earliest, and starts if that configuration
 *            is free now; otherwise it waits and holds nothing.
 *   hsjf     as hgreedy, jobs in order of their shortest estimated run time
 *            over their allowed configurations.
 *   k8s-any  as k8s (submit order, requested configuration, first fit, skip);
 *            a soft job whose requested type is not free takes the first
 *            allowed type, in TYPES.csv order, where its requested count is
 *            free now.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "comparators.h"
#include "tolerance.h"
#include "baselines.h"
#include "freepool.h"
#include "plan_limits.h"
#include "utility.h"

/* Finish times closer than this are equal (float noise of sums of times). */

/* The state of one round. */
typedef struct cmp_round
{
	const mx_snapshot *s;
	const mx_options *o;
	mx_plan    *p;
	mx_freepool pool;
	mx_config  *cf;				/* scratch: one job's configurations */
	int			cfmax;
	double	   *key;			/* per job: ordering key (run time), 0 for submit order */
} cmp_round;

static const cmp_round *sort_round;

static int
cmp_order(const void *a, const void *b)
{
	int			x = *(const int *) a,
				y = *(const int *) b;
	const mx_job *jx = &sort_round->s->jobs[x],
			   *jy = &sort_round->s->jobs[y];
	double		kx = sort_round->key[x],
				ky = sort_round->key[y];

	if (kx < ky)
		return -1;
	if (kx > ky)
		return 1;
	if (jx->submitted != jy->submitted)
		return jx->submitted < jy->submitted ? -1 : 1;
	if (jx->job_id != jy->job_id)
		return jx->job_id < jy->job_id ? -1 : 1;
	return x - y;
}

/* The job's configurations into r->cf; how many (0: none on the up nodes). */
static int
job_configs(cmp_round *r, const mx_job *j)
{
	return mx_job_configs_buf(r->s, j, r->o->scaling_alpha, &r->cf, &r->cfmax);
}

/* Ordering keys of the policy; -1 when out of memory. */
static int
fill_keys(cmp_round *r)
{
	int			i;

	for (i = 0; i < r->s->njobs; i++)
	{
		const mx_job *j = &r->s->jobs[i];
		double		k = 0;

		if (r->o->policy == MX_POLICY_SJF)
		{
			int			t,
						g;
			double		u;
			char		why[MX_REASON_LEN];

			if (mx_requested_config(r->s, j, r->pool.total, r->o->scaling_alpha, &t, &g, &u,
									why, sizeof(why)) == 0)
				k = j->duration / u;
		}
		else if (r->o->policy == MX_POLICY_HSJF)
		{
			int			n = job_configs(r, j),
						c;

			if (n < 0)
				return -1;
			k = INFINITY;
			for (c = 0; c < n; c++)
				if (r->cf[c].runtime < k)
					k = r->cf[c].runtime;
			if (n == 0)
				k = 0;
		}
		r->key[i] = k;
	}
	return 0;
}

/* Start job ji now on (type, gpus) at utility util. */
static void
start_now(cmp_round *r, int ji, int type, int gpus, double util)
{
	mx_assignment *a = &r->p->a[ji];
	double		len = r->s->jobs[ji].duration / util;

	a->type = type;
	a->gpus = gpus;
	a->utility = util;
	/* every caller's configuration keeps the run-time limit; the calendar's is checked before the GPUs are taken */
	if (!mx_ends_in_calendar(r->s->now, len))
	{
		mx_unplan_late(a);
		return;
	}
	if (mx_freepool_take(&r->pool, type, gpus, r->s->now + len) < 0)
	{
		snprintf(a->reason, MX_REASON_LEN, "out of memory in the comparator");
		return;
	}
	a->status = MX_PLANNED;
	a->start = r->s->now;
	a->end = r->s->now + len;
	a->reason[0] = '\0';
	r->p->objective += util;
}

/* sjf, k8s, k8s-any: the requested configuration if free now, else (k8s-any, soft) another type. */
static void
plan_requested(cmp_round *r, int ji)
{
	const mx_snapshot *s = r->s;
	const mx_job *j = &s->jobs[ji];
	mx_assignment *a = &r->p->a[ji];
	int			t,
				g,
				k;
	double		u,
				ref;

	if (mx_requested_config(s, j, r->pool.total, r->o->scaling_alpha, &t, &g, &u,
							a->reason, MX_REASON_LEN) < 0)
	{
		a->status = MX_UNPLANNABLE;
		return;
	}
	a->type = t;
	a->gpus = g;
	if (r->pool.free_now[t] >= g)
	{
		start_now(r, ji, t, g, u);
		return;
	}
	snprintf(a->reason, MX_REASON_LEN, "%s: needs %d %s GPUs, %d free now",
			 mx_policy_name(r->o->policy), g, s->types[t].name, r->pool.free_now[t]);
	if (r->o->policy != MX_POLICY_K8S_ANY || j->cls != MX_SOFT)
		return;
	ref = mx_ref_throughput(s, j, r->o->scaling_alpha);
	for (k = 0; k < r->pool.ntypes; k++)
	{
		double		thr;

		if (k == t || (j->allowed != 0 && !((j->allowed >> k) & 1)) || r->pool.free_now[k] < g)
			continue;
		thr = mx_throughput(s, j, k, g, r->o->scaling_alpha);
		if (!(thr > 0) || !(ref > 0) || !isfinite(thr / ref) || !mx_runtime_ok(j->duration / (thr / ref)))
			continue;
		start_now(r, ji, k, g, thr / ref);
		return;
	}
}

/* hgreedy, hsjf: the configuration expected to finish first; start it if it is free now. */
static int
plan_earliest(cmp_round *r, int ji)
{
	const mx_snapshot *s = r->s;
	mx_assignment *a = &r->p->a[ji];
	int			n = job_configs(r, &s->jobs[ji]),
				c,
				best = -1;
	double		best_end = INFINITY,
				best_start = INFINITY;

	if (n < 0)
		return -1;
	if (n == 0)
	{
		a->status = MX_UNPLANNABLE;
		mx_job_explain(s, &s->jobs[ji], r->o->scaling_alpha, a->reason, MX_REASON_LEN);
		return 0;
	}
	for (c = 0; c < n; c++)
	{
		const mx_config *cf = &r->cf[c];
		double		st = mx_freepool_earliest(&r->pool, cf->type, cf->gpus),
					end = st + cf->runtime;

		if (!isfinite(end))
			continue;
		/* configurations come in type order: a tie keeps the earlier type unless this has fewer GPUs */
		if (best < 0 || end < best_end - MX_TIME_EPS ||
			(end <= best_end + MX_TIME_EPS && cf->gpus < r->cf[best].gpus))
		{
			best = c;
			best_end = end;
			best_start = st;
		}
	}
	if (best < 0)
	{
		snprintf(a->reason, MX_REASON_LEN, "%s: no configuration is ever free", mx_policy_name(r->o->policy));
		return 0;
	}
	a->type = r->cf[best].type;
	a->gpus = r->cf[best].gpus;
	if (best_start <= s->now + MX_TIME_EPS && r->pool.free_now[a->type] >= a->gpus)
		start_now(r, ji, a->type, a->gpus, r->cf[best].utility);
	else
		snprintf(a->reason, MX_REASON_LEN, "%s: %d %s GPUs finish it first, %d free now",
				 mx_policy_name(r->o->policy), a->gpus, s->types[a->type].name,
				 r->pool.free_now[a->type]);
	return 0;
}

static void
reset_plan(const mx_snapshot *s, mx_plan *p)
{
	int			i;

	p->objective = 0;
	p->heuristic_objective = 0;
	p->bound = NAN;
	p->milp_jobs = 0;
	p->milp_vars = 0;
	for (i = 0; i < s->njobs && i < p->n; i++)
	{
		mx_assignment *a = &p->a[i];

		a->job = i;
		a->job_id = s->jobs[i].job_id;
		a->status = MX_WAITING;
		a->type = -1;
		a->gpus = 0;
		a->start = a->end = NAN;
		a->utility = 0;
		a->reason[0] = '\0';
	}
}

int
mx_comparator_plan(const mx_snapshot *s, const mx_options *o, mx_plan *p)
{
	cmp_round	r = {0};
	int		   *order = NULL;
	int			i,
				rc = 0;

	reset_plan(s, p);
	snprintf(p->policy, sizeof(p->policy), "%s", mx_policy_name(o->policy));
	snprintf(p->solver, MX_SOLVER_LEN, "%s", mx_policy_name(o->policy));
	if (s->njobs <= 0)
		return 0;
	r.s = s;
	r.o = o;
	r.p = p;
	order = malloc((size_t) s->njobs * sizeof(int));
	r.key = malloc((size_t) s->njobs * sizeof(double));
	if (order == NULL || r.key == NULL || mx_freepool_init(&r.pool, s) < 0)
	{
		free(order);
		free(r.key);
		return -1;
	}
	if (fill_keys(&r) < 0)
		rc = -1;
	for (i = 0; rc == 0 && i < s->njobs; i++)
		order[i] = i;
	if (rc == 0)
	{
		sort_round = &r;
		qsort(order, s->njobs, sizeof(int), cmp_order);
		sort_round = NULL;
	}
	for (i = 0; rc == 0 && i < s->njobs; i++)
	{
		if (o->policy == MX_POLICY_HGREEDY || o->policy == MX_POLICY_HSJF)
			rc = plan_earliest(&r, order[i]);
		else
			plan_requested(&r, order[i]);
	}
	if (rc < 0)
		reset_plan(s, p);
	mx_freepool_free(&r.pool);
	free(r.cf);
	free(r.key);
	free(order);
	return rc;
}
