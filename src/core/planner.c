/*
 * planner.c — one scheduling round (planner.h): capacity, candidate
 * configurations, heuristic, MILP, checks, reasons. See docs/model.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "baselines.h"
#include "capacity.h"
#include "comparators.h"
#include "guards.h"
#include "heuristic.h"
#include "passes.h"
#include "value.h"
#include "plan_limits.h"
#include "milp.h"
#include "stopwatch.h"
#include "tolerance.h"
#include "typeplan.h"
#include "reasons.h"
#include "utility.h"

static void
set_solver(mx_plan *p, const char *s)
{
	snprintf(p->solver, sizeof(p->solver), "%s", s);
}

/*
 * Replay p's planned jobs into a copy of cap (running jobs only), in order:
 * first the jobs already planned, then every MX_WAITING job of order[] by
 * the heuristic. Returns 0, or -1 when a planned job does not fit (the plan
 * is infeasible) or out of memory.
 */
static int
complete_plan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
			  const unsigned char *guard, const double *best,
			  const int *order, int n, mx_plan *p)
{
	mx_capacity c2;
	int		   *rest;
	int			i,
				nr = 0,
				rc = 0;

	if (mx_capacity_copy(&c2, cap) < 0)
		return -1;
	rest = malloc((size_t) (n > 0 ? n : 1) * sizeof(int));
	if (rest == NULL)
	{
		mx_capacity_free(&c2);
		return -1;
	}
	for (i = 0; i < n; i++)
	{
		mx_assignment *a = &p->a[order[i]];

		if (a->status == MX_PLANNED)
		{
			if (!(a->start >= s->now - 1e-6) || !(a->end > a->start) ||
				mx_capacity_reserve(&c2, a->type, a->gpus, a->start, a->end - a->start) < 0)
			{
				rc = -1;
				break;
			}
		}
		else if (a->status == MX_WAITING)
			rest[nr++] = order[i];
	}
	if (rc == 0 && nr > 0)
		mx_heuristic_plan_guarded(s, o, &c2, rest, nr, p, guard, best);
	free(rest);
	mx_capacity_free(&c2);
	return rc;
}

/* Check a whole plan against capacity (the invariant the tests also check). */
static int
plan_fits(const mx_snapshot *s, const mx_capacity *cap, const mx_plan *p)
{
	mx_capacity c2;
	int			i,
				rc = 0;

	if (mx_capacity_copy(&c2, cap) < 0)
		return 0;
	for (i = 0; i < p->n; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (a->status != MX_PLANNED)
			continue;
		if (!(a->start >= s->now - 1e-6) ||
			mx_capacity_reserve(&c2, a->type, a->gpus, a->start, a->end - a->start) < 0)
		{
			rc = -1;
			break;
		}
	}
	mx_capacity_free(&c2);
	return rc == 0;
}

/*
 * H for this round: twice the span the values must cover (the latest end of
 * any planned job or running part, plus the window's longest configuration),
 * so every MILP value and every planned job's value is positive and
 * objectives of plans with different windows are on one scale.
 */
static double
round_horizon(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
			  const int *window, int nw, const mx_plan *p)
{
	double		last = fmax(s->now, mx_capacity_last_end(cap)),
				rt = 0;
	int			i;
	mx_config  *cf = NULL;
	int			ccap = 0;

	for (i = 0; i < s->njobs; i++)
		if (p->a[i].status == MX_PLANNED && p->a[i].end > last)
			last = p->a[i].end;
	for (i = 0; i < nw; i++)
	{
		int			n = mx_job_configs_buf(s, &s->jobs[window[i]], o->scaling_alpha, &cf, &ccap);

		for (int c = 0; c < n; c++)
			if (cf[c].runtime > rt)
				rt = cf[c].runtime;
	}
	free(cf);
	return 2.0 * ((last - s->now) + rt) + 1.0;
}

/*
 * The MILP's bound for the returned plan: the LP bound of the window
 * (hold[] == 2) plus the value of every other planned job as planned. It bounds plans whose
 * window jobs start on the grid; when the returned plan (whose re-planned
 * window jobs need not start on grid points) is worth more, there is no
 * valid bound: NAN.
 */
