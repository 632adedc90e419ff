/*
 * baselines.c — the comparison policies of SPEC §6 (baselines.h).
 *
 * All three policies run every job on its requested configuration only and
 * never look at other GPU types or counts:
 *
 *   hard job                    (ref_type, ref_gpus)
 *   soft job with a gpu_type    (ref_type, ref_gpus clamped to [min_gpus, max_gpus])
 *   soft job without gpu_type   (T, ref_gpus) where T is the allowed type whose
 *                               speed is closest to 1.0 (the job's duration is
 *                               stated for speed-1.0 GPUs), ties broken by more
 *                               GPUs on the cluster, then by lower type index;
 *                               only types that could ever hold ref_gpus GPUs
 *                               and can run the model are considered.
 *
 * Jobs are taken in submit order (submitted, then job_id); priority is
 * ignored, as the SPEC defines the baselines by submit order.
 *
 *   k8s       first fit now: a job starts now when its GPUs are free now for
 *             its whole run time; otherwise it is skipped (MX_WAITING) and
 *             later jobs may still start.
 *   static    strict FIFO: every job gets the earliest start at which its GPUs
 *             are free, but never earlier than the planned start of the job
 *             submitted before it (planned starts are non-decreasing in
 *             submit order); all jobs are MX_PLANNED.
 *   backfill  EASY: jobs start now in submit order while they fit; the first
 *             job that does not fit gets a reservation at its earliest start
 *             (MX_PLANNED with that start); every later job starts now if it
 *             fits now next to the running jobs and the reservation (so it
 *             cannot delay it), else MX_WAITING.
 *
 * A job whose requested configuration no up node set could ever hold, or
 * that its profile marks infeasible (throughput 0), is MX_UNPLANNABLE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "utility.h"

/* Starts closer than this to now count as "now" (float noise of step times). */
#define BL_EPS 1e-6

static const mx_snapshot *sort_snapshot;

static int
cmp_submit(const void *a, const void *b)
{
	const mx_job *x = &sort_snapshot->jobs[*(const int *) a];
	const mx_job *y = &sort_snapshot->jobs[*(const int *) b];

	if (x->submitted < y->submitted)
		return -1;
	if (x->submitted > y->submitted)
		return 1;
	if (x->job_id < y->job_id)
		return -1;
	if (x->job_id > y->job_id)
		return 1;
	return (*(const int *) a) - (*(const int *) b);
}

int
mx_requested_config(const mx_snapshot *s, const mx_job *j, const int *total, double alpha,
					int *type, int *gpus, double *util, char *reason, size_t rlen)
{
	int			g = j->ref_gpus;
	int			t = -1;
	double		thr,
				ref;

	if (j->cls == MX_SOFT)
	{
		if (j->min_gpus > 0 && g < j->min_gpus)
			g = j->min_gpus;
		if (j->max_gpus > 0 && g > j->max_gpus)
			g = j->max_gpus;
	}
	if (g <= 0)
	{
		snprintf(reason, rlen, "requests %d GPUs", g);
		return -1;
	}

	if (j->ref_type >= 0 && j->ref_type < s->ntypes &&
		(j->cls == MX_HARD || j->allowed == 0 || (j->allowed >> j->ref_type) & 1))
		t = j->ref_type;
	else if (j->cls == MX_HARD)
	{
		snprintf(reason, rlen, "hard job without a registered GPU type");
		return -1;
	}
	else
	{
		/* untyped soft job: the allowed type with speed closest to 1.0 */
		int			k;
		double		best_d = INFINITY;

		for (k = 0; k < s->ntypes && k < MX_MAX_TYPES; k++)
		{
			double		d;

			if (j->allowed != 0 && !((j->allowed >> k) & 1))
				continue;
			if (total[k] < g || mx_throughput(s, j, k, g, alpha) <= 0)
				continue;
			d = fabs(s->types[k].speed - 1.0);
			if (d < best_d - 1e-12 ||
				(fabs(d - best_d) <= 1e-12 && t >= 0 && total[k] > total[t]))
			{
				best_d = d;
				t = k;
			}
		}
		if (t < 0)
		{
			snprintf(reason, rlen, "no allowed GPU type has %d GPUs on up nodes", g);
			return -1;
		}
	}

	if (total[t] < g)
	{
		snprintf(reason, rlen, "requests %d %s GPUs, the cluster has %d up",
				 g, s->types[t].name, total[t]);
		return -1;
	}
	thr = mx_throughput(s, j, t, g, alpha);
	if (!(thr > 0))
	{
		snprintf(reason, rlen, "its profile cannot run on %d %s GPUs", g, s->types[t].name);
		return -1;
	}
	ref = (j->ref_type == t && g == j->ref_gpus) ? thr : mx_ref_throughput(s, j, alpha);
	*type = t;
	*gpus = g;
	*util = (ref > 0 && isfinite(ref)) ? thr / ref : 1.0;
	if (!(*util > 0) || !isfinite(*util))
		*util = 1.0;
	return 0;
}

static void
set_reason(mx_assignment *a, const char *fmt, const char *arg1, int g, int freeg)
{
	snprintf(a->reason, MX_REASON_LEN, fmt, g, arg1, freeg);
}

