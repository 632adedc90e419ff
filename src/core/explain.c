/*
 * explain.c — a round's plan for one job, configuration by configuration
 * (explain.h). See docs/reference.md, mixdnn.explain().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "tolerance.h"
#include "capacity.h"
#include "guards.h"
#include "fairshare.h"
#include "tenancy.h"
#include "value.h"
#include "utility.h"


static const char *const cause_names[] = {
	NULL, "capacity", "guards", "reservations", "objective", "cluster", "horizon", "quota",
	"fair_share"
};

const char *
mx_block_cause_name(mx_block_cause c)
{
	if ((int) c <= 0 || (size_t) c >= sizeof(cause_names) / sizeof(cause_names[0]))
		return NULL;
	return cause_names[c];
}

void
mx_explanation_free(mx_explanation *e)
{
	free(e->c);
	e->c = NULL;
	e->n = 0;
}

/*
 * The three capacities a faster configuration is tried against: running
 * jobs only; plus the plans of guarded jobs; plus every other job's plan.
 */
typedef struct explain_caps
{
	mx_capacity run;
	mx_capacity guarded;
	mx_capacity all;
	int			ok;				/* how many were initialised */
} explain_caps;

static void
caps_free(explain_caps *k)
{
	if (k->ok > 0)
		mx_capacity_free(&k->run);
	if (k->ok > 1)
		mx_capacity_free(&k->guarded);
	if (k->ok > 2)
		mx_capacity_free(&k->all);
	k->ok = 0;
}

static int
caps_init(explain_caps *k, const mx_snapshot *s, const mx_options *o, const mx_plan *p,
		  const unsigned char *guard, int ji)
{
	int			i;

	k->ok = 0;
	if (mx_capacity_init(&k->run, s, o->overrun_s, mx_overrun_factor(o)) < 0)
		return -1;
	k->ok = 1;
	if (mx_capacity_copy(&k->guarded, &k->run) < 0)
		return -1;
	k->ok = 2;
	if (mx_capacity_copy(&k->all, &k->run) < 0)
		return -1;
	k->ok = 3;
	for (i = 0; i < p->n && i < s->njobs; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (i == ji || a->status != MX_PLANNED || !(a->end > a->start))
			continue;
		/* A plan that made the round fits; these reservations cannot fail. */
		if (mx_guard_holds(guard[i], a->start, s->now))
			(void) mx_capacity_reserve(&k->guarded, a->type, a->gpus, a->start, a->end - a->start);
		(void) mx_capacity_reserve(&k->all, a->type, a->gpus, a->start, a->end - a->start);
	}
	return 0;
}

/* Why faster candidate c does not end by chosen_end (INFINITY: job not planned). */
static mx_block_cause
cause_of(const mx_snapshot *s, const explain_caps *k, const mx_config *c, double chosen_end)
{
	double		lim = chosen_end - MX_TIME_EPS;

	if (mx_capacity_earliest(&k->run, c->type, c->gpus, c->runtime, s->now) + c->runtime >= lim)
		return MX_BLOCK_CAPACITY;
	if (mx_capacity_earliest(&k->guarded, c->type, c->gpus, c->runtime, s->now) + c->runtime >= lim)
		return MX_BLOCK_GUARDS;
	if (mx_capacity_earliest(&k->all, c->type, c->gpus, c->runtime, s->now) + c->runtime >= lim)
		return MX_BLOCK_RESERVATIONS;
	return MX_BLOCK_OBJECTIVE;
}

static int
cmp_candidate(const void *a, const void *b)
{
	const mx_candidate *x = a;
	const mx_candidate *y = b;

	if (x->chosen != y->chosen)
		return y->chosen - x->chosen;
	if (x->runtime != y->runtime)
		return x->runtime < y->runtime ? -1 : 1;
	if (x->gpus != y->gpus)
		return x->gpus - y->gpus;
	return x->type - y->type;
}

/* The assignment of a job the plan does not cover: nothing planned. */
static const mx_assignment behind_horizon = {.status = MX_UNPLANNABLE};

