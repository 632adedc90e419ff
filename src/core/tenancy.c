/*
 * tenancy.c — quotas and fair share around a round (tenancy.h).
 *
 * A round is planned, its planned jobs are taken by start (ties in the
 * planner's order), and each one that would take its owner beyond a quota
 * at its start loses that type, when it is a soft job refused by a
 * per-type quota that can run on another (narrow_job), or else is refused
 * for this round (a reason says which quota) or, when every quota it
 * exceeds lets it borrow, planned again as a borrower whose weight is
 * tiny, so it only gets GPUs no job within its quota can use now. Nothing
 * is preempted: lent GPUs come back when the borrower ends. The plan is
 * made again until no start changes (at most MX_TENANCY_MAX_PASSES plans);
 * after a pass, every job that could no longer start within its owner's
 * quotas is settled at once.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenancy.h"
#include "fairshare.h"
#include "overrun.h"
#include "heuristic.h"
#include "reasons.h"
#include "utility.h"

#define START_EPS 1e-6

enum
{
	T_NORMAL = 0,
	T_BORROW,					/* over a borrowable quota: planned with MX_BORROW_FACTOR */
	T_REFUSED,					/* over a quota that does not lend: waits this round (MX_WAITING) */
	T_NEVER						/* its quotas could never let it run (MX_UNPLANNABLE) */
};

#define FLAG_CHANGED 1			/* its start now was over quota: its state changed */
#define FLAG_STARTS 2			/* its planned start is within its owner's quotas */

typedef struct tenancy_round
{
	const mx_snapshot *s;
	const mx_options *o;
	mx_snapshot sub;			/* s without owners; jobs with caps, factors, refusals */
	unsigned char *state;		/* per job, T_* */
	unsigned char *flagged;		/* per job, last check: FLAG_CHANGED or FLAG_STARTS */
	char	   *why;			/* per job, MX_REASON_LEN bytes */
	int		   *held;			/* per owner, (ntypes + 1) counts: GPUs held now; [ntypes] = all */
	int		   *use;			/* the same, plus this plan's starts now */
	double	   *factor;			/* per owner: fair-share factor, 1 without fair share */
} tenancy_round;

static int
owner_of(const mx_snapshot *s, int owner)
{
	return (s->nowners > 0 && owner >= 0 && owner < s->nowners) ? owner : -1;
}

/* Whether owner w has a GPU quota of any kind (lending or not). */
static int
has_quota(const mx_owner *w)
{
	if (w->quota_all >= 0)
		return 1;
	for (int k = 0; k < MX_MAX_TYPES; k++)
		if (w->quota[k] >= 0)
			return 1;
	return 0;
}

/* GPUs each owner's launching and running parts hold now, per type and in all. */
static void
count_held(const mx_snapshot *s, int *held)
{
	int			i,
				w = s->ntypes + 1;

	memset(held, 0, (size_t) s->nowners * (size_t) w * sizeof(int));
	for (i = 0; i < s->nparts; i++)
	{
		const mx_running_part *rp = &s->parts[i];
		int			ow = owner_of(s, rp->owner);
		int			t;

		if (ow < 0 || rp->node < 0 || rp->node >= s->nnodes)
			continue;
		t = s->nodes[rp->node].type;
		if (t >= 0 && t < s->ntypes)
			held[ow * w + t] += rp->gpus;
		held[ow * w + s->ntypes] += rp->gpus;
	}
}

/*
 * The most GPUs owner w may hold on type t (-1: of all types together),
 * borrowing or not: its quota when that does not lend, else the strictest
 * row that does not lend above it (a group's row binds a member whose own
 * row lends); INT_MAX when nothing stops it.
 */
static int
refuse_cap(const mx_owner *w, int t)
{
	int			q = t < 0 ? w->quota_all : w->quota[t];
	int			lends = t < 0 ? w->borrow_all : (w->borrow & ((uint64_t) 1 << t)) != 0;
	int			limit = t < 0 ? w->borrow_limit_all : w->borrow_limit[t];

	if (q < 0)
		return INT_MAX;
	if (!lends)
		return q;
	return limit > 0 ? limit : INT_MAX;
}

/*
 * The most GPUs the owner may ever hold on type t, borrowing included
 * (refuse_cap of the type and of all types); INT_MAX when nothing stops it.
 */
