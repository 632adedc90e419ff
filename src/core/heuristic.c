/*
 * heuristic.c — the guards (starving and makespan-critical jobs) and greedy
 * list scheduling (heuristic.h). See docs/model.md, "Who holds GPUs" and
 * "Heuristic".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heuristic.h"
#include "utility.h"
#include "value.h"

#define TIE_EPS 1e-6			/* seconds: completions closer than this tie */

typedef struct order_key
{
	int			job;
	double		key;			/* weight / best run time; -1 without configs */
	double		submitted;
	int64_t		job_id;
} order_key;

static int
cmp_key(const void *a, const void *b)
{
	const order_key *x = a;
	const order_key *y = b;

	if (x->key > y->key)
		return -1;
	if (x->key < y->key)
		return 1;
	if (x->submitted < y->submitted)
		return -1;
	if (x->submitted > y->submitted)
		return 1;
	if (x->job_id < y->job_id)
		return -1;
	if (x->job_id > y->job_id)
		return 1;
	return x->job - y->job;
}

/* configs of job j into a growing buffer; returns count, -1 out of memory */
static int
configs_of(const mx_snapshot *s, const mx_job *j, double alpha, mx_config **buf, int *cap)
{
	int			mx = mx_job_configs_max(s, j);

	if (mx <= 0)
		return 0;
	if (mx > *cap)
	{
		mx_config  *nb = realloc(*buf, (size_t) mx * sizeof(mx_config));

		if (nb == NULL)
			return -1;
		*buf = nb;
		*cap = mx;
	}
	return mx_job_configs(s, j, alpha, *buf, mx);
}

void
mx_heuristic_order(const mx_snapshot *s, const mx_options *o, int *order)
{
	order_key  *k = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(order_key));
	mx_config  *cf = NULL;
	int			cap = 0,
				i,
				c;

	if (k == NULL)
	{
		for (i = 0; i < s->njobs; i++)
			order[i] = i;
		return;
	}
	for (i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &s->jobs[i];
		int			n = configs_of(s, j, o->scaling_alpha, &cf, &cap);
		double		best = INFINITY;

		for (c = 0; c < n; c++)
			if (cf[c].runtime < best)
				best = cf[c].runtime;
		k[i].job = i;
		k[i].key = (n > 0 && best > 0 && isfinite(best)) ? mx_job_weight(s, j, o) / best : -1.0;
		k[i].submitted = j->submitted;
		k[i].job_id = j->job_id;
	}
	qsort(k, s->njobs, sizeof(order_key), cmp_key);
	for (i = 0; i < s->njobs; i++)
		order[i] = k[i].job;
	free(k);
	free(cf);
}

int
mx_heuristic_choose(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
					const mx_job *j, const mx_config *cf, int n, double *start)
{
	int			c,
				best = -1;
	double		bstart = INFINITY,
				bend = INFINITY;

	for (c = 0; c < n; c++)
	{
		double		t = mx_capacity_earliest(cap, cf[c].type, cf[c].gpus, cf[c].runtime, s->now);
		double		e;
		int			better;

		if (!isfinite(t))
			continue;
		e = t + cf[c].runtime;
		if (best < 0 || e < bend - TIE_EPS)
			better = 1;
		else if (e > bend + TIE_EPS)
			better = 0;
		else if (cf[c].gpus != cf[best].gpus)
			better = cf[c].gpus < cf[best].gpus;
		else if ((cf[c].type == j->prev_type) != (cf[best].type == j->prev_type))
			better = cf[c].type == j->prev_type;
		else
			better = cf[c].type < cf[best].type;
		if (better)
		{
			best = c;
			bstart = t;
			bend = e;
		}
	}
	*start = bstart;
	return best;
}

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
		double		e = r->expected_end > s->now ? r->expected_end : s->now + o->overrun_s;

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
		int			nc = configs_of(s, j, o->scaling_alpha, &cf, &ccap);
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
 *     part: now + overrun_s);
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

static void
set_unplannable(mx_assignment *a, const char *why)
{
	a->status = MX_UNPLANNABLE;
	a->type = -1;
	a->gpus = 0;
	a->start = a->end = NAN;
	a->utility = 0;
	mx_plan_set_reason(a, why);
}

