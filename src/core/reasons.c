/*
 * reasons.c — a round's reasons for the jobs it plans to start later
 * (reasons.h). See docs/model.md, "Reasons".
 *
 * "Waiting for 2 a100 GPUs" is the whole story only when no configuration
 * of the job fits the GPUs idle now. When one does, the job is left off
 * them for one of four reasons, told apart on two capacities built once
 * per round, and only if some job has a configuration that fits the idle
 * GPUs (the running jobs plus the reserved jobs' plans, and plus every
 * plan), from which the job's own plan is taken out while it is examined.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reasons.h"
#include "capacity.h"
#include "guards.h"
#include "tolerance.h"
#include "utility.h"

/* Why a waiting job leaves alone idle GPUs that one configuration fits now (ranked by stronger()). */
typedef enum idle_cause
{
	IDLE_NONE = 0,				/* no configuration fits the GPUs idle now */
	IDLE_RESERVED,				/* a plan that holds its GPUs (mx_guard_holds) takes them before it would end */
	IDLE_AHEAD,					/* another waiting job's plan starts before it would end */
	IDLE_NO_SOONER,				/* free for its whole run, but the plan ends the job as soon or sooner */
	IDLE_CHOSEN					/* free for its whole run and ends sooner: the round chose otherwise */
} idle_cause;

typedef struct idle_option
{
	idle_cause	cause;
	int			type;
	int			gpus;
	double		end;			/* its end if started now */
} idle_option;

typedef struct reason_state
{
	const mx_snapshot *s;
	const mx_options *o;
	const mx_plan *p;
	const unsigned char *guard; /* MX_GUARD_* per job */
	int		   *idle;			/* per type: GPUs free now with every plan placed */
	mx_capacity reserved;		/* running jobs, plus the reserved jobs' plans */
	mx_capacity all;			/* running jobs, plus every plan */
	int			ncaps;			/* how many of the two are initialised */
	int			built;			/* both hold the plan (built on first need) */
	int			exact;			/* idle and the capacities are right: the second part may be said */
	mx_config  *cf;
	int			ccap;
} reason_state;

/* Whether job i's plan holds its GPUs, a reservation (mx_guard_holds). */
static int
is_reserved(const reason_state *rs, int i, const mx_assignment *a)
{
	return mx_guard_holds(rs->guard[i], a->start, rs->s->now);
}

static void
state_free(reason_state *rs)
{
	if (rs->ncaps > 0)
		mx_capacity_free(&rs->reserved);
	if (rs->ncaps > 1)
		mx_capacity_free(&rs->all);
	free(rs->idle);
	free(rs->cf);
}

/*
 * The GPUs idle now: the running jobs' capacity now, less the plans that
 * cover now (those that start now; the capacity counts a start at now).
 * Most rounds of a busy cluster stop here: no job can have an idle
 * configuration, and the capacities of every plan are never built.
 */
static int
state_init(reason_state *rs)
{
	const mx_snapshot *s = rs->s;

	if (mx_capacity_init(&rs->reserved, s, rs->o->overrun_s, mx_overrun_factor(rs->o)) < 0)
		return -1;
	rs->ncaps = 1;
	rs->idle = malloc((size_t) (s->ntypes > 0 ? s->ntypes : 1) * sizeof(int));
	if (rs->idle == NULL)
		return -1;
	for (int k = 0; k < s->ntypes; k++)
		rs->idle[k] = mx_capacity_free_at(&rs->reserved, k, s->now);
	for (int i = 0; i < rs->p->n && i < s->njobs; i++)
	{
		const mx_assignment *a = &rs->p->a[i];

		if (a->status == MX_PLANNED && a->type >= 0 && a->type < s->ntypes &&
			a->start <= s->now && a->end > s->now)
			rs->idle[a->type] -= a->gpus;
	}
	rs->exact = 1;
	return 0;
}

