/* test_milp.c — the GLPK model, its fallbacks and its error path (milp.c, planner.c). */
#include "unit.h"
#include "fixtures.h"
#include "capacity.h"
#include "guards.h"
#include "heuristic.h"
#include "passes.h"
#include "value.h"
#include "milp.h"

/*
 * Greedy gives job 1 all 8 GPUs (done at 60) and job 2 waits; 4 + 4 in
 * parallel is better. Job 3 (1000 s on type b, starts now) makes the
 * known makespan bound T = now + 1000, so job 2 is not makespan-critical
 * and the heuristic alone does not find the parallel plan (test_heuristic
 * checks that it does without job 3).
 */
static void
test_beats_greedy(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			a, b, rc;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	b = fx_type(&s, "b", 1.0);
	fx_node(&s, "a0", a, 8, MX_NODE_UP);
	fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_soft(&s, 1, a, 8, 4, 8, (uint64_t) 1 << a, 60);
	fx_hard(&s, 2, a, 4, 100);
	/* job 3 has waited past critical_wait: critical, held, outside the window */
	fx_hard(&s, 3, b, 4, 1000)->submitted = NOW - 100;
	mx_options_default(&o);
	o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
	o.scaling_alpha = 0.5;		/* 4 GPUs: runtime 60 * sqrt 2 = 84.9 */
	o.time_limit_ms = 2000;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0, "planned");
	CHECK(strcmp(p.solver, "glpk") == 0, "solver glpk ('%s')", p.solver);
	CHECK(p.objective > p.heuristic_objective + 1e-9, "MILP objective %.6f > heuristic %.6f",
		  p.objective, p.heuristic_objective);
	CHECK(p.a[0].gpus == 4 && p.a[0].start == NOW && p.a[1].start == NOW,
		  "both start now, 4 GPUs each (%d GPUs; +%.1f, +%.1f)", p.a[0].gpus, p.a[0].start - NOW,
		  p.a[1].start - NOW);
	CHECK(p.bound >= p.objective - 1e-9, "LP bound %.6f >= objective", p.bound);
	CHECK(p.milp_jobs == 2 && p.milp_vars > 0, "2 jobs, %d variables", p.milp_vars);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "fits");
	mx_plan_free(&p);

	/* with the MILP off the heuristic's plan stays */
	o.use_milp = 0;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && strcmp(p.solver, "heuristic") == 0 && p.a[0].gpus == 8 && p.a[1].start == NOW + 60,
		  "use_milp off: heuristic, job 1 on 8 GPUs, job 2 after it ('%s')", p.solver);
	CHECK(isnan(p.bound) && p.milp_vars == 0 && p.milp_jobs == 0, "no bound, no MILP");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