#define PO_PLANNED 0
#define PO_DEFERRED 1			/* now_only and its choice does not start now: nothing changed */
#define PO_UNPLANNABLE 2

/*
 * Plan job ji into cap at the configuration that finishes earliest
 * (mx_heuristic_choose) and reserve it. With now_only, a job whose choice
 * does not start now is left alone (PO_DEFERRED).
 */
static int
plan_one(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, int ji, mx_plan *p,
		 mx_config **cf, int *ccap, int now_only)
{
	const mx_job *j = &s->jobs[ji];
	mx_assignment *a = &p->a[ji];
	int			nc = configs_of(s, j, o->scaling_alpha, cf, ccap);
	int			c;
	double		t;

	a->job = ji;
	a->job_id = j->job_id;
	if (nc <= 0)
	{
		char		why[MX_REASON_LEN];

		if (nc < 0)
			set_unplannable(a, "out of memory while planning");
		else
		{
			if (!mx_job_explain(s, j, o->scaling_alpha, why, sizeof(why)))
				strcpy(why, "no configuration fits the cluster");
			set_unplannable(a, why);
		}
		return PO_UNPLANNABLE;
	}
	c = mx_heuristic_choose(s, o, cap, j, *cf, nc, &t);
	if (c >= 0 && now_only && t > s->now + TIE_EPS)
		return PO_DEFERRED;
	if (c < 0 || mx_capacity_reserve(cap, (*cf)[c].type, (*cf)[c].gpus, t, (*cf)[c].runtime) < 0)
	{
		set_unplannable(a, "no configuration ever fits the cluster's capacity");
		return PO_UNPLANNABLE;
	}
	a->status = MX_PLANNED;
	a->type = (*cf)[c].type;
	a->gpus = (*cf)[c].gpus;
	a->start = t;
	a->end = t + (*cf)[c].runtime;
	a->utility = (*cf)[c].utility;
	a->reason[0] = '\0';
	return PO_PLANNED;
}

typedef struct pass_key
{
	int			pos;			/* position in order[] */
	double		key;			/* ascending */
} pass_key;

static int
cmp_pass(const void *a, const void *b)
{
	const pass_key *x = a;
	const pass_key *y = b;

	if (x->key < y->key)
		return -1;
	if (x->key > y->key)
		return 1;
	return x->pos - y->pos;
}

/*
 * Four passes over order[0..n) (docs/model.md, "Heuristic"):
 *
 *  A. critical jobs, longest best run time first: start now if their
 *     earliest-completion configuration starts now;
 *  B. starving jobs, earliest deadline (submitted + X r) first: reserve
 *     their earliest-completion configuration, now or later;
 *  C. every other job (and critical jobs A could not start) in order: start
 *     now if its choice starts now, else deferred;
 *  D. deferred jobs in order: planned at their earliest completion in what
 *     is left — a planned start, not a hold on GPUs: the next round plans
 *     them again, and a later job that fits now is not kept waiting for them.
 *
 * With o->reserve_all every job is planned and reserved in order (pass D
 * alone: conservative list scheduling, the ablation of the guards).
 */
void
mx_heuristic_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap,
				  const int *order, int n, mx_plan *p)
{
	unsigned char *guard = NULL;
	double	   *best = NULL;

	if (n <= 0)
		return;
	if (!o->reserve_all)
	{
		guard = malloc((size_t) s->njobs);
		best = malloc((size_t) s->njobs * sizeof(double));
		if (guard && best && mx_job_guards(s, o, guard, best) < 0)
		{
			free(guard);
			guard = NULL;
		}
	}
	mx_heuristic_plan_guarded(s, o, cap, order, n, p, best ? guard : NULL, best);
	free(guard);
	free(best);
}

/* One run of the passes: the round's inputs, and the state the passes move. */
typedef struct passes
{
	const mx_snapshot *s;
	const mx_options *o;
	const int  *order;
	int			n;
	const unsigned char *guard;
	const double *best;
	mx_config  *cf;				/* scratch of plan_one */
	int			ccap;
	pass_key   *pk_a;			/* pass A's order; its trials sort pass B's in pk_b */
	pass_key   *pk_b;
} passes;