/* The two capacities of every plan; 0, or -1 (then not exact) when out of memory or the plan does not fit. */
static int
state_build(reason_state *rs)
{
	rs->exact = 0;				/* until the capacities are whole */
	if (mx_capacity_copy(&rs->all, &rs->reserved) < 0)
		return -1;
	rs->ncaps = 2;
	for (int i = 0; i < rs->p->n && i < rs->s->njobs; i++)
	{
		const mx_assignment *a = &rs->p->a[i];

		if (a->status != MX_PLANNED || !(a->end > a->start))
			continue;
		if ((is_reserved(rs, i, a) &&
			 mx_capacity_reserve(&rs->reserved, a->type, a->gpus, a->start, a->end - a->start) < 0) ||
			mx_capacity_reserve(&rs->all, a->type, a->gpus, a->start, a->end - a->start) < 0)
			return -1;
	}
	rs->built = 1;
	rs->exact = 1;
	return 0;
}

static idle_cause
classify(const reason_state *rs, const mx_assignment *a, const mx_config *c)
{
	double		now = rs->s->now;

	if (mx_capacity_free_at(&rs->all, c->type, now) < c->gpus)
		return IDLE_NONE;
	if (mx_capacity_earliest(&rs->reserved, c->type, c->gpus, c->runtime, now) > now + MX_TIME_EPS)
		return IDLE_RESERVED;
	if (mx_capacity_earliest(&rs->all, c->type, c->gpus, c->runtime, now) > now + MX_TIME_EPS)
		return IDLE_AHEAD;
	return now + c->runtime >= a->end - MX_TIME_EPS ? IDLE_NO_SOONER : IDLE_CHOSEN;
}

/*
 * The strongest option: one the round passed over beats one that would
 * not end the job sooner, which beats the blocked ones; within a rank the
 * earliest end, then the fewest GPUs, then the first type.
 */
static int
stronger(const idle_option *x, const idle_option *y)
{
	int			rx = x->cause >= IDLE_NO_SOONER ? (int) x->cause : (x->cause != IDLE_NONE),
				ry = y->cause >= IDLE_NO_SOONER ? (int) y->cause : (y->cause != IDLE_NONE);

	if (rx != ry)
		return rx > ry;
	if (fabs(x->end - y->end) > MX_TIME_EPS)
		return x->end < y->end;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus;
	return x->type < y->type;
}

/* Take out (sign -1) or put back (+1) job ji's own plan; 0 or -1. */
static int
own_plan(reason_state *rs, int ji, const mx_assignment *a, int sign)
{
	double		len = a->end - a->start;
	int			(*op) (mx_capacity *, int, int, double, double) =
		sign < 0 ? mx_capacity_release : mx_capacity_reserve;

	if (op(&rs->all, a->type, a->gpus, a->start, len) < 0)
		return -1;
	if (is_reserved(rs, ji, a) && op(&rs->reserved, a->type, a->gpus, a->start, len) < 0)
		return -1;
	return 0;
}

/*
 * Job ji's best use of the idle GPUs. -1 when out of memory; if its own
 * plan could not be put back, the capacities are no longer exact.
 */
static int
idle_option_of(reason_state *rs, int ji, const mx_assignment *a, idle_option *best)
{
	int			n = mx_job_configs_buf(rs->s, &rs->s->jobs[ji], rs->o->scaling_alpha, &rs->cf, &rs->ccap);
	int			fits = 0;

	best->cause = IDLE_NONE;
	if (n < 0)
		return -1;
	/* Its own plan starts later, so it holds none of the GPUs free now. */
	for (int c = 0; c < n && !fits; c++)
		fits = rs->idle[rs->cf[c].type] >= rs->cf[c].gpus;
	if (!fits)
		return 0;
	if (!rs->built && state_build(rs) < 0)
		return -1;
	if (own_plan(rs, ji, a, -1) < 0)
	{
		rs->exact = 0;			/* a release that fails changes nothing, but stop here */
		return -1;
	}
	for (int c = 0; c < n; c++)
	{
		idle_option x = {classify(rs, a, &rs->cf[c]), rs->cf[c].type, rs->cf[c].gpus,
		rs->s->now + rs->cf[c].runtime};

		if (x.cause != IDLE_NONE && (best->cause == IDLE_NONE || stronger(&x, best)))
			*best = x;
	}
	if (own_plan(rs, ji, a, +1) < 0)
	{
		rs->exact = 0;
		return -1;
	}
	return 0;
}