static int
hard_cap(const mx_owner *w, int t)
{
	int			cap = refuse_cap(w, -1);

	if (t >= 0 && t < MX_MAX_TYPES && refuse_cap(w, t) < cap)
		cap = refuse_cap(w, t);
	return cap;
}

/* The most GPUs owner w may ever hold on one of the types in mask, without borrowing. */
static int
widest_cap(const mx_snapshot *s, const mx_owner *w, uint64_t mask)
{
	int			most = 0;

	for (int k = 0; k < s->ntypes && k < MX_MAX_TYPES; k++)
		if ((mask & ((uint64_t) 1 << k)) && hard_cap(w, k) > most)
			most = hard_cap(w, k);
	return most;
}

/*
 * Whether owner ow, holding u (per type and in all) at instant at, goes
 * beyond a quota with gpus more GPUs of type: 0 no, 1 only quotas that
 * lend, 2 one that does not. buf: the reason. u is what the owner would
 * hold then: at a later start than now, the reason says so and when
 * ("would hold ... at ..."), as what it holds now may be more or less.
 */
static int
over_quota_with(const mx_snapshot *s, const int *u, int ow, int type, int gpus, double at,
				char *buf, size_t len)
{
	const mx_owner *w = &s->owners[ow];
	int			typed = type >= 0 && type < s->ntypes && type < MX_MAX_TYPES;
	int			over_t = typed && w->quota[type] >= 0 && u[type] + gpus > w->quota[type];
	int			over_a = w->quota_all >= 0 && u[s->ntypes] + gpus > w->quota_all;
	int			cap_t = typed ? refuse_cap(w, type) : INT_MAX;
	int			cap_a = refuse_cap(w, -1);
	int			lend_t = !over_t || u[type] + gpus <= cap_t;
	int			lend_a = !over_a || u[s->ntypes] + gpus <= cap_a;

	if (!over_t && !over_a)
		return 0;
	if (buf != NULL)
	{
		char		when[48] = "";

		if (at > s->now + START_EPS)
		{
			char		ts[32];

			if (mx_format_utc(at, ts, sizeof(ts)) < 0)
				snprintf(ts, sizeof(ts), "+%.0f s", at - s->now);
			snprintf(when, sizeof(when), " at %s", ts);
		}
		if (over_t)
			snprintf(buf, len, "over quota: role %s %s %d of the %d %s GPUs its quota allows%s and needs %d",
					 w->name, when[0] ? "would hold" : "holds", u[type], lend_t ? w->quota[type] : cap_t,
					 s->types[type].name, when, gpus);
		else
			snprintf(buf, len, "over quota: role %s %s %d of the %d GPUs (all types) its quota allows%s and needs %d",
					 w->name, when[0] ? "would hold" : "holds", u[s->ntypes], lend_a ? w->quota_all : cap_a,
					 when, gpus);
		if (lend_t && lend_a && strlen(buf) + 40 < len)
			strcat(buf, "; it may borrow idle GPUs");
	}
	return (lend_t && lend_a) ? 1 : 2;
}

int
mx_tenancy_over_quota(const mx_snapshot *s, const mx_plan *p, int ji, int type, int gpus,
					  char *buf, size_t len)
{
	int			ow = (ji >= 0 && ji < s->njobs) ? owner_of(s, s->jobs[ji].owner) : -1;
	int		   *held;
	int			r,
				i,
				w = s->ntypes + 1;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	/* without a quota nothing to count (launch_due asks for every due job) */
	if (ow < 0 || !has_quota(&s->owners[ow]))
		return 0;
	held = malloc((size_t) s->nowners * (size_t) (s->ntypes + 1) * sizeof(int));
	if (held == NULL)
		return 0;
	count_held(s, held);
	for (i = 0; p != NULL && i < p->n && i < s->njobs; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (i == ji || owner_of(s, s->jobs[i].owner) != ow || a->status != MX_PLANNED ||
			a->start > s->now + START_EPS)
			continue;
		if (a->type >= 0 && a->type < s->ntypes)
			held[ow * w + a->type] += a->gpus;
		held[ow * w + s->ntypes] += a->gpus;
	}
	r = over_quota_with(s, held + (size_t) ow * w, ow, type, gpus, s->now, buf, len);
	free(held);
	return r;
}

/*
 * The most GPUs soft job j may ever hold, over the types of mask it can run
 * on with the cluster as it is (a type whose nodes are all down does not
 * count); -1 when it can run on none of them.
 */
