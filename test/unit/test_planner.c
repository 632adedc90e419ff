/* test_planner.c — one scheduling round end to end (planner.c). */
#include <time.h>

#include "unit.h"
#include "fixtures.h"

static void
test_options(void)
{
	mx_options	o;
	mx_policy	p;
	int			rc;

	mx_options_default(&o);
	CHECK(o.policy == MX_POLICY_MIXDNN && o.use_milp == 1 && o.time_limit_ms == 200 && o.mip_gap == 0.01 &&
		  o.window_jobs == 20 && o.grid_points == 24 && o.overrun_s == 60 && o.aging_s == 3600 &&
		  o.value_horizon_s == 0, "defaults");
	CHECK(o.starve_factor == 16 && o.critical_margin == 0.05 && o.critical_wait == 0.05 && o.reserve_all == 0,
		  "guard defaults: starve_factor 16, critical_margin 0.05, critical_wait 0.05, reserve_all 0");
	CHECK(o.scaling_alpha > 0.7 && o.scaling_alpha < 0.8, "alpha %.3f", o.scaling_alpha);
	rc = mx_policy_parse("backfill", &p);
	CHECK(rc == 0 && p == MX_POLICY_BACKFILL, "parse backfill");
	rc = mx_policy_parse("fifo", &p);
	CHECK(rc == -1, "unknown policy");
	CHECK(strcmp(mx_policy_name(MX_POLICY_K8S), "k8s") == 0, "name k8s");
	{
		static const char *const cmp[] = {"sjf", "hgreedy", "hsjf", "k8s-any"};
		int			i;

		for (i = 0; i < 4; i++)
		{
			rc = mx_policy_parse(cmp[i], &p);
			CHECK(rc == 0 && (int) p == (int) MX_POLICY_SJF + i && strcmp(mx_policy_name(p), cmp[i]) == 0,
				  "parse and name %s", cmp[i]);
		}
	}
}

/*
 * Every GPU is busy, so no window job can start now: the start-now model
 * has no column, GLPK is not called, and the round says so.
 */
static void
test_nothing_to_decide(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			a, na;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	na = fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_part(&s, 50, na, 4, NOW + 1000);
	fx_hard(&s, 1, a, 2, 600);
	fx_soft(&s, 2, a, 4, 1, 4, 0, 600);
	mx_options_default(&o);
	o.lp_configs = 0;			/* the start-now MILP */
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].start == NOW + 1000 && p.milp_vars == 0,
		  "both wait for the running job (+%.0f), no MILP column (%d)", p.a[0].start - NOW, p.milp_vars);
	CHECK(strcmp(p.solver, "heuristic (nothing for glpk to decide)") == 0, "solver '%s'", p.solver);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
test_reasons(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v100, k80, nv;
	int			rc;

	fx_init(&s, NOW);
	v100 = fx_type(&s, "v100", 4.0);
	k80 = fx_type(&s, "k80", 1.0);
	nv = fx_node(&s, "v0", v100, 8, MX_NODE_UP);
	fx_node(&s, "k0", k80, 8, MX_NODE_DOWN);
	fx_part(&s, 50, nv, 4, NOW + 1800);
	fx_hard(&s, 1, v100, 8, 3600);		/* waits for the running job */
	fx_hard(&s, 2, v100, 4, 600);		/* starts now */
	fx_hard(&s, 3, k80, 2, 600);		/* k80 node down */
	fx_hard(&s, 4, v100, 16, 600);		/* more than the cluster */
	s.jobs[1].submitted = NOW - 10;
	mx_options_default(&o);
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && p.n == 4, "planned");
	CHECK(strcmp(p.policy, "mixdnn") == 0, "policy mixdnn");
	CHECK(p.a[0].job_id == 1 && p.a[3].job_id == 4 && p.a[2].job == 2, "ids and indices");
	CHECK(p.a[1].status == MX_PLANNED && p.a[1].start == NOW, "the 4-GPU job starts now");
	CHECK(p.a[1].reason[0] == '\0', "... with no reason");
	CHECK(p.a[0].status == MX_PLANNED && p.a[0].start == NOW + 1800, "the 8-GPU job waits for +1800");
	/* NOW + 1800 = 1700001800 s since the epoch */
	CHECK(strcmp(p.a[0].reason, "waiting for 8 v100 GPUs, expected free at 2023-11-14 22:43:20 UTC") == 0,
		  "reason '%s'", p.a[0].reason);
	CHECK(p.a[2].status == MX_UNPLANNABLE && strstr(p.a[2].reason, "no up node has a k80") != NULL,
		  "down type: '%s'", p.a[2].reason);
	CHECK(p.a[3].status == MX_UNPLANNABLE &&
		  strcmp(p.a[3].reason, "needs 16 GPUs of type v100, the cluster has 8 up") == 0,
		  "too big: '%s'", p.a[3].reason);
	CHECK(p.solve_ms >= 0 && p.solve_ms < 5000, "solve_ms %.3f", p.solve_ms);
	CHECK(isfinite(p.objective) && p.objective >= p.heuristic_objective, "objective");
	mx_plan_free(&p);

	/* baselines are dispatched */
	o.policy = MX_POLICY_STATIC;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && strcmp(p.policy, "static") == 0, "static policy plan (policy '%s')", p.policy);
	CHECK(p.a[3].status == MX_UNPLANNABLE, "static: too big is unplannable");
	mx_plan_free(&p);

	/* no waiting jobs */
	s.njobs = 0;
	o.policy = MX_POLICY_MIXDNN;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && p.n == 0 && p.objective == 0, "empty round");
	mx_plan_free(&p);
	s.njobs = 4;
	mx_snapshot_free(&s);
}