void
mx_baseline_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, mx_plan *p)
{
	int			n = s->njobs;
	int		   *order;
	int			i;
	double		now = s->now;
	double		fifo_t = now;	/* static: planned start of the previous job */
	int			head_reserved = 0;	/* backfill: the reservation is taken */
	double		alpha = o->scaling_alpha;
	mx_policy	pol = o->policy;

	switch (pol)
	{
		case MX_POLICY_K8S:
			snprintf(p->solver, MX_SOLVER_LEN, "first-fit");
			break;
		case MX_POLICY_STATIC:
			snprintf(p->solver, MX_SOLVER_LEN, "fifo");
			break;
		case MX_POLICY_BACKFILL:
			snprintf(p->solver, MX_SOLVER_LEN, "easy-backfill");
			break;
		default:
			snprintf(p->solver, MX_SOLVER_LEN, "first-fit");
			pol = MX_POLICY_K8S;
			break;
	}
	snprintf(p->policy, sizeof(p->policy), "%s", mx_policy_name(pol));
	p->objective = 0;
	p->heuristic_objective = 0;
	p->bound = NAN;
	p->milp_jobs = 0;
	p->milp_vars = 0;

	if (n <= 0)
		return;
	order = malloc((size_t) n * sizeof(int));
	if (order == NULL)
	{
		/* out of memory: plan nothing, every job keeps waiting */
		for (i = 0; i < n && i < p->n; i++)
		{
			p->a[i].job = i;
			p->a[i].job_id = s->jobs[i].job_id;
			p->a[i].status = MX_WAITING;
			snprintf(p->a[i].reason, MX_REASON_LEN, "out of memory in the baseline planner");
		}
		return;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	sort_snapshot = s;
	qsort(order, n, sizeof(int), cmp_submit);
	sort_snapshot = NULL;

	for (i = 0; i < n; i++)
	{
		int			ji = order[i];
		const mx_job *j = &s->jobs[ji];
		mx_assignment *a = &p->a[ji];
		int			type = -1,
					gpus = 0;
		double		util = 1.0,
					len,
					t;
		const char *tname;

		a->job = ji;
		a->job_id = j->job_id;
		a->status = MX_WAITING;
		a->type = -1;
		a->gpus = 0;
		a->start = NAN;
		a->end = NAN;
		a->utility = 0;
		a->reason[0] = '\0';

		if (mx_requested_config(s, j, cap->total, alpha, &type, &gpus, &util, a->reason, MX_REASON_LEN) < 0)
		{
			a->status = MX_UNPLANNABLE;
			continue;
		}
		a->type = type;
		a->gpus = gpus;
		a->utility = util;
		len = j->duration / util;
		if (!(len > 0) || !isfinite(len))
			len = 0;
		tname = s->types[type].name;

		switch (pol)
		{
			case MX_POLICY_STATIC:
				t = mx_capacity_earliest(cap, type, gpus, len, fifo_t);
				if (!isfinite(t) || mx_capacity_reserve(cap, type, gpus, t, len) < 0)
				{
					a->status = MX_UNPLANNABLE;
					set_reason(a, "static: %d %s GPUs never free (%d up)", tname, gpus, cap->total[type]);
					continue;
				}
				fifo_t = t;
				a->status = MX_PLANNED;
				a->start = t <= now + BL_EPS ? now : t;
				a->end = a->start + len;
				if (t > now + BL_EPS)
					set_reason(a, "static FIFO: %d %s GPUs (or an earlier job) free later; %d free now",
							   tname, gpus, mx_capacity_free_at(cap, type, now));
				break;

			case MX_POLICY_BACKFILL:
				t = mx_capacity_earliest(cap, type, gpus, len, now);
				if (t <= now + BL_EPS)
				{
					/* fits now next to the running jobs and the reservation */
					if (mx_capacity_reserve(cap, type, gpus, now, len) == 0)
					{
						a->status = MX_PLANNED;
						a->start = now;
						a->end = now + len;
						break;
					}
				}
				if (!head_reserved && isfinite(t))
				{
					if (mx_capacity_reserve(cap, type, gpus, t, len) == 0)
					{
						head_reserved = 1;
						a->status = MX_PLANNED;
						a->start = t;
						a->end = t + len;
						set_reason(a, "backfill: reserved %d %s GPUs at the earliest start; %d free now",
								   tname, gpus, mx_capacity_free_at(cap, type, now));
						break;
					}
				}
				a->status = MX_WAITING;
				set_reason(a, "backfill: %d %s GPUs not free now without delaying the reservation (%d free)",
						   tname, gpus, mx_capacity_free_at(cap, type, now));
				break;

			case MX_POLICY_K8S:
			default:
				t = mx_capacity_earliest(cap, type, gpus, len, now);
				if (t <= now + BL_EPS && mx_capacity_reserve(cap, type, gpus, now, len) == 0)
				{
					a->status = MX_PLANNED;
					a->start = now;
					a->end = now + len;
					break;
				}
				a->status = MX_WAITING;
				set_reason(a, "k8s: needs %d %s GPUs, %d free now", tname, gpus,
						   mx_capacity_free_at(cap, type, now));
				break;
		}
		if (a->status == MX_PLANNED)
			p->objective += util;
	}
	free(order);
}