static int
widest_runnable_cap(const tenancy_round *t, const mx_job *j, const mx_owner *w, uint64_t mask)
{
	const mx_snapshot *s = t->s;
	double		alpha = t->o->scaling_alpha >= 0 && isfinite(t->o->scaling_alpha) ? t->o->scaling_alpha : MX_FITTED_ALPHA;
	char		why[MX_REASON_LEN];
	int			most = -1;

	for (int k = 0; k < s->ntypes && k < MX_MAX_TYPES; k++)
	{
		mx_job		one = *j;
		int			cap = hard_cap(w, k);

		if (!(mask & ((uint64_t) 1 << k)) || cap <= most)
			continue;
		one.allowed = (uint64_t) 1 << k;
		if (cap < one.max_gpus)
			one.max_gpus = cap;
		if (!mx_job_explain(&t->sub, &one, alpha, why, sizeof(why)))
			most = cap;
	}
	return most;
}

/*
 * A job the quotas could never let run on some type loses that type (and
 * soft jobs more GPUs than the quota allows on the types they can run on
 * now); one with nothing left is refused with a reason. Borrowable quotas
 * do not cap: idle GPUs may come, up to a row that does not lend
 * (refuse_cap).
 */
static void
cap_job(tenancy_round *t, int i)
{
	const mx_snapshot *s = t->s;
	mx_job	   *j = &t->sub.jobs[i];
	const mx_owner *w;
	int			k,
				most,
				need = j->cls == MX_HARD ? j->ref_gpus : j->min_gpus;
	uint64_t	keep = 0,
				types = mx_job_types(s, j);

	if (owner_of(s, j->owner) < 0 || j->refuse != NULL)
		return;
	w = &s->owners[j->owner];
	for (k = 0; k < s->ntypes && k < MX_MAX_TYPES; k++)
		if ((types & ((uint64_t) 1 << k)) && hard_cap(w, k) >= need)
			keep |= (uint64_t) 1 << k;
	if (keep == 0 && types != 0)
	{
		snprintf(t->why + (size_t) i * MX_REASON_LEN, MX_REASON_LEN,
				 "over quota: role %s may never hold the %d GPU%s it needs on any of its GPU types",
				 w->name, need, need == 1 ? "" : "s");
		t->state[i] = T_NEVER;
		return;
	}
	j->allowed = keep;
	most = widest_cap(s, w, keep);
	/*
	 * A type with a wider quota that cannot run the job now (its nodes are
	 * down) must not keep its count above what the other types' quotas
	 * allow: it would be refused there at every start, waiting for a quota
	 * it may never hold, beside idle GPUs it may use.
	 */
	if (j->cls == MX_SOFT)
		for (k = 0; k < s->ntypes && k < MX_MAX_TYPES; k++)
			if ((keep & ((uint64_t) 1 << k)) && hard_cap(w, k) < (most < j->max_gpus ? most : j->max_gpus))
			{
				int			run = widest_runnable_cap(t, j, w, keep);

				if (run >= j->min_gpus && run < most)
					most = run;
				break;
			}
	if (j->cls == MX_SOFT && most < j->max_gpus)
		j->max_gpus = most;
}

/* The sub-snapshot's jobs for the next plan, from each job's state. */
static void
prepare_jobs(tenancy_round *t)
{
	int			i;

	for (i = 0; i < t->s->njobs; i++)
	{
		mx_job	   *j = &t->sub.jobs[i];
		int			ow = owner_of(t->s, t->s->jobs[i].owner);

		if (t->state[i] == T_REFUSED || t->state[i] == T_NEVER)
			j->refuse = t->why + (size_t) i * MX_REASON_LEN;
		j->weight_factor = (ow >= 0 ? t->factor[ow] : 1.0) *
			(t->state[i] == T_BORROW ? MX_BORROW_FACTOR : 1.0);
	}
}

typedef struct start_key
{
	double		start;
	int			rank;			/* in the heuristic's order: ties at one instant */
	int			job;
} start_key;

static int
cmp_start_key(const void *x, const void *y)
{
	const start_key *a = x,
			   *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->rank - b->rank;
}

/*
 * GPUs owner ow holds at instant at, per type and in all ([ntypes]): its
 * running parts until their expected end (past it, the planner's overrun
 * rule, overrun.h) and the planned jobs accepted so far.
 */