static double
window_bound(const mx_snapshot *s, const mx_options *o, const mx_plan *p, const int *order, int np,
			 const int *win, int nw, const unsigned char *hold, double lp)
{
	double		rest = 0,
				b;
	int			i;

	(void) win;
	(void) nw;
	if (!isfinite(lp))
		return NAN;
	for (i = 0; i < np; i++)
	{
		const mx_assignment *a = &p->a[order[i]];

		if (hold[order[i]] != 2 && a->status == MX_PLANNED)
			rest += mx_value(s, &s->jobs[order[i]], o, a->start, a->end);
	}
	b = lp + rest;
	return b >= p->objective - 1e-9 * fmax(1.0, fabs(p->objective)) ? b : NAN;
}

/*
 * The configuration LP's round (docs/model.md, "Configuration LP"): the
 * first lp_window plannable jobs that are not held (hold[] != 1) get the
 * configuration the LP chose, and every job is placed again by the
 * heuristic's passes. Any failure keeps the heuristic's plan in p.
 * deadline_ms is on the mx_thread_cpu_ms() scale.
 */
static void
lp_round(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
		 const mx_capacity *holdcap, const int *order, int np, const unsigned char *hold,
		 const unsigned char *guard, const double *best, double deadline_ms, mx_plan *p)
{
	int		   *win = malloc((size_t) (np > 0 ? np : 1) * sizeof(int));
	int			i,
				nw = 0;
	mx_typelp_stats st;
	mx_typelp_result r;

	memset(&st, 0, sizeof(st));
	if (win == NULL)
	{
		set_solver(p, "heuristic (glpk error)");
		return;
	}
	for (i = 0; i < np && nw < o->lp_window; i++)
		if (hold[order[i]] != 1)
			win[nw++] = order[i];
	if (nw == 0)
	{
		free(win);
		return;
	}
	if (deadline_ms - mx_thread_cpu_ms() < 1.0)
		r = MX_TYPELP_LIMIT;
	else
		r = mx_typeplan(s, o, cap, holdcap, order, np, win, nw, guard, best, deadline_ms, p, &st);
	p->milp_jobs = st.njobs > 0 ? st.njobs : nw;
	p->milp_vars = r == MX_TYPELP_ERROR || r == MX_TYPELP_NOTHING ? 0 : st.ncols;
	if (r == MX_TYPELP_OK)
	{
		p->objective = mx_plan_value(s, o, p);
		set_solver(p, "glpk (lp configurations)");
	}
	else if (r == MX_TYPELP_NOTHING)
		set_solver(p, "heuristic (nothing for glpk to decide)");
	else if (r == MX_TYPELP_LIMIT)
		set_solver(p, "heuristic (glpk time limit)");
	else if (r == MX_TYPELP_ITERATIONS)
		set_solver(p, "heuristic (glpk iteration limit)");
	else if (r == MX_TYPELP_NUMERIC)
		set_solver(p, "heuristic (glpk numerical failure)");
	else
		set_solver(p, "heuristic (glpk error)");
	free(win);
}

/* A round of the mixdnn policy between its phases. */
typedef struct round_state
{
	const mx_snapshot *s;
	mx_options	o;				/* the caller's, with the round's alpha and H */
	mx_plan    *out;
	double		t0;				/* mx_wall_ms() at the start: solve_ms, the MILP's budget */
	double		c0;				/* mx_thread_cpu_ms() at the start: the LP's budget */
	mx_capacity cap;			/* running jobs only */
	mx_capacity milpcap;		/* and the holds */
	int			milpcap_ok;
	int		   *order;			/* plannable jobs in the heuristic's order: order[0 .. np) */
	int			np;
	unsigned char *guard;		/* per job: mx_job_guards */
	double	   *best;			/* per job: shortest run time (mx_job_guards) */
	unsigned char *hold;		/* per job: 1 held by the heuristic, 2 in the MILP's window */
	int		   *win;			/* the window: win[0 .. nwin) */
	int			nwin;
	double		heur_ms;		/* the heuristic's wall time */
	double		heur_cpu_ms;	/* and its CPU time */
} round_state;