static void
fill_candidate(const mx_snapshot *s, const mx_options *o, const explain_caps *k,
			   const mx_job *j, const mx_assignment *a, const mx_config *c, mx_candidate *out)
{
	int			planned = a->status == MX_PLANNED;
	double		chosen_end = planned ? a->end : INFINITY;

	/*
	 * k8s and the comparators plan no later start: a job they leave waiting
	 * waits for what keeps it from starting now (else every later fit read
	 * as "objective"). So does one backfill leaves waiting, the head
	 * reserved from now among them (GPUs of jobs past their estimate).
	 */
	double		cause_end = !planned && (o->policy == MX_POLICY_K8S || o->policy == MX_POLICY_BACKFILL ||
										 (o->policy >= MX_POLICY_SJF && o->policy <= MX_POLICY_K8S_ANY))
		? s->now + c->runtime + 2 * MX_TIME_EPS : chosen_end;

	out->type = c->type;
	out->gpus = c->gpus;
	out->utility = c->utility;
	out->runtime = c->runtime;
	out->chosen = planned && a->type == c->type && a->gpus == c->gpus;
	out->start = out->chosen ? a->start
		: mx_capacity_earliest(&k->all, c->type, c->gpus, c->runtime, s->now);
	out->value = isfinite(out->start) ? mx_value(s, j, o, out->start, out->start + c->runtime) : NAN;
	/* Faster: it would end before the chosen plan if it could start now. */
	if (a == &behind_horizon)
		out->blocked_by = MX_BLOCK_HORIZON;
	else if (!out->chosen && s->now + c->runtime < chosen_end - MX_TIME_EPS)
		out->blocked_by = cause_of(s, k, c, cause_end);
	else
		out->blocked_by = MX_BLOCK_NONE;

	/*
	 * Backfill has no objective: a job it leaves waiting whose GPUs are
	 * free now waits for the one reservation, and when the head holds that
	 * from now (GPUs of jobs past their estimate) it is in no planned row.
	 */
	if (o->policy == MX_POLICY_BACKFILL && a->status == MX_WAITING && out->blocked_by == MX_BLOCK_OBJECTIVE &&
		c->type == a->type && c->gpus == a->gpus)
		out->blocked_by = MX_BLOCK_RESERVATIONS;
}

/*
 * 1 when fair share delays job ji: its owner used more than its share
 * (factor below 1) and the same round without fair share would end the
 * job sooner. 0 when not, -1 when out of memory.
 */
static int
fair_share_delays(const mx_snapshot *s, const mx_options *o, const mx_plan *p, int ji)
{
	mx_options	plain = *o;
	mx_plan		q;
	double	   *factor;
	int			ow = s->jobs[ji].owner,
				r;

	if (!o->fair_share)
		return 0;
	factor = malloc((size_t) s->nowners * sizeof(double));
	if (factor == NULL || mx_tenancy_factors(s, o, factor, NULL, NULL) < 0)
	{
		free(factor);
		return -1;
	}
	r = factor[ow] < 1.0;
	free(factor);
	if (!r)
		return 0;
	plain.fair_share = 0;
	if (mx_tenancy_plan_round(s, &plain, &q) != 0)
		return -1;
	r = q.a[ji].status == MX_PLANNED &&
		(p->a[ji].status != MX_PLANNED || q.a[ji].end < p->a[ji].end - MX_TIME_EPS);
	mx_plan_free(&q);
	return r;
}

/*
 * Causes that come from the owner, not the GPUs: a quota that lends
 * nothing and would be exceeded by starting now (beside what the owner
 * holds and its other jobs p starts now); or GPUs planned for others that
 * the round without fair share would have given this job (then the chosen
 * row says so too: it is why the job ends later).
 */
static int
owner_causes(const mx_snapshot *s, const mx_options *o, const mx_plan *p, int ji, mx_explanation *out)
{
	int			ow = s->jobs[ji].owner,
				i,
				fs;

	if (s->nowners <= 0 || ow < 0 || ow >= s->nowners)
		return 0;
	fs = fair_share_delays(s, o, p, ji);
	if (fs < 0)
		return -1;
	for (i = 0; i < out->n; i++)
	{
		mx_candidate *c = &out->c[i];

		/* The chosen row too: fair share is why it starts later than it could. */
		if (c->chosen && fs)
			c->blocked_by = MX_BLOCK_FAIR_SHARE;
		if (c->chosen || c->blocked_by == MX_BLOCK_NONE || c->type < 0)
			continue;
		if (mx_tenancy_over_quota(s, p, ji, c->type, c->gpus, NULL, 0) == 2)
			c->blocked_by = MX_BLOCK_QUOTA;
		else if (fs && (c->blocked_by == MX_BLOCK_RESERVATIONS || c->blocked_by == MX_BLOCK_OBJECTIVE))
			c->blocked_by = MX_BLOCK_FAIR_SHARE;
	}
	return 0;
}