static void
usage_at(const tenancy_round *t, const mx_plan *p, const int *acc, int nacc, int ow, double at, int *u)
{
	const mx_snapshot *s = t->s;
	int			i;

	memset(u, 0, (size_t) (s->ntypes + 1) * sizeof(int));
	for (i = 0; i < s->nparts; i++)
	{
		const mx_running_part *rp = &s->parts[i];
		double		end = mx_overrun_end(rp->expected_end, s->now, t->o->overrun_s, mx_overrun_factor(t->o));
		int			k;

		if (owner_of(s, rp->owner) != ow || rp->node < 0 || rp->node >= s->nnodes || !(end > at + START_EPS))
			continue;
		k = s->nodes[rp->node].type;
		if (k >= 0 && k < s->ntypes)
			u[k] += rp->gpus;
		u[s->ntypes] += rp->gpus;
	}
	for (i = 0; i < nacc; i++)
	{
		const mx_assignment *a = &p->a[acc[i]];

		if (owner_of(s, s->jobs[acc[i]].owner) != ow || a->start > at + START_EPS || !(a->end > at + START_EPS))
			continue;
		if (a->type >= 0 && a->type < s->ntypes)
			u[a->type] += a->gpus;
		u[s->ntypes] += a->gpus;
	}
}

/*
 * A soft job refused at its planned start (a, beside usage u then) by a
 * per-type quota that does not lend loses that type for the rest of the
 * round, when it has another type it can run on, and is planned again
 * rather than refused: the planner does not know the quotas, and chose
 * the type that ends the job first. It is not shrunk to the quota's room
 * (docs/model.md, "Quotas and fair share": that cost the tenancy
 * evaluation's flood a third more average JCT). 1 when narrowed.
 */
static int
narrow_job(tenancy_round *t, int ji, const mx_assignment *a, const int *u)
{
	const mx_snapshot *s = t->s;
	mx_job	   *j = &t->sub.jobs[ji];
	const mx_owner *w = &s->owners[s->jobs[ji].owner];
	int			k = a->type;
	double		alpha = t->o->scaling_alpha >= 0 && isfinite(t->o->scaling_alpha) ? t->o->scaling_alpha : MX_FITTED_ALPHA;
	mx_job		before = *j;
	uint64_t	left;
	int			most;
	char		why[MX_REASON_LEN];

	if (j->cls != MX_SOFT || k < 0 || k >= s->ntypes || k >= MX_MAX_TYPES || u[k] + a->gpus <= refuse_cap(w, k))
		return 0;
	left = mx_job_types(s, j) & ~((uint64_t) 1 << k);
	if (left == 0)
		return 0;
	j->allowed = left;
	most = widest_cap(s, w, left);	/* cap_job's cap, over the types left */
	if (most < j->max_gpus)
		j->max_gpus = most;
	/* What is left must still run on the cluster as it is (a type may be down). */
	if (j->max_gpus < j->min_gpus || mx_job_explain(&t->sub, j, alpha, why, sizeof(why)))
	{
		*j = before;
		return 0;
	}
	return 1;
}

/*
 * Walk the plan's planned jobs by start (ties in the planner's order) and
 * settle each one against its owner's quotas at its start, beside what the
 * owner holds then and the jobs accepted before it: a forecast must not
 * launch a job beyond a quota either (mixdnn.launch_due() starts planned
 * jobs when their time comes, without a round). Returns how many jobs
 * changed state (flagged), or -1 when out of memory.
 */