/* Into pk, the positions of the jobs with guard g (g2 too), sorted by key ascending; their count. */
static int
guarded_positions(const passes *ps, pass_key *pk, unsigned char g, unsigned char g2, int by_deadline)
{
	int			nk = 0;

	for (int i = 0; i < ps->n; i++)
	{
		int			ji = ps->order[i];

		if (ps->guard[ji] != g && ps->guard[ji] != g2)
			continue;
		pk[nk].pos = i;
		pk[nk].key = by_deadline ? ps->s->jobs[ji].submitted + ps->o->starve_factor * ps->best[ji]
			: -ps->best[ji];
		nk++;
	}
	qsort(pk, nk, sizeof(pass_key), cmp_pass);
	return nk;
}

/* B: starving jobs, earliest deadline first, reserved. */
static void
pass_b(passes *ps, mx_capacity *cap, mx_plan *p, char *deferred)
{
	int			nk = guarded_positions(ps, ps->pk_b, MX_GUARD_STARVING, MX_GUARD_STARVING, 1);

	for (int i = 0; i < nk; i++)
	{
		plan_one(ps->s, ps->o, cap, ps->order[ps->pk_b[i].pos], p, &ps->cf, &ps->ccap, 0);
		deferred[ps->pk_b[i].pos] = 2;
	}
}

/* C and D: the rest in order, now or deferred; then the deferred ones into what is left. */
static void
pass_cd(passes *ps, mx_capacity *cap, mx_plan *p, char *deferred)
{
	for (int i = 0; i < ps->n; i++)
		if (deferred[i] != 2)
			deferred[i] = plan_one(ps->s, ps->o, cap, ps->order[i], p, &ps->cf, &ps->ccap, 1) == PO_DEFERRED ? 1 : 2;
	for (int i = 0; i < ps->n; i++)
		if (deferred[i] == 1)
			plan_one(ps->s, ps->o, cap, ps->order[i], p, &ps->cf, &ps->ccap, 0);
}

/* What one trial plan forecasts. */
typedef struct trial_sums
{
	double		sum_end;		/* the jobs it placed: sum of their ends - now */
	double		sum_flow;		/* the jobs it placed: sum of their ends - submissions */
	double		last_end;		/* the latest end of anything in its capacity (running, held, placed) */
} trial_sums;

#define TRIAL_NOT_NOW (-2)		/* trial_plan: the job does not start now */

/*
 * The rest of the round planned on copies, with the critical job at
 * position pos started now first (first = 1) or left to pass C like any
 * job (first = 0). Later critical and drain jobs go through pass C in both
 * trials (an approximation: no trial within a trial). 0: *ts filled;
 * TRIAL_NOT_NOW: with first, the job does not start now; -1: out of memory.
 */
static int
trial_plan(passes *ps, const mx_capacity *cap, const char *deferred, int pos, int first, trial_sums *ts)
{
	mx_capacity tc;
	mx_plan		tp;
	char	   *td = malloc((size_t) ps->n);
	int			rc = -1;

	if (!td || mx_capacity_copy(&tc, cap) < 0)
	{
		free(td);
		return -1;
	}
	if (mx_plan_init(&tp, ps->s->njobs) < 0)
		goto out_cap;
	memcpy(td, deferred, (size_t) ps->n);
	if (first && plan_one(ps->s, ps->o, &tc, ps->order[pos], &tp, &ps->cf, &ps->ccap, 1) != PO_PLANNED)
	{
		rc = TRIAL_NOT_NOW;
		goto out;
	}
	td[pos] = first ? 2 : 0;
	pass_b(ps, &tc, &tp, td);
	pass_cd(ps, &tc, &tp, td);
	*ts = (trial_sums) {.last_end = mx_capacity_last_end(&tc)};
	for (int i = 0; i < ps->n; i++)
	{
		const mx_assignment *a = &tp.a[ps->order[i]];

		if (deferred[i] == 2 || a->status != MX_PLANNED)
			continue;
		ts->sum_flow += a->end - ps->s->jobs[ps->order[i]].submitted;
		ts->sum_end += a->end - ps->s->now;
	}
	rc = 0;
out:
	mx_plan_free(&tp);
out_cap:
	mx_capacity_free(&tc);
	free(td);
	return rc;
}