/*
 * The words that tell the cases apart come first, so a reason cut at
 * MX_REASON_LEN by long type names keeps them. No GPU count and no time:
 * the second part changes only when the cause or the type does.
 */
static void
append_idle(const reason_state *rs, const mx_assignment *a, const idle_option *x, char *buf, size_t size)
{
	const char *tn = rs->s->types[x->type].name;

	switch (x->cause)
	{
		case IDLE_CHOSEN:
			if (x->type == a->type)
				snprintf(buf, size, "; the round starts it later, though free %s GPUs fit it", tn);
			else
				snprintf(buf, size, "; the round chose %s over free %s GPUs", rs->s->types[a->type].name, tn);
			break;
		case IDLE_NO_SOONER:
			snprintf(buf, size, "; ends it no later than free %s GPUs would", tn);
			break;
		case IDLE_AHEAD:
			snprintf(buf, size, "; jobs ahead of it are planned on free %s GPUs", tn);
			break;
		case IDLE_RESERVED:
			snprintf(buf, size, "; starving or critical jobs hold a reservation on free %s GPUs", tn);
			break;
		case IDLE_NONE:
			buf[0] = '\0';
			break;
	}
}

/*
 * The time is absolute (UTC), not "+N s from now": a plan that does not
 * change then keeps its reason too, and the round need not rewrite its row.
 */
static int
waiting_reason(reason_state *rs, int ji, mx_assignment *a)
{
	const mx_snapshot *s = rs->s;
	char		when[32],
				why[MX_REASON_LEN],
				more[MX_REASON_LEN] = "";
	idle_option x = {IDLE_NONE, -1, 0, 0};
	int			rc = 0;

	if (mx_format_utc(a->start, when, sizeof(when)) < 0)
		snprintf(when, sizeof(when), "+%.0f s", a->start - s->now);
	if (rs->exact && a->type >= 0 && a->type < s->ntypes)
		rc = idle_option_of(rs, ji, a, &x);
	if (x.cause != IDLE_NONE)
		append_idle(rs, a, &x, more, sizeof(more));
	snprintf(why, sizeof(why), "waiting for %d %s GPU%s, expected free at %s%s",
			 a->gpus, (a->type >= 0 && a->type < s->ntypes) ? s->types[a->type].name : "?",
			 a->gpus == 1 ? "" : "s", when, more);
	mx_plan_set_reason(a, why);
	return rc;
}

int
mx_plan_reasons(const mx_snapshot *s, const mx_options *o_in, const unsigned char *guard, mx_plan *p)
{
	mx_options	o = *o_in;
	reason_state rs = {.s = s, .o = &o, .p = p, .guard = guard};
	unsigned char *own_guard = NULL;
	int			rc = 0,
				i;

	/* The configurations the round planned with (mx_plan_round's rule). */
	if (!(o.scaling_alpha >= 0) || !isfinite(o.scaling_alpha))
		o.scaling_alpha = MX_FITTED_ALPHA;
	if (guard == NULL)
	{
		own_guard = malloc((size_t) (s->njobs > 0 ? s->njobs : 1));
		if (own_guard == NULL || mx_job_guards(s, &o, own_guard, NULL) < 0)
			rc = -1;
		rs.guard = own_guard;
	}
	/* Without guards or capacities the waiting jobs get the first part only. */
	if (rc < 0 || state_init(&rs) < 0)
	{
		rc = -1;
		rs.exact = 0;
	}
	for (i = 0; i < p->n && i < s->njobs; i++)
	{
		mx_assignment *a = &p->a[i];

		if (a->status != MX_PLANNED)
			continue;
		if (!(a->start > s->now + 0.5))
			a->reason[0] = '\0';
		else if (waiting_reason(&rs, i, a) < 0)
			rc = -1;
	}
	state_free(&rs);
	free(own_guard);
	return rc;
}