static int
check_starts(tenancy_round *t, const mx_plan *p)
{
	const mx_snapshot *s = t->s;
	size_t		nj = (size_t) (s->njobs > 0 ? s->njobs : 1);
	int		   *order = malloc(nj * sizeof(int));
	int		   *acc = malloc(nj * sizeof(int));
	int		   *cur = malloc((size_t) (s->ntypes + 1) * sizeof(int));
	start_key  *keys = malloc(nj * sizeof(start_key));
	int			i,
				nk = 0,
				nacc = 0,
				changed = 0,
				w = s->ntypes + 1;

	if (order == NULL || acc == NULL || cur == NULL || keys == NULL)
		changed = -1;
	else
	{
		memcpy(t->use, t->held, (size_t) s->nowners * (size_t) w * sizeof(int));
		memset(t->flagged, 0, (size_t) s->njobs);
		mx_heuristic_order(&t->sub, t->o, order);
		for (i = 0; i < s->njobs; i++)
			if (owner_of(s, s->jobs[order[i]].owner) >= 0 && p->a[order[i]].status == MX_PLANNED)
				keys[nk++] = (start_key) {p->a[order[i]].start, i, order[i]};
		qsort(keys, (size_t) nk, sizeof(start_key), cmp_start_key);
	}
	for (i = 0; i < nk && changed >= 0; i++)
	{
		int			ji = keys[i].job;
		const mx_assignment *a = &p->a[ji];
		int			ow = s->jobs[ji].owner;
		int			r;

		usage_at(t, p, acc, nacc, ow, a->start, cur);
		r = over_quota_with(s, cur, ow, a->type, a->gpus, a->start,
							t->why + (size_t) ji * MX_REASON_LEN, MX_REASON_LEN);
		if (r == 0 || (r == 1 && t->state[ji] == T_BORROW))
		{
			acc[nacc++] = ji;
			t->flagged[ji] = FLAG_STARTS;
			if (a->start > s->now + START_EPS)
				continue;
			if (a->type >= 0 && a->type < s->ntypes)
				t->use[ow * w + a->type] += a->gpus;
			t->use[ow * w + s->ntypes] += a->gpus;
			continue;
		}
		if (!(r == 2 && t->state[ji] == T_NORMAL && narrow_job(t, ji, a, cur)))
			t->state[ji] = r == 1 ? T_BORROW : T_REFUSED;
		t->flagged[ji] = FLAG_CHANGED;
		changed++;
	}
	free(order);
	free(acc);
	free(cur);
	free(keys);
	return changed;
}

/*
 * After a pass that changed something: every job still normal that could
 * not start now within its owner's quotas on any of its types, beside the
 * GPUs held and the starts just accepted, is settled at once (borrower, or
 * waiting with the reason) rather than one pass at a time.
 */
static void
settle_over_quota(tenancy_round *t)
{
	const mx_snapshot *s = t->s;
	int			i,
				k;

	for (i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &t->sub.jobs[i];
		int			ow = owner_of(s, s->jobs[i].owner);
		int			need = j->cls == MX_HARD ? j->ref_gpus : j->min_gpus;
		int			best = 3,
					at = -1;

		if (ow < 0 || t->state[i] != T_NORMAL || t->flagged[i] == FLAG_STARTS || s->jobs[i].refuse != NULL)
			continue;
		for (k = 0; k < s->ntypes && k < MX_MAX_TYPES && best > 0; k++)
		{
			int			r;

			if (!(mx_job_types(s, j) & ((uint64_t) 1 << k)))
				continue;
			r = over_quota_with(s, t->use + (size_t) ow * (s->ntypes + 1), ow, k, need, s->now, NULL, 0);
			if (r < best)
			{
				best = r;
				at = k;
			}
		}
		if (best == 1)
			t->state[i] = T_BORROW;
		else if (best == 2)
		{
			t->state[i] = T_REFUSED;
			(void) over_quota_with(s, t->use + (size_t) ow * (s->ntypes + 1), ow, at, need, s->now,
								   t->why + (size_t) i * MX_REASON_LEN, MX_REASON_LEN);
		}
	}
}

static void
tenancy_free(tenancy_round *t)
{
	free(t->sub.jobs);
	free(t->state);
	free(t->flagged);
	free(t->why);
	free(t->held);
	free(t->use);
	free(t->factor);
}

static int
tenancy_init(tenancy_round *t, const mx_snapshot *s, const mx_options *o)
{
	size_t		nj = (size_t) (s->njobs > 0 ? s->njobs : 1);
	size_t		nh = (size_t) s->nowners * (size_t) (s->ntypes + 1);
	int			i;

	memset(t, 0, sizeof(*t));
	t->s = s;
	t->o = o;
	t->sub = *s;
	t->sub.nowners = 0;
	t->sub.owners = NULL;
	t->sub.jobs = malloc(nj * sizeof(mx_job));
	t->state = calloc(nj, 1);
	t->flagged = calloc(nj, 1);
	t->why = calloc(nj, MX_REASON_LEN);
	t->held = malloc(nh * sizeof(int));
	t->use = malloc(nh * sizeof(int));
	t->factor = malloc((size_t) s->nowners * sizeof(double));
	if (t->sub.jobs == NULL || t->state == NULL || t->flagged == NULL || t->why == NULL ||
		t->held == NULL || t->use == NULL || t->factor == NULL)
		return -1;
	if (s->njobs > 0)
		memcpy(t->sub.jobs, s->jobs, (size_t) s->njobs * sizeof(mx_job));
	count_held(s, t->held);
	for (i = 0; i < s->nowners; i++)
		t->factor[i] = 1.0;
	if (o->fair_share && mx_tenancy_factors(s, o, t->factor, NULL, NULL) < 0)
		return -1;
	for (i = 0; i < s->njobs; i++)
		cap_job(t, i);
	return 0;
}

