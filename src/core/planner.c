/*
 * planner.c — one scheduling round (planner.h): capacity, candidate
 * configurations, heuristic, MILP, checks, reasons. See docs/model.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner.h"
#include "baselines.h"
#include "capacity.h"
#include "comparators.h"
#include "heuristic.h"
#include "plan_limits.h"
#include "milp.h"
#include "stopwatch.h"
#include "typeplan.h"
#include "utility.h"

/* Fitted on Gavel's throughput matrix, docs/model.md "Scaling exponent". */
#define MX_FITTED_ALPHA 0.75

void
mx_options_default(mx_options *o)
{
	memset(o, 0, sizeof(*o));
	o->policy = MX_POLICY_MIXDNN;
	o->use_milp = 1;
	o->time_limit_ms = 200.0;
	o->mip_gap = 0.01;
	o->window_jobs = 20;
	o->grid_points = 24;
	o->scaling_alpha = MX_FITTED_ALPHA;
	o->overrun_s = 60.0;
	o->aging_s = 3600.0;
	o->value_horizon_s = 0.0;
	o->starve_factor = 16.0;
	o->critical_margin = 0.05;
	o->drain_margin = -1.0;
	o->reserve_all = 0;
	o->fair_share = 0;
	o->fair_share_half_life_s = MX_DEFAULT_HALF_LIFE_S;
	o->lp_configs = 1;
	o->lp_window = 60;
}

static const char *const policy_names[MX_NPOLICIES] = {
	"mixdnn", "k8s", "static", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any"
};

const char *
mx_policy_name(mx_policy p)
{
	if ((int) p < 0 || (int) p >= MX_NPOLICIES)
		return "unknown";
	return policy_names[p];
}

int
mx_policy_parse(const char *name, mx_policy *out)
{
	int			i;

	if (name == NULL)
		return -1;
	for (i = 0; i < MX_NPOLICIES; i++)
		if (strcmp(name, policy_names[i]) == 0)
		{
			*out = (mx_policy) i;
			return 0;
		}
	if (strcmp(name, "kubernetes") == 0)
	{
		*out = MX_POLICY_K8S;
		return 0;
	}
	return -1;
}

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
 * The time is absolute (UTC), not "+N s from now": a plan that does not
 * change then keeps its reason too, and the round need not rewrite its row.
 */