static void
round_free(round_state *rs)
{
	free(rs->order);
	free(rs->win);
	free(rs->hold);
	free(rs->guard);
	free(rs->best);
	if (rs->milpcap_ok)
		mx_capacity_free(&rs->milpcap);
	mx_capacity_free(&rs->cap);
}

/* Jobs without any configuration on the current up nodes are unplannable; the rest in order. */
static int
round_plannable(round_state *rs)
{
	const mx_snapshot *s = rs->s;
	int			i;

	rs->order = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(int));
	if (rs->order == NULL)
		return -1;
	mx_heuristic_order(s, &rs->o, rs->order);
	for (i = 0; i < s->njobs; i++)
	{
		mx_assignment *a = &rs->out->a[rs->order[i]];
		char		why[MX_REASON_LEN];

		if (mx_job_explain(s, &s->jobs[rs->order[i]], rs->o.scaling_alpha, why, sizeof(why)))
		{
			a->status = MX_UNPLANNABLE;
			mx_plan_set_reason(a, why);
		}
		else
			rs->order[rs->np++] = rs->order[i];
	}
	return 0;
}

/* The heuristic's plan of every plannable job: the incumbent and the fallback. */
static int
round_heuristic(round_state *rs)
{
	const mx_snapshot *s = rs->s;
	mx_capacity work;

	rs->guard = malloc((size_t) (s->njobs > 0 ? s->njobs : 1));
	rs->best = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(double));
	if (rs->guard == NULL || rs->best == NULL || mx_job_guards(s, &rs->o, rs->guard, rs->best) < 0 ||
		mx_capacity_copy(&work, &rs->cap) < 0)
		return -1;
	mx_heuristic_plan_guarded(s, &rs->o, &work, rs->order, rs->np, rs->out, rs->guard, rs->best);
	mx_capacity_free(&work);
	rs->heur_ms = mx_wall_ms() - rs->t0;
	rs->heur_cpu_ms = mx_thread_cpu_ms() - rs->c0;
	return 0;
}

/*
 * Holds (docs/model.md, "MILP"): the heuristic's plans of starving jobs
 * (reservations) and of critical jobs that start now. The MILP plans
 * around them (they are reserved in milpcap) and never moves them; its
 * window is the first window_jobs other plannable jobs in order.
 */
static int
round_holds(round_state *rs)
{
	const mx_snapshot *s = rs->s;
	int			i;

	rs->win = malloc((size_t) (rs->np > 0 ? rs->np : 1) * sizeof(int));
	rs->hold = calloc((size_t) (s->njobs > 0 ? s->njobs : 1), 1);
	if (rs->win == NULL || rs->hold == NULL || mx_capacity_copy(&rs->milpcap, &rs->cap) < 0)
		return -1;
	rs->milpcap_ok = 1;
	for (i = 0; i < rs->np; i++)
	{
		int			ji = rs->order[i];
		const mx_assignment *a = &rs->out->a[ji];

		if (a->status == MX_PLANNED && mx_guard_holds(rs->guard[ji], a->start, s->now))
		{
			rs->hold[ji] = 1;
			if (mx_capacity_reserve(&rs->milpcap, a->type, a->gpus, a->start, a->end - a->start) < 0)
				return -1;		/* cannot happen: the heuristic's plan fits */
		}
		else if (rs->nwin < (rs->o.window_jobs > 0 ? rs->o.window_jobs : 0))
		{
			rs->hold[ji] = 2;	/* in the window */
			rs->win[rs->nwin++] = ji;
		}
	}
	return 0;
}

/*
 * The MILP changed the plan: keep the holds and the jobs it starts now;
 * every other job is planned again by the heuristic's rules into what is
 * left (a later start is a forecast, not a hold). With reserve_all
 * (time-grid model) the window's later starts are kept too. Whether the
 * completed plan fits.
 */
static int
round_complete_milp(round_state *rs)
{
	int			i;

	for (i = 0; i < rs->np; i++)
	{
		mx_assignment *a = &rs->out->a[rs->order[i]];

		if (rs->hold[rs->order[i]] == 1 || a->status != MX_PLANNED)
			continue;
		if (rs->hold[rs->order[i]] != 2 || (!rs->o.reserve_all && a->start > rs->s->now + MX_TIME_EPS))
			a->status = MX_WAITING;
	}
	return complete_plan(rs->s, &rs->o, &rs->cap, rs->guard, rs->best, rs->order, rs->np, rs->out) == 0
		&& plan_fits(rs->s, &rs->cap, rs->out);
}