/*
 * Is the critical job at position pos worth starting first (docs/model.md,
 * "The critical guard's trade λ")? The makespan it gains, as a share of the
 * round's remaining makespan, must be at least critical_trade times the
 * completion time the jobs still to place lose in all (the job itself
 * included, which gains), as a share of their flow time. 1: yes, or
 * unsure (out of memory); 0: no; TRIAL_NOT_NOW: it does not start now.
 */
static int
worth_first(passes *ps, const mx_capacity *cap, const char *deferred, int pos)
{
	trial_sums with,
				without;
	double		gain,
				cost;
	int			rc = trial_plan(ps, cap, deferred, pos, 1, &with);

	if (rc == TRIAL_NOT_NOW)
		return rc;
	if (rc < 0 || trial_plan(ps, cap, deferred, pos, 0, &without) < 0)
		return 1;
	if (!(without.last_end > ps->s->now) || !(without.sum_flow > 0))
		return 1;
	gain = (without.last_end - with.last_end) / (without.last_end - ps->s->now);
	cost = (with.sum_end - without.sum_end) / without.sum_flow;
	return gain >= ps->o->critical_trade * cost;
}

/*
 * A: critical jobs, longest first, only if they start now (and, for the
 * first TRADE_TRIALS of them that do, are worth it); draining ones
 * reserved. Each trial plans the round twice, so the cap bounds a round
 * with many critical jobs (jobs of one length) to 2 x TRADE_TRIALS more
 * passes.
 */
#define TRADE_TRIALS 4
static void
pass_a(passes *ps, mx_capacity *cap, mx_plan *p, char *deferred)
{
	int			nk = guarded_positions(ps, ps->pk_a, MX_GUARD_CRITICAL, MX_GUARD_DRAIN, 0),
				trials = 0;

	for (int i = 0; i < nk; i++)
	{
		int			pos = ps->pk_a[i].pos,
					ji = ps->order[pos],
					drain = ps->guard[ji] == MX_GUARD_DRAIN;

		if (!drain && ps->o->critical_trade > 0 && trials < TRADE_TRIALS)
		{
			int			w = worth_first(ps, cap, deferred, pos);

			if (w == TRIAL_NOT_NOW)
			{
				deferred[pos] = 1;	/* as plan_one would: pass C tries again */
				continue;
			}
			trials++;
			if (w == 0)
				continue;		/* left to pass C */
		}
		deferred[pos] = plan_one(ps->s, ps->o, cap, ji, p, &ps->cf, &ps->ccap, !drain) == PO_DEFERRED ? 1 : 2;
	}
}

void
mx_heuristic_plan_guarded(const mx_snapshot *s, const mx_options *o, mx_capacity *cap,
						  const int *order, int n, mx_plan *p,
						  const unsigned char *guard, const double *best)
{
	passes		ps = {.s = s,.o = o,.order = order,.n = n,.guard = guard,.best = best};
	char	   *deferred = NULL;	/* per position: 0 not placed yet, 1 deferred, 2 done */

	if (n <= 0)
		return;
	if (!o->reserve_all && guard && best)
	{
		ps.pk_a = malloc((size_t) n * sizeof(pass_key));
		ps.pk_b = malloc((size_t) n * sizeof(pass_key));
		deferred = calloc((size_t) n, 1);
	}
	if (!ps.pk_a || !ps.pk_b || !deferred)
	{
		/* conservative: every job reserves in turn (also the out-of-memory path) */
		for (int i = 0; i < n; i++)
			plan_one(s, o, cap, order[i], p, &ps.cf, &ps.ccap, 0);
	}
	else
	{
		pass_a(&ps, cap, p, deferred);
		pass_b(&ps, cap, p, deferred);
		pass_cd(&ps, cap, p, deferred);
	}
	free(ps.pk_a);
	free(ps.pk_b);
	free(deferred);
	free(ps.cf);
}