static void
test_determinism(void)
{
	int			seed, same = 0, compared = 0, viol = 0;

	for (seed = 1; seed <= 10; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p, q;

		fx_random(&s, 77 + seed, 8, 10);
		mx_options_default(&o);
		o.time_limit_ms = 5000;		/* large: the time limit should not decide */
		mx_plan_round(&s, &o, &p);
		mx_plan_round(&s, &o, &q);
		/* only a time limit may make two runs differ */
		if (!strstr(p.solver, "time limit") && !strstr(q.solver, "time limit"))
		{
			compared++;
			if (fx_same_assignments(&p, &q) && strcmp(p.solver, q.solver) == 0 && p.objective == q.objective)
				same++;
		}
		viol += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		mx_plan_free(&p);
		mx_plan_free(&q);
		mx_snapshot_free(&s);
	}
	CHECK(compared >= 5 && same == compared, "same input, same plan (%d of %d solved within the limit)", same,
		  compared);
	CHECK(viol == 0, "plans fit");
}

/* 2000 waiting jobs on 4096 GPUs: the whole round stays fast and correct. */
static void
test_scale(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			rc, i, planned = 0;

	fx_random(&s, 9, 512, 2000);
	mx_options_default(&o);
	rc = mx_plan_round(&s, &o, &p);
	for (i = 0; i < p.n; i++)
		planned += p.a[i].status == MX_PLANNED;
	CHECK(rc == 0 && planned > 1500, "2000 jobs: %d planned", planned);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "fits");
	CHECK(p.solve_ms < 3000, "round took %.0f ms (solver '%s', %d vars)", p.solve_ms, p.solver, p.milp_vars);
	mx_plan_free(&p);

	/*
	 * time_limit_ms bounds the whole round, model building included: with
	 * a 200-job window the model is cut to what 50 ms allow (the planner
	 * before issue #4 built ~200k binaries and took ~1.7 s here). The
	 * bound is wall time, so it leaves room for a loaded machine: 2x the
	 * limit failed at 102 ms on 2 cores shared with six test runs.
	 */
	o.window_jobs = 200;
	o.time_limit_ms = 50;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && p.solve_ms < 10 * o.time_limit_ms, "window 200, 50 ms: the round took %.0f ms ('%s', %d vars)",
		  p.solve_ms, p.solver, p.milp_vars);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "... and fits");
	mx_plan_free(&p);

	/* a huge window with a 1 ms budget: building the model counts, the round stays short */
	o.window_jobs = 2000;
	o.time_limit_ms = 1;
	rc = mx_plan_round(&s, &o, &p);
	CHECK(rc == 0 && strncmp(p.solver, "heuristic", 9) == 0, "window 2000, 1 ms: '%s'", p.solver);
	CHECK(p.solve_ms < 3000, "... took %.0f ms", p.solve_ms);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "... and fits");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_options();
	test_reasons();
	test_nothing_to_decide();
	test_determinism();
	test_scale();
	return unit_done("test_planner");
}