/* Back to the heuristic's plan, with why. */
static void
round_restore(round_state *rs, const mx_plan *heur, const char *solver)
{
	memcpy(rs->out->a, heur->a, (size_t) rs->s->njobs * sizeof(mx_assignment));
	rs->out->objective = rs->out->heuristic_objective;
	set_solver(rs->out, solver);
}

/* A MILP solution: taken when it completes to a plan that fits and is worth no less. */
static void
round_take_milp(round_state *rs, const mx_plan *heur, mx_milp_result r, double bound, int nw)
{
	mx_plan    *out = rs->out;
	int			changed = memcmp(heur->a, out->a, (size_t) rs->s->njobs * sizeof(mx_assignment)) != 0;
	double		obj;

	if (changed && !round_complete_milp(rs))
	{
		round_restore(rs, heur, "heuristic (glpk plan infeasible)");
		return;
	}
	obj = mx_plan_value(rs->s, &rs->o, out);
	if (obj >= out->heuristic_objective - 1e-9 * fmax(1.0, fabs(out->heuristic_objective)))
	{
		out->objective = obj;
		out->bound = window_bound(rs->s, &rs->o, out, rs->order, rs->np, rs->win, nw, rs->hold, bound);
		if (!changed)
			set_solver(out, "glpk (heuristic plan within gap)");
		else
			set_solver(out, r == MX_MILP_OPTIMAL ? "glpk" : "glpk (time limit, best found)");
		return;
	}
	round_restore(rs, heur, "heuristic (glpk plan no better)");
	/* GLPK's bound still holds for the window; report it as on the other paths */
	if (isfinite(bound))
		out->bound = window_bound(rs->s, &rs->o, out, rs->order, rs->np, rs->win, nw, rs->hold, bound);
}

/* The start-now or time-grid MILP over the first nw window jobs, within budget ms. */
static int
round_milp(round_state *rs, int nw, double budget)
{
	const mx_snapshot *s = rs->s;
	mx_plan    *out = rs->out;
	mx_plan		heur;
	mx_milp_result r;
	double		bound = NAN;
	int			nvars = 0;
	mx_options	om = rs->o;

	om.time_limit_ms = budget;
	if (mx_plan_init(&heur, s->njobs) < 0)
		return -1;
	memcpy(heur.a, out->a, (size_t) s->njobs * sizeof(mx_assignment));

	r = mx_milp_plan(s, &om, &rs->milpcap, rs->win, nw, out, &bound, &nvars);
	out->milp_jobs = nw;
	out->milp_vars = nvars;
	if (r == MX_MILP_OPTIMAL || r == MX_MILP_FEASIBLE)
		round_take_milp(rs, &heur, r, bound, nw);
	else
	{
		round_restore(rs, &heur,
					  r == MX_MILP_ERROR ? "heuristic (glpk error)" :
					  r == MX_MILP_TIME_LIMIT ? "heuristic (glpk time limit)" :
					  nvars == 0 ? "heuristic (nothing for glpk to decide)" :
					  "heuristic (glpk found no better plan)");
		if (r != MX_MILP_ERROR && isfinite(bound))
			out->bound = window_bound(s, &rs->o, out, rs->order, rs->np, rs->win, nw, rs->hold, bound);
	}
	mx_plan_free(&heur);
	return 0;
}

/*
 * After the heuristic and the holds: the round's value horizon, then the
 * configuration LP or the MILP. The round's time limit covers everything
 * (docs/model.md, "Budget"): the solver gets what the heuristic left,
 * minus a reserve for completing and checking its plan afterwards (about
 * two heuristic runs).
 */
