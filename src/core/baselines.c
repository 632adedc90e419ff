/*
 * baselines.c — the comparison policies of contract §6 (baselines.h).
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
 * ignored, as the contract (docs/contract.md §6) defines the baselines by submit order.
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
 *             cannot delay it), else MX_WAITING. As contract §6's shared rules
 *             of the comparators say, a running job past its expected end
 *             counts as ending now, its GPUs still held (the caller builds
 *             cap with no overrun grace; free_now holds what is really free):
 *             a reservation that waits only for such GPUs is held from now
 *             and its job is MX_WAITING, so no round comes due for it.
 *
 * A job whose requested configuration no up node set could ever hold, or
 * that its profile marks infeasible (throughput 0), is MX_UNPLANNABLE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "freepool.h"
#include "plan_limits.h"
#include "tolerance.h"
#include "utility.h"

/* Starts closer than this to now count as "now" (float noise of step times). */

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
	if (j->refuse != NULL)
	{
		snprintf(reason, rlen, "%s", j->refuse);
		return -1;
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
			if (d < best_d - MX_TINY ||
				(fabs(d - best_d) <= MX_TINY && t >= 0 && total[k] > total[t]))
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
	/* the run-time limit, as for mixdnn's candidates: planned and dropped later, it would hold GPUs in the round */
	if (!mx_runtime_ok(j->duration / *util))
	{
		snprintf(reason, rlen, "its run time (%.3g days on %d %s GPU%s) exceeds the limit of %.0f days",
				 j->duration / *util / 86400.0, g, s->types[t].name, g == 1 ? "" : "s",
				 MX_MAX_RUNTIME_S / 86400.0);
		return -1;
	}
	return 0;
}

static void
set_reason(mx_assignment *a, const char *fmt, const char *arg1, int g, int freeg)
{
	snprintf(a->reason, MX_REASON_LEN, fmt, g, arg1, freeg);
}

/* What the baselines carry from one job to the next. */
typedef struct bl_state
{
	mx_capacity *cap;
	double		now;
	double		fifo_t;			/* static: planned start of the previous job */
	int			head_reserved;	/* backfill: the reservation is taken */
	int		   *free_now;		/* backfill: GPUs of each type really free now (freepool.h) */
} bl_state;

/* static: strict FIFO, each job no earlier than the one before. */
static void
plan_static(bl_state *b, mx_assignment *a, const char *tname, double len)
{
	double		t = mx_capacity_earliest(b->cap, a->type, a->gpus, len, b->fifo_t);

	if (isfinite(t) && !mx_ends_in_calendar(t > b->now ? t : b->now, len))
	{
		mx_unplan_late(a);
		return;
	}
	if (!isfinite(t) || mx_capacity_reserve(b->cap, a->type, a->gpus, t, len) < 0)
	{
		a->status = MX_UNPLANNABLE;
		set_reason(a, "static: %d %s GPUs never free (%d up)", tname, a->gpus, b->cap->total[a->type]);
		return;
	}
	b->fifo_t = t;
	a->status = MX_PLANNED;
	a->start = t <= b->now + MX_TIME_EPS ? b->now : t;
	a->end = a->start + len;
	if (t > b->now + MX_TIME_EPS)
		set_reason(a, "static FIFO: %d %s GPUs (or an earlier job) free later; %d free now",
				   tname, a->gpus, mx_capacity_free_at(b->cap, a->type, b->now));
}

/* EASY backfill: what fits now beside the one reservation, which the first job that waits gets. */
static void
plan_backfill(bl_state *b, mx_assignment *a, const char *tname, double len)
{
	double		t = mx_capacity_earliest(b->cap, a->type, a->gpus, len, b->now);

	if (isfinite(t) && !mx_ends_in_calendar(t > b->now ? t : b->now, len))
	{
		mx_unplan_late(a);
		return;
	}
	/* fits now next to the running jobs and the reservation, on GPUs really free now */
	if (t <= b->now + MX_TIME_EPS && b->free_now[a->type] >= a->gpus &&
		mx_capacity_reserve(b->cap, a->type, a->gpus, b->now, len) == 0)
	{
		b->free_now[a->type] -= a->gpus;
		a->status = MX_PLANNED;
		a->start = b->now;
		a->end = b->now + len;
		return;
	}
	if (!b->head_reserved && isfinite(t) && mx_capacity_reserve(b->cap, a->type, a->gpus, t, len) == 0)
	{
		b->head_reserved = 1;
		if (t <= b->now + MX_TIME_EPS)
		{
			/* only GPUs of jobs past their expected end are missing: reserved from now, it waits */
			a->status = MX_WAITING;
			set_reason(a, "backfill: reserved %d %s GPUs from now, held past their expected end; %d free now",
					   tname, a->gpus, b->free_now[a->type]);
			return;
		}
		a->status = MX_PLANNED;
		a->start = t;
		a->end = t + len;
		set_reason(a, "backfill: reserved %d %s GPUs at the earliest start; %d free now",
				   tname, a->gpus, b->free_now[a->type]);
		return;
	}
	a->status = MX_WAITING;
	set_reason(a, "backfill: %d %s GPUs not free now without delaying the reservation (%d free)",
			   tname, a->gpus, b->free_now[a->type]);
}

