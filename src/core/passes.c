/*
 * passes.c — guarded list scheduling (passes.h): the four passes over the
 * jobs, and the critical guard's trade that decides whether a critical job
 * goes first. See docs/model.md, "Heuristic" and "The critical guard's
 * trade λ".
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "guards.h"
#include "heuristic.h"

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
	mx_config  *cf;				/* scratch of mx_heuristic_place */
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
		mx_heuristic_place(ps->s, ps->o, cap, ps->order[ps->pk_b[i].pos], p, &ps->cf, &ps->ccap, 0);
		deferred[ps->pk_b[i].pos] = 2;
	}
}

/* C and D: the rest in order, now or deferred; then the deferred ones into what is left. */
static void
pass_cd(passes *ps, mx_capacity *cap, mx_plan *p, char *deferred)
{
	for (int i = 0; i < ps->n; i++)
		if (deferred[i] != 2)
			deferred[i] = mx_heuristic_place(ps->s, ps->o, cap, ps->order[i], p, &ps->cf, &ps->ccap, 1) == MX_PLACE_DEFERRED ? 1 : 2;
	for (int i = 0; i < ps->n; i++)
		if (deferred[i] == 1)
			mx_heuristic_place(ps->s, ps->o, cap, ps->order[i], p, &ps->cf, &ps->ccap, 0);
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
	if (first && mx_heuristic_place(ps->s, ps->o, &tc, ps->order[pos], &tp, &ps->cf, &ps->ccap, 1) != MX_PLACE_PLANNED)
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
				deferred[pos] = 1;	/* as mx_heuristic_place would: pass C tries again */
				continue;
			}
			trials++;
			if (w == 0)
				continue;		/* left to pass C */
		}
		deferred[pos] = mx_heuristic_place(ps->s, ps->o, cap, ji, p, &ps->cf, &ps->ccap, !drain) == MX_PLACE_DEFERRED ? 1 : 2;
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
			mx_heuristic_place(s, o, cap, order[i], p, &ps.cf, &ps.ccap, 0);
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