static void
fill_reasons(const mx_snapshot *s, mx_plan *p)
{
	int			i;

	for (i = 0; i < p->n; i++)
	{
		mx_assignment *a = &p->a[i];
		time_t		t;
		struct tm	tm;
		char		when[32];

		if (a->status != MX_PLANNED)
			continue;
		if (!(a->start > s->now + 0.5))
		{
			a->reason[0] = '\0';
			continue;
		}
		t = (time_t) floor(a->start + 0.5);
		if (gmtime_r(&t, &tm) == NULL || strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
			snprintf(when, sizeof(when), "+%.0f s", a->start - s->now);
		snprintf(a->reason, sizeof(a->reason), "waiting for %d %s GPU%s, expected free at %s",
				 a->gpus, (a->type >= 0 && a->type < s->ntypes) ? s->types[a->type].name : "?",
				 a->gpus == 1 ? "" : "s", when);
	}
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
	double		last = s->now,
				rt = 0;
	int			i,
				k;
	mx_config  *cf = NULL;
	int			ccap = 0;

	for (k = 0; k < cap->ntypes; k++)
		if (cap->nsteps[k] > 0 && cap->steps[k][cap->nsteps[k] - 1].t > last)
			last = cap->steps[k][cap->nsteps[k] - 1].t;
	for (i = 0; i < s->njobs; i++)
		if (p->a[i].status == MX_PLANNED && p->a[i].end > last)
			last = p->a[i].end;
	for (i = 0; i < nw; i++)
	{
		const mx_job *j = &s->jobs[window[i]];
		int			mx = mx_job_configs_max(s, j),
					n,
					c;

		if (mx > ccap)
		{
			mx_config  *nc = realloc(cf, (size_t) mx * sizeof(mx_config));

			if (nc == NULL)
				continue;
			cf = nc;
			ccap = mx;
		}
		n = mx_job_configs(s, j, o->scaling_alpha, cf, mx);
		for (c = 0; c < n; c++)
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
	if (deadline_ms - mx_wall_ms() < 1.0)
		r = MX_TYPELP_LIMIT;
	else
		r = mx_typeplan(s, o, cap, holdcap, order, np, win, nw, guard, best, deadline_ms, p, &st);
	p->milp_jobs = nw;
	p->milp_vars = r == MX_TYPELP_LIMIT || r == MX_TYPELP_OK ? st.ncols : 0;
	if (r == MX_TYPELP_OK)
	{
		p->objective = mx_plan_value(s, o, p);
		set_solver(p, "glpk (lp configurations)");
	}
	else if (r == MX_TYPELP_NOTHING)
		set_solver(p, "heuristic (nothing for glpk to decide)");
	else if (r == MX_TYPELP_LIMIT)
		set_solver(p, "heuristic (glpk time limit)");
	else
		set_solver(p, "heuristic (glpk error)");
	free(win);
}

int
mx_plan_round(const mx_snapshot *s, const mx_options *o_in, mx_plan *out)
{
	double		t0 = mx_wall_ms();
	mx_options	o = *o_in;
	mx_capacity cap,
				work,
				milpcap;
	int			milpcap_ok = 0;
	int		   *order = NULL,
			   *win = NULL;
	unsigned char *hold = NULL,
			   *guard = NULL;
	int			i,
				np = 0,
				nw,
				nwin = 0;
	double		heur_ms,
				milp_budget = 0,
			   *best = NULL;	/* per job: shortest run time (mx_job_guards) */
	mx_plan		heur;

	memset(out, 0, sizeof(*out));
	if (mx_plan_init(out, s->njobs) < 0)
		return -1;
	snprintf(out->policy, sizeof(out->policy), "%s", mx_policy_name(o.policy));
	for (i = 0; i < s->njobs; i++)
		out->a[i].job_id = s->jobs[i].job_id;
	if (!(o.scaling_alpha >= 0) || !isfinite(o.scaling_alpha))
		o.scaling_alpha = MX_FITTED_ALPHA;

	if (o.policy >= MX_POLICY_SJF && o.policy <= MX_POLICY_K8S_ANY)
	{
		if (mx_comparator_plan(s, &o, out) < 0)
		{
			mx_plan_free(out);
			return -1;
		}
		out->solve_ms = mx_wall_ms() - t0;
		return 0;
	}

	if (mx_capacity_init(&cap, s, o.overrun_s) < 0)
	{
		mx_plan_free(out);
		return -1;
	}

	if (o.policy != MX_POLICY_MIXDNN)
	{
		set_solver(out, mx_policy_name(o.policy));
		mx_baseline_plan(s, &o, &cap, out);
		mx_plan_enforce_limits(s, out);
		mx_capacity_free(&cap);
		out->solve_ms = mx_wall_ms() - t0;
		return 0;
	}

	/* jobs without any configuration on the current up nodes */
	order = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(int));
	if (order == NULL)
		goto oom;
	mx_heuristic_order(s, &o, order);
	for (i = 0; i < s->njobs; i++)
	{
		mx_assignment *a = &out->a[order[i]];
		char		why[MX_REASON_LEN];

		if (mx_job_explain(s, &s->jobs[order[i]], o.scaling_alpha, why, sizeof(why)))
		{
			a->status = MX_UNPLANNABLE;
			mx_plan_set_reason(a, why);
		}
		else
			order[np++] = order[i];
	}

	/* heuristic plan of every plannable job: the incumbent and the fallback */
	guard = malloc((size_t) (s->njobs > 0 ? s->njobs : 1));
	best = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(double));
	if (guard == NULL || best == NULL || mx_job_guards(s, &o, guard, best) < 0 ||
		mx_capacity_copy(&work, &cap) < 0)
		goto oom;
	mx_heuristic_plan_guarded(s, &o, &work, order, np, out, guard, best);
	mx_capacity_free(&work);
	heur_ms = mx_wall_ms() - t0;

	/*
	 * Holds (docs/model.md, "MILP"): the heuristic's plans of starving jobs
	 * (reservations) and of critical jobs that start now. The MILP plans
	 * around them (they are reserved in milpcap) and never moves them; its
	 * window is the first window_jobs other plannable jobs in order.
	 */
	win = malloc((size_t) (np > 0 ? np : 1) * sizeof(int));
	hold = calloc((size_t) (s->njobs > 0 ? s->njobs : 1), 1);
	if (win == NULL || hold == NULL || mx_capacity_copy(&milpcap, &cap) < 0)
		goto oom;
	milpcap_ok = 1;
	for (i = 0; i < np; i++)
	{
		int			ji = order[i];
		const mx_assignment *a = &out->a[ji];

		if (a->status == MX_PLANNED &&
			(guard[ji] == MX_GUARD_STARVING || guard[ji] == MX_GUARD_DRAIN ||
			 (guard[ji] == MX_GUARD_CRITICAL && a->start <= s->now + 1e-6)))
		{
			hold[ji] = 1;
			if (mx_capacity_reserve(&milpcap, a->type, a->gpus, a->start, a->end - a->start) < 0)
				goto oom;		/* cannot happen: the heuristic's plan fits */
		}
		else if (nwin < (o.window_jobs > 0 ? o.window_jobs : 0))
		{
			hold[ji] = 2;		/* in the window */
			win[nwin++] = ji;
		}
	}

	nw = o.use_milp && !o.lp_configs ? nwin : 0;
	if (!(o.value_horizon_s > 0))
		o.value_horizon_s = round_horizon(s, &o, &milpcap, win, nwin, out);
	out->heuristic_objective = mx_plan_value(s, &o, out);
	out->objective = out->heuristic_objective;
	out->bound = NAN;
	set_solver(out, "heuristic");

	/*
	 * The round's time limit covers everything (docs/model.md, "Budget"):
	 * the MILP gets what the heuristic left, minus a reserve for completing
	 * and checking its plan afterwards (about two heuristic runs).
	 */
	if (nw > 0)
	{
		double		reserve = 2.0 * heur_ms + 0.5;

		milp_budget = o.time_limit_ms - (mx_wall_ms() - t0) - reserve;
		if (!(milp_budget >= 1.0))
		{
			nw = 0;
			set_solver(out, "heuristic (glpk time limit)");
			out->milp_jobs = nwin;
		}
	}

	if (o.use_milp && o.lp_configs)
		lp_round(s, &o, &cap, &milpcap, order, np, hold, guard, best,
				 t0 + o.time_limit_ms - 2.0 * heur_ms - 0.5, out);

	if (nw > 0)
	{
		mx_milp_result r;
		double		bound = NAN;
		int			nvars = 0;
		mx_options	om = o;

		om.time_limit_ms = milp_budget;
		if (mx_plan_init(&heur, s->njobs) < 0)
			goto oom;
		memcpy(heur.a, out->a, (size_t) s->njobs * sizeof(mx_assignment));

		r = mx_milp_plan(s, &om, &milpcap, win, nw, out, &bound, &nvars);
		out->milp_jobs = nw;
		out->milp_vars = nvars;

		if (r == MX_MILP_OPTIMAL || r == MX_MILP_FEASIBLE)
		{
			int			changed = memcmp(heur.a, out->a, (size_t) s->njobs * sizeof(mx_assignment)) != 0;
			int			ok = 1;

			if (changed)
			{
				/*
				 * Keep the holds and the jobs the MILP starts now; every
				 * other job is planned again by the heuristic's rules into
				 * what is left (a later start is a forecast, not a hold).
				 * With reserve_all (time-grid model) the window's later
				 * starts are kept too, as in the planner before issue #4.
				 */
				for (i = 0; i < np; i++)
				{
					mx_assignment *a = &out->a[order[i]];

					if (hold[order[i]] == 1 || a->status != MX_PLANNED)
						continue;
					if (hold[order[i]] != 2 || (!o.reserve_all && a->start > s->now + 1e-6))
						a->status = MX_WAITING;
				}
				ok = complete_plan(s, &o, &cap, guard, best, order, np, out) == 0 && plan_fits(s, &cap, out);
			}
			if (ok)
			{
				double		obj = mx_plan_value(s, &o, out);

				if (obj >= out->heuristic_objective - 1e-9 * fmax(1.0, fabs(out->heuristic_objective)))
				{
					out->objective = obj;
					out->bound = window_bound(s, &o, out, order, np, win, nw, hold, bound);
					if (!changed)
						set_solver(out, "glpk (heuristic plan within gap)");
					else
						set_solver(out, r == MX_MILP_OPTIMAL ? "glpk" : "glpk (time limit, best found)");
				}
				else
				{
					memcpy(out->a, heur.a, (size_t) s->njobs * sizeof(mx_assignment));
					out->objective = out->heuristic_objective;
					/* GLPK's bound still holds for the window; report it as on the other paths */
					if (isfinite(bound))
						out->bound = window_bound(s, &o, out, order, np, win, nw, hold, bound);
					set_solver(out, "heuristic (glpk plan no better)");
				}
			}
			else
			{
				memcpy(out->a, heur.a, (size_t) s->njobs * sizeof(mx_assignment));
				out->objective = out->heuristic_objective;
				set_solver(out, "heuristic (glpk plan infeasible)");
			}
		}
		else
		{
			memcpy(out->a, heur.a, (size_t) s->njobs * sizeof(mx_assignment));
			out->objective = out->heuristic_objective;
			if (r == MX_MILP_ERROR)
				set_solver(out, "heuristic (glpk error)");
			else if (r == MX_MILP_TIME_LIMIT)
				set_solver(out, "heuristic (glpk time limit)");
			else if (nvars == 0)
				set_solver(out, "heuristic (nothing for glpk to decide)");
			else
				set_solver(out, "heuristic (glpk found no better plan)");
			if (r != MX_MILP_ERROR && isfinite(bound))
				out->bound = window_bound(s, &o, out, order, np, win, nw, hold, bound);
		}
		mx_plan_free(&heur);
	}

	mx_plan_enforce_limits(s, out);
	fill_reasons(s, out);
	free(order);
	free(win);
	free(hold);
	free(guard);
	free(best);
	if (milpcap_ok)
		mx_capacity_free(&milpcap);
	mx_capacity_free(&cap);
	out->solve_ms = mx_wall_ms() - t0;
	return 0;

oom:
	free(order);
	free(win);
	free(hold);
	free(guard);
	free(best);
	if (milpcap_ok)
		mx_capacity_free(&milpcap);
	mx_capacity_free(&cap);
	mx_plan_free(out);
	return -1;
}