static int
round_solve(round_state *rs)
{
	mx_plan    *out = rs->out;
	mx_options *o = &rs->o;
	int			nw = o->use_milp && !o->lp_configs ? rs->nwin : 0;
	double		milp_budget = 0;

	if (!(o->value_horizon_s > 0))
		o->value_horizon_s = round_horizon(rs->s, o, &rs->milpcap, rs->win, rs->nwin, out);
	out->heuristic_objective = mx_plan_value(rs->s, o, out);
	out->objective = out->heuristic_objective;
	out->bound = NAN;
	set_solver(out, "heuristic");
	if (nw > 0)
	{
		double		reserve = 2.0 * rs->heur_ms + 0.5;

		milp_budget = o->time_limit_ms - (mx_wall_ms() - rs->t0) - reserve;
		if (!(milp_budget >= 1.0))
		{
			nw = 0;
			set_solver(out, "heuristic (glpk time limit)");
			out->milp_jobs = rs->nwin;
		}
	}
	/*
	 * The LP's budget is the round's CPU time, not its wall time: a machine
	 * busy with other processes stretches the wall time of the same work,
	 * and a wall-clock budget would then end the same round differently.
	 */
	if (o->use_milp && o->lp_configs)
		lp_round(rs->s, o, &rs->cap, &rs->milpcap, rs->order, rs->np, rs->hold, rs->guard, rs->best,
				 rs->c0 + o->time_limit_ms - 2.0 * rs->heur_cpu_ms - 0.5, out);
	return nw > 0 ? round_milp(rs, nw, milp_budget) : 0;
}

/* The comparators and the baselines: 0, or -1 when out of memory. */
static int
plan_other_policy(const mx_snapshot *s, const mx_options *o, mx_plan *out, double t0)
{
	mx_capacity cap;

	if (o->policy >= MX_POLICY_SJF && o->policy <= MX_POLICY_K8S_ANY)
	{
		if (mx_comparator_plan(s, o, out) < 0)
			return -1;
		mx_plan_enforce_limits(s, out);
		out->solve_ms = mx_wall_ms() - t0;
		return 0;
	}
	/*
	 * mx_overrun_factor: 0 here, static keeps the fixed grace; backfill
	 * none, as contract §6's comparators: a job past its expected end counts
	 * as ending now (baselines.c keeps its GPUs held)
	 */
	if (mx_capacity_init(&cap, s, o->policy == MX_POLICY_BACKFILL ? 0 : o->overrun_s, mx_overrun_factor(o)) < 0)
		return -1;
	set_solver(out, mx_policy_name(o->policy));
	mx_baseline_plan(s, o, &cap, out);
	mx_plan_enforce_limits(s, out);
	mx_capacity_free(&cap);
	out->solve_ms = mx_wall_ms() - t0;
	return 0;
}

int
mx_plan_round(const mx_snapshot *s, const mx_options *o_in, mx_plan *out)
{
	round_state rs;
	int			i;

	memset(&rs, 0, sizeof(rs));
	rs.t0 = mx_wall_ms();
	rs.c0 = mx_thread_cpu_ms();
	rs.s = s;
	rs.o = *o_in;
	rs.out = out;
	memset(out, 0, sizeof(*out));
	if (mx_plan_init(out, s->njobs) < 0)
		return -1;
	snprintf(out->policy, sizeof(out->policy), "%s", mx_policy_name(rs.o.policy));
	for (i = 0; i < s->njobs; i++)
		out->a[i].job_id = s->jobs[i].job_id;
	if (!(rs.o.scaling_alpha >= 0) || !isfinite(rs.o.scaling_alpha))
		rs.o.scaling_alpha = MX_FITTED_ALPHA;

	if (rs.o.policy != MX_POLICY_MIXDNN)
	{
		if (plan_other_policy(s, &rs.o, out, rs.t0) == 0)
			return 0;
		mx_plan_free(out);
		return -1;
	}
	if (mx_capacity_init(&rs.cap, s, rs.o.overrun_s, mx_overrun_factor(&rs.o)) < 0)
	{
		mx_plan_free(out);
		return -1;
	}
	if (round_plannable(&rs) < 0 || round_heuristic(&rs) < 0 || round_holds(&rs) < 0 || round_solve(&rs) < 0)
	{
		round_free(&rs);
		mx_plan_free(out);
		return -1;
	}
	mx_plan_enforce_limits(s, out);
	/* Out of memory here costs only the reasons' second part. */
	(void) mx_plan_reasons(s, &rs.o, rs.guard, out);
	round_free(&rs);
	out->solve_ms = mx_wall_ms() - rs.t0;
	return 0;
}