/*
 * The planner's start check (options.h): job ji starting now on (type,
 * gpus), beside the GPUs its owner holds and the owner's other jobs p
 * starts now, against the owner's quotas: what check_starts will make of
 * it. A borrower may go over a quota that lends.
 */
static mx_start_verdict
quota_start_check(const void *ctx, const mx_plan *p, int ji, int type, int gpus)
{
	const tenancy_round *t = ctx;
	int			ow = owner_of(t->s, t->s->jobs[ji].owner),
				r;

	/* Most owners have no quota: no need to count what they hold. */
	if (ow < 0 || !has_quota(&t->s->owners[ow]))
		return MX_START_OK;
	r = mx_tenancy_over_quota(t->s, p, ji, type, gpus, NULL, 0);
	if (r == 0 || (r == 1 && t->state[ji] == T_BORROW))
		return MX_START_OK;
	return r == 1 ? MX_START_BORROWS : MX_START_REFUSED;
}

int
mx_tenancy_plan_round(const mx_snapshot *s, const mx_options *o_in, mx_plan *out)
{
	mx_options	ob = *o_in;
	const mx_options *o = &ob;
	tenancy_round t;
	int			pass,
				i,
				changed = 0,
				unplanned = 0;

	if (s->nowners <= 0 || s->owners == NULL)
		return mx_plan_round(s, o, out);
	if (tenancy_init(&t, s, o) < 0)
	{
		tenancy_free(&t);
		return -1;
	}
	ob.start_check = quota_start_check;
	ob.start_check_ctx = &t;
	for (pass = 0; pass < MX_TENANCY_MAX_PASSES; pass++)
	{
		prepare_jobs(&t);
		if (mx_plan_round(&t.sub, o, out) != 0)
		{
			tenancy_free(&t);
			return -1;
		}
		changed = check_starts(&t, out);
		if (changed <= 0 || pass == MX_TENANCY_MAX_PASSES - 1)
			break;
		settle_over_quota(&t);
		mx_plan_free(out);
	}
	if (changed < 0)
	{
		mx_plan_free(out);
		tenancy_free(&t);
		return -1;
	}
	/*
	 * Jobs over quota now wait for a later round (no forecast: when the
	 * owner's GPUs come back is not planned); out of passes, so do the
	 * starts still over quota.
	 */
	for (i = 0; i < s->njobs; i++)
		if (t.state[i] == T_REFUSED || (changed > 0 && t.flagged[i] == FLAG_CHANGED))
		{
			mx_assignment *a = &out->a[i];

			unplanned += a->status == MX_PLANNED;
			a->status = MX_WAITING;
			a->type = -1;
			a->gpus = 0;
			a->start = a->end = NAN;
			mx_plan_set_reason(a, t.why + (size_t) i * MX_REASON_LEN);
		}
	/*
	 * what_if tells a quota that never lets a job run, or refuses its start
	 * (now or later: its owner's own jobs planned before it), from a
	 * cluster that cannot
	 */
	for (i = 0; i < s->njobs; i++)
		out->a[i].by_quota = (t.state[i] == T_NEVER && out->a[i].status == MX_UNPLANNABLE) ||
			(out->a[i].status == MX_WAITING &&
			 (t.state[i] == T_REFUSED || (changed > 0 && t.flagged[i] == FLAG_CHANGED)));
	/* mixdnn's waiting jobs must not be told of GPUs planned for plans just dropped. */
	if (unplanned > 0 && o->policy == MX_POLICY_MIXDNN)
		(void) mx_plan_reasons(&t.sub, o, NULL, out);
	tenancy_free(&t);
	return 0;
}