static int
explain_unplannable(mx_explanation *out)
{
	out->c = calloc(1, sizeof(mx_candidate));
	if (out->c == NULL)
		return -1;
	out->n = 1;
	out->c[0].type = -1;
	out->c[0].start = INFINITY;
	out->c[0].value = NAN;
	out->c[0].blocked_by = MX_BLOCK_CLUSTER;
	return 0;
}

/*
 * *from = when job ji's critical_wait ends if, without the wait, it would
 * be critical or draining now (else NAN). 0, or -1 when out of memory.
 */
static int
critical_after_wait(const mx_snapshot *s, const mx_options *o, int ji, double *from)
{
	mx_options	nowait = *o;
	unsigned char *g = malloc((size_t) s->njobs);
	double	   *best = malloc((size_t) s->njobs * sizeof(double));
	int			rc = -1;

	*from = NAN;
	nowait.critical_wait = 0;
	if (g && best && mx_job_guards(s, &nowait, g, best) == 0)
	{
		if (g[ji] == MX_GUARD_CRITICAL || g[ji] == MX_GUARD_DRAIN)
			*from = s->jobs[ji].submitted + o->critical_wait * best[ji];
		rc = 0;
	}
	free(g);
	free(best);
	return rc;
}

int
mx_explain_job(const mx_snapshot *s, const mx_options *o_in, const mx_plan *p, int ji,
			   mx_explanation *out)
{
	mx_options	o = *o_in;
	const mx_job *j = &s->jobs[ji];
	unsigned char *guard = NULL;
	mx_config  *cf = NULL;
	explain_caps k = {0};
	int			mx = mx_job_configs_max(s, j),
				n = 0,
				i,
				rc = -1;

	memset(out, 0, sizeof(*out));
	guard = malloc((size_t) (s->njobs > 0 ? s->njobs : 1));
	cf = malloc((size_t) (mx > 0 ? mx : 1) * sizeof(mx_config));
	out->critical_from = NAN;
	if (guard == NULL || cf == NULL || mx_job_guards(s, &o, guard, NULL) < 0)
		goto out;
	out->guard = guard[ji];
	if (out->guard == MX_GUARD_NONE && o.critical_wait > 0 && critical_after_wait(s, &o, ji, &out->critical_from) < 0)
		goto out;
	n = mx > 0 ? mx_job_configs(s, j, o.scaling_alpha, cf, mx) : 0;
	if (n <= 0)
	{
		rc = explain_unplannable(out);
		goto out;
	}
	if (caps_init(&k, s, &o, p, guard, ji) < 0)
		goto out;
	out->c = calloc((size_t) n, sizeof(mx_candidate));
	if (out->c == NULL)
		goto out;
	out->n = n;
	for (i = 0; i < n; i++)
		fill_candidate(s, &o, &k, j, ji < p->n ? &p->a[ji] : &behind_horizon, &cf[i], &out->c[i]);
	if (ji < p->n && owner_causes(s, &o, p, ji, out) < 0)
		goto out;
	qsort(out->c, (size_t) n, sizeof(mx_candidate), cmp_candidate);
	rc = 0;
out:
	caps_free(&k);
	free(guard);
	free(cf);
	if (rc < 0)
		mx_explanation_free(out);
	return rc;
}

int
mx_plan_position(const mx_plan *p, int ji)
{
	const mx_assignment *me = &p->a[ji];
	int			i,
				pos = 1;

	if (me->status != MX_PLANNED)
		return 0;
	for (i = 0; i < p->n; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (i == ji || a->status != MX_PLANNED)
			continue;
		if (a->start < me->start || (a->start == me->start && a->job_id < me->job_id))
			pos++;
	}
	return pos;
}