/* k8s: first fit now, in submit order; what does not fit waits. */
static void
plan_k8s(bl_state *b, mx_assignment *a, const char *tname, double len)
{
	double		t = mx_capacity_earliest(b->cap, a->type, a->gpus, len, b->now);

	if (!mx_ends_in_calendar(b->now, len))
	{
		mx_unplan_late(a);
		return;
	}
	if (t <= b->now + MX_TIME_EPS && mx_capacity_reserve(b->cap, a->type, a->gpus, b->now, len) == 0)
	{
		a->status = MX_PLANNED;
		a->start = b->now;
		a->end = b->now + len;
		return;
	}
	a->status = MX_WAITING;
	set_reason(a, "k8s: needs %d %s GPUs, %d free now", tname, a->gpus,
			   mx_capacity_free_at(b->cap, a->type, b->now));
}

/* The policy actually run (an unknown one is k8s) and its solver name. */
static mx_policy
baseline_start(mx_policy pol, mx_plan *p)
{
	const char *solver = pol == MX_POLICY_STATIC ? "fifo" : pol == MX_POLICY_BACKFILL ? "easy-backfill" : "first-fit";

	if (pol != MX_POLICY_STATIC && pol != MX_POLICY_BACKFILL)
		pol = MX_POLICY_K8S;
	snprintf(p->solver, MX_SOLVER_LEN, "%s", solver);
	snprintf(p->policy, sizeof(p->policy), "%s", mx_policy_name(pol));
	p->objective = 0;
	p->heuristic_objective = 0;
	p->bound = NAN;
	p->milp_jobs = 0;
	p->milp_vars = 0;
	return pol;
}

/* Job ji on its requested configuration under pol. */
static void
baseline_job(const mx_snapshot *s, const mx_options *o, mx_policy pol, bl_state *b, int ji, mx_plan *p)
{
	const mx_job *j = &s->jobs[ji];
	mx_assignment *a = &p->a[ji];
	int			type = -1,
				gpus = 0;
	double		util = 1.0,
				len;

	a->job = ji;
	a->job_id = j->job_id;
	a->status = MX_WAITING;
	a->type = -1;
	a->gpus = 0;
	a->start = NAN;
	a->end = NAN;
	a->utility = 0;
	a->reason[0] = '\0';
	if (mx_requested_config(s, j, b->cap->total, o->scaling_alpha, &type, &gpus, &util, a->reason,
							MX_REASON_LEN) < 0)
	{
		a->status = MX_UNPLANNABLE;
		return;
	}
	a->type = type;
	a->gpus = gpus;
	a->utility = util;
	len = j->duration / util;
	if (!(len > 0) || !isfinite(len))
		len = 0;
	if (pol == MX_POLICY_STATIC)
		plan_static(b, a, s->types[type].name, len);
	else if (pol == MX_POLICY_BACKFILL)
		plan_backfill(b, a, s->types[type].name, len);
	else
		plan_k8s(b, a, s->types[type].name, len);
	if (a->status == MX_PLANNED)
		p->objective += util;
}

void
mx_baseline_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, mx_plan *p)
{
	int			n = s->njobs;
	int		   *order;
	int			i;
	mx_policy	pol = baseline_start(o->policy, p);
	bl_state	b = {cap, s->now, s->now, 0, NULL};
	int			free_now[MX_MAX_TYPES];

	if (n <= 0)
		return;
	if (pol == MX_POLICY_BACKFILL)
	{
		/*
		 * cap has no overrun grace; the comparators' pool keeps an overdue
		 * job's GPUs held. Without memory for it nothing may start: every
		 * job waits.
		 */
		mx_freepool pool;

		memset(free_now, 0, sizeof(free_now));
		if (mx_freepool_init(&pool, s) == 0)
		{
			memcpy(free_now, pool.free_now, sizeof(free_now));
			mx_freepool_free(&pool);
		}
		b.free_now = free_now;
	}
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
		baseline_job(s, o, pol, &b, order[i], p);
	free(order);
}