test_random(void)
{
	int			seed, worse = 0, viol = 0, used = 0, better = 0, boundbad = 0, n = 0, infeasible = 0,
				held = 0, moved = 0;
	double		gain = 0;

	for (seed = 1; seed <= 30; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;
		int			rc;

		fx_random(&s, 1000 + seed, 6 + seed % 10, 5 + seed % 25);
		mx_options_default(&o);
		o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
		o.time_limit_ms = 500;
		rc = mx_plan_round(&s, &o, &p);
		if (rc != 0)
		{
			worse++;
			continue;
		}
		n++;
		if (p.objective < p.heuristic_objective - 1e-9 * fabs(p.heuristic_objective))
			worse++;
		if (p.objective > p.heuristic_objective + 1e-9 * fabs(p.heuristic_objective))
		{
			better++;
			gain += (p.objective - p.heuristic_objective) / fabs(p.heuristic_objective);
		}
		if (strncmp(p.solver, "glpk", 4) == 0)
			used++;
		if (!isnan(p.bound) && p.bound < p.objective - 1e-6 * fabs(p.objective))
			boundbad++;
		if (strstr(p.solver, "infeasible"))
			infeasible++;
		viol += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		/* holds (starving jobs' reservations) are where the heuristic put them */
		{
			mx_plan		h;
			unsigned char *g = malloc((size_t) s.njobs);
			int			i;

			o.use_milp = 0;
			mx_plan_round(&s, &o, &h);
			mx_job_guards(&s, &o, g, NULL);
			for (i = 0; i < s.njobs; i++)
				if (g[i] == MX_GUARD_STARVING && h.a[i].status == MX_PLANNED)
				{
					held++;
					if (p.a[i].start != h.a[i].start || p.a[i].type != h.a[i].type || p.a[i].gpus != h.a[i].gpus)
						moved++;
				}
			free(g);
			mx_plan_free(&h);
		}
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	CHECK(infeasible == 0, "no combined plan failed the capacity replay (%d)", infeasible);
	CHECK(held > 20 && moved == 0, "the MILP never moves a starving job's reservation (%d of %d moved)", moved, held);
	CHECK(worse == 0, "objective >= heuristic objective on %d random instances (%d worse)", n, worse);
	CHECK(viol == 0, "MILP plans respect capacity over time (%d violations)", viol);
	CHECK(used > 0, "GLPK's plan used in %d of %d (%d strictly better, mean gain %.4f%%)", used, n, better,
		  better ? 100 * gain / better : 0.0);
	CHECK(boundbad == 0, "bound >= objective where reported");
}

/* The MILP on a window directly: never worse than the incumbent it is given. */
static void
test_window_direct(void)
{
	int			seed, bad = 0, errs = 0;

	for (seed = 1; seed <= 15; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_capacity cap, work;
		mx_plan		p;
		int		   *order;
		int			i, nw, nvars = 0;
		double		bound, hv = 0, mv = 0;
		mx_milp_result r;

		fx_random(&s, 500 + seed, 10, 12);
		mx_options_default(&o);
		o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
		o.reserve_all = 1;		/* the time-grid model: every planned start counts */
		o.time_limit_ms = 1000;
		o.value_horizon_s = 200000;
		order = malloc(sizeof(int) * s.njobs);
		mx_capacity_init(&cap, &s, o.overrun_s, o.overrun_factor);
		mx_capacity_copy(&work, &cap);
		mx_plan_init(&p, s.njobs);
		mx_heuristic_order(&s, &o, order);
		mx_heuristic_plan(&s, &o, &work, order, s.njobs, &p);
		nw = s.njobs;
		for (i = 0; i < nw; i++)
			if (p.a[order[i]].status == MX_PLANNED)
				hv += mx_value(&s, &s.jobs[order[i]], &o, p.a[order[i]].start, p.a[order[i]].end);
		r = mx_milp_plan(&s, &o, &cap, order, nw, &p, &bound, &nvars);
		if (r == MX_MILP_ERROR)
			errs++;
		for (i = 0; i < nw; i++)
			if (p.a[order[i]].status == MX_PLANNED)
				mv += mx_value(&s, &s.jobs[order[i]], &o, p.a[order[i]].start, p.a[order[i]].end);
		if (mv < hv - 1e-9 || (r <= MX_MILP_FEASIBLE && bound < mv - 1e-6))
			bad++;
		/* the window's plan alone must fit the running jobs */
		for (i = 0; i < nw; i++)
			if (p.a[order[i]].status == MX_WAITING)
				p.a[order[i]].status = MX_UNPLANNABLE;
		bad += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		mx_plan_free(&p);
		mx_capacity_free(&work);
		mx_capacity_free(&cap);
		free(order);
		mx_snapshot_free(&s);
	}
	CHECK(errs == 0, "no GLPK errors");
	CHECK(bad == 0, "window value >= incumbent's, bound holds, window plan fits (%d bad)", bad);
}

/*
 * The MILP plans around the holds, whose starts make free capacity fall;
 * such steps stay on the grid however small grid_points is (otherwise the
 * capacity rows, checked at grid points only, miss the fall: with
 * grid_points = 3, 4 of these 200 rounds produced a plan that failed the
 * replay before they were kept).
 */
/*
 * The start-now model (default) on a window directly: jobs the incumbent
 * starts now still start now (perhaps on another configuration); every
 * other job is either started now or left MX_WAITING for the caller; the
 * now-starts' values plus the others' forecasts are at least the
 * incumbent's; the now-starts fit.
 */
static void
test_window_start_now(void)
{
	int			seed, bad = 0, errs = 0, added = 0;

	for (seed = 1; seed <= 30; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_capacity cap, work;
		mx_plan		p, h;
		int		   *order;
		int			i, nw, nvars = 0;
		double		bound, hv = 0, mv = 0;
		mx_milp_result r;

		fx_random(&s, 700 + seed, 10, 14);
		mx_options_default(&o);
		o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
		o.starve_factor = 0;		/* no holds: the window is everything */
		o.critical_margin = -1;
		o.time_limit_ms = 1000;
		o.value_horizon_s = 200000;
		order = malloc(sizeof(int) * s.njobs);
		mx_capacity_init(&cap, &s, o.overrun_s, o.overrun_factor);
		mx_capacity_copy(&work, &cap);
		mx_plan_init(&p, s.njobs);
		mx_plan_init(&h, s.njobs);
		mx_heuristic_order(&s, &o, order);
		mx_heuristic_plan(&s, &o, &work, order, s.njobs, &p);
		memcpy(h.a, p.a, sizeof(mx_assignment) * s.njobs);
		nw = s.njobs;
		for (i = 0; i < nw; i++)
			if (h.a[i].status == MX_PLANNED)
				hv += mx_value(&s, &s.jobs[i], &o, h.a[i].start, h.a[i].end);
		r = mx_milp_plan(&s, &o, &cap, order, nw, &p, &bound, &nvars);
		if (r == MX_MILP_ERROR)
			errs++;
		for (i = 0; i < nw; i++)
		{
			int			hnow = h.a[i].status == MX_PLANNED && h.a[i].start <= NOW;

			if (p.a[i].status == MX_PLANNED && p.a[i].start != NOW && r <= MX_MILP_FEASIBLE &&
				memcmp(&p.a[i], &h.a[i], sizeof(mx_assignment)) != 0)
				bad++;			/* a changed job that does not start now */
			if (hnow && !(p.a[i].status == MX_PLANNED && p.a[i].start <= NOW))
				bad++;			/* a job the incumbent starts now no longer does */
			if (!hnow && p.a[i].status == MX_PLANNED && p.a[i].start <= NOW)
				added++;
			if (p.a[i].status == MX_PLANNED)
				mv += mx_value(&s, &s.jobs[i], &o, p.a[i].start, p.a[i].end);
			else if (h.a[i].status == MX_PLANNED)
				mv += mx_value(&s, &s.jobs[i], &o, h.a[i].start, h.a[i].end);	/* its forecast */
		}
		if (mv < hv - 1e-9 || (r <= MX_MILP_FEASIBLE && bound < mv - 1e-6))
			bad++;
		for (i = 0; i < nw; i++)
			if (p.a[i].status == MX_WAITING)
				p.a[i].status = MX_UNPLANNABLE;
		bad += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		mx_plan_free(&p);
		mx_plan_free(&h);
		mx_capacity_free(&work);
		mx_capacity_free(&cap);
		free(order);
		mx_snapshot_free(&s);
	}
	CHECK(errs == 0, "start-now model: no GLPK errors");
	CHECK(bad == 0, "start-now model: now-starts kept, value >= incumbent's, bound holds, fits (%d bad; %d jobs started now that the heuristic deferred)",
		  bad, added);
}

static void
test_grid_keeps_hold_starts(void)
{
	int			seed, inf = 0, viol = 0;

	for (seed = 1; seed <= 200; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;

		fx_random(&s, 3000 + seed, 6 + seed % 10, 5 + seed % 25);
		mx_options_default(&o);
		o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
		o.time_limit_ms = 500;
		o.grid_points = 3;
		mx_plan_round(&s, &o, &p);
		if (strstr(p.solver, "infeasible"))
			inf++;
		viol += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	CHECK(inf == 0 && viol == 0, "grid 3, 200 rounds with holds: %d infeasible MILP plans, %d violations", inf, viol);
}

static void
test_time_limit_and_error(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		h, p;
	int			rc;

	fx_random(&s, 4242, 30, 120);
	mx_options_default(&o);
	o.lp_configs = 0;		/* the start-now MILP (the configuration LP: test_typelp) */
	o.use_milp = 0;
	rc = mx_plan_round(&s, &o, &h);
	CHECK(rc == 0, "heuristic reference plan");

	/* a tiny time limit: the heuristic plan, and the round says why */
	o.use_milp = 1;
	o.time_limit_ms = 0.001;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0, "planned with a 1 us limit");
	CHECK(strcmp(p.solver, "heuristic (glpk time limit)") == 0, "solver '%s'", p.solver);
	CHECK(fx_same_assignments(&h, &p), "the heuristic's plan is returned unchanged");
	CHECK(p.objective == p.heuristic_objective, "objective = heuristic objective");
	CHECK(p.solve_ms < 1000, "returns promptly (%.1f ms)", p.solve_ms);
	mx_plan_free(&p);

	/* a GLPK error (invalid column index) is caught by the hook */
	mx_milp_test_force_error = 1;
	o.time_limit_ms = 200;
	rc = mx_plan_round(&s, &o, &p);
	mx_milp_test_force_error = 0;
	CHECK(rc == 0, "the round survives a GLPK error");
	CHECK(strcmp(p.solver, "heuristic (glpk error)") == 0, "solver '%s'", p.solver);
	CHECK(fx_same_assignments(&h, &p), "the heuristic's plan is returned");
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "and it fits");
	mx_plan_free(&p);

	/* GLPK works again afterwards (the environment was freed and rebuilt) */
	{
		int			i;

		for (i = 0; i < 3; i++)
		{
			mx_milp_test_force_error = (i == 1);
			rc = mx_plan_round(&s, &o, &p);
			mx_milp_test_force_error = 0;
			if (i != 1)
				CHECK(rc == 0 && strncmp(p.solver, "heuristic (glpk error)", 22) != 0,
					  "round %d after errors: '%s'", i, p.solver);
			else
				CHECK(rc == 0 && strcmp(p.solver, "heuristic (glpk error)") == 0, "error again: '%s'", p.solver);
			mx_plan_free(&p);
		}
	}
	mx_plan_free(&h);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_beats_greedy();
	test_random();
	test_window_direct();
	test_window_start_now();
	test_grid_keeps_hold_starts();
	test_time_limit_and_error();
	return unit_done("test_milp");
}
