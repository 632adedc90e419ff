/* test_typelp.c — the configuration LP (typelp.c, typeplan.c) in a round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fixtures.h"
#include "stopwatch.h"
#include "typelp.h"

/*
 * One fast GPU (v) and one slow GPU (k). Job 1 is short and gains little
 * from v (100 s on v, 150 s on k); job 2 is long and gains much (300 s on
 * v, 1500 s on k). Earliest completion in shortest-first order gives v to
 * job 1 and makes job 2 wait for it (completions 100 + 400); the LP sees
 * both demands on v and gives k to job 1 (150 + 300), both start now.
 */
static void
speedup_instance(mx_snapshot *s)
{
	int			v,
				k,
				pa,
				pb;

	fx_init(s, NOW);
	v = fx_type(s, "v", 1.0);
	k = fx_type(s, "k", 1.0);
	fx_node(s, "v0", v, 1, MX_NODE_UP);
	fx_node(s, "k0", k, 1, MX_NODE_UP);
	pa = fx_profile(s, "low-gain");
	fx_point(s, pa, v, 1, 3.0);
	fx_point(s, pa, k, 1, 2.0);
	pb = fx_profile(s, "high-gain");
	fx_point(s, pb, v, 1, 5.0);
	fx_point(s, pb, k, 1, 1.0);
	fx_soft(s, 1, v, 1, 1, 1, 0, 100)->profile = pa;
	fx_soft(s, 2, v, 1, 1, 1, 0, 300)->profile = pb;
}

static void
test_configuration_choice(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p,
				h;

	speedup_instance(&s);
	mx_options_default(&o);
	CHECK(o.lp_configs == 1 && o.lp_window == 150, "defaults: configuration LP on, window 150");
	/* job 2, the longest, would be makespan-critical and served first: off here */
	o.critical_margin = -1;
	CHECK(mx_plan_round(&s, &o, &p) == 0, "planned");
	CHECK(strcmp(p.solver, "glpk (lp configurations)") == 0, "solver '%s'", p.solver);
	CHECK(p.a[0].type == 1 && p.a[0].start == NOW && p.a[1].type == 0 && p.a[1].start == NOW,
		  "job 1 on k, job 2 on v, both now (types %d, %d; +%.0f, +%.0f)",
		  p.a[0].type, p.a[1].type, p.a[0].start - NOW, p.a[1].start - NOW);
	CHECK_NEAR(p.a[0].end - NOW + p.a[1].end - NOW, 450, 1e-6, "completions sum to 450 s");
	CHECK_NEAR(p.a[0].utility, 2.0 / 3.0, 1e-9, "the pinned job keeps its real utility (%.3f)", p.a[0].utility);
	CHECK(p.milp_jobs == 2 && p.milp_vars > 0, "2 jobs in the LP, %d columns", p.milp_vars);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "fits");

	/* GLPK off: the heuristic's plan, job 2 waits for v */
	o.use_milp = 0;
	CHECK(mx_plan_round(&s, &o, &h) == 0 && strcmp(h.solver, "heuristic") == 0, "use_milp off: '%s'", h.solver);
	CHECK(h.a[0].type == 0 && h.a[1].type == 0 && h.a[1].start == NOW + 100,
		  "heuristic: both on v, job 2 at +%.0f", h.a[1].start - NOW);
	mx_plan_free(&h);

	/* the start-now MILP (ablation) is still reachable */
	o.use_milp = 1;
	o.lp_configs = 0;
	CHECK(mx_plan_round(&s, &o, &h) == 0 && strstr(h.solver, "lp configurations") == NULL,
		  "lp_configs off: '%s'", h.solver);
	mx_plan_free(&h);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * A wide job and GPU-seconds that are not GPUs. Eight one-GPU v nodes,
 * four busy until +2500 s, and an eight-GPU k node free now; one soft job
 * of 8 GPUs, 1000 s on v and 3000 s on k. Counted in GPU-seconds, v has
 * room for it from about +1500 s (a completion near 2500 s, before k's
 * 3000 s), but its 8 GPUs are free at once only at +2500 (3500 s): the LP
 * must choose k, which starts now.
 */
static void
test_wide_job(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v,
				k,
				prof,
				i;
	char		name[16];

	fx_init(&s, NOW);
	v = fx_type(&s, "v", 1.0);
	k = fx_type(&s, "k", 1.0);
	for (i = 0; i < 8; i++)
	{
		snprintf(name, sizeof(name), "v%d", i);
		fx_node(&s, name, v, 1, MX_NODE_UP);
		if (i < 4)
			fx_part(&s, 100 + i, i, 1, NOW + 2500);
	}
	fx_node(&s, "k0", k, 8, MX_NODE_UP);
	prof = fx_profile(&s, "wide");
	fx_point(&s, prof, v, 8, 3.0);
	fx_point(&s, prof, k, 8, 1.0);
	fx_soft(&s, 1, v, 8, 8, 8, 0, 1000)->profile = prof;
	mx_options_default(&o);
	o.critical_margin = -1;
	CHECK(mx_plan_round(&s, &o, &p) == 0, "wide job: planned");
	CHECK(strcmp(p.solver, "glpk (lp configurations)") == 0, "wide job: solver '%s'", p.solver);
	CHECK(p.a[0].type == k && p.a[0].start == NOW,
		  "wide job: on k now, not on v when 8 are free (type %d, +%.0f)", p.a[0].type, p.a[0].start - NOW);
	CHECK(fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) == 0, "wide job: fits");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* Hard jobs only: nothing to choose, GLPK is not called. */
static void
test_nothing_to_choose(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			a;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_hard(&s, 1, a, 2, 600);
	fx_hard(&s, 2, a, 4, 600);
	mx_options_default(&o);
	CHECK(mx_plan_round(&s, &o, &p) == 0 &&
		  strcmp(p.solver, "heuristic (nothing for glpk to decide)") == 0 && p.milp_vars == 0,
		  "hard jobs only: '%s'", p.solver);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* Test perturbations of a round, switched on and off. */
static void
unperturbed(int on)
{
	(void) on;
}

static void
busy_clock(int on)
{
	/* every wall-clock read finds the clock a second further on */
	mx_stopwatch_test_wall_step_ms = on ? 1000 : 0;
}

static void
false_nofeas(int on)
{
	mx_typelp_test_force_fail = on;
}

/*
 * The simplex in chunks of 10 iterations, resumed from the basis (whole
 * solves of these snapshots take tens to a few hundred, test_start_basis).
 * Not fewer: each call of glp_simplex starts its pricing afresh, and in
 * chunks of 3 the simplex cycled on a degenerate LP of these snapshots
 * (seed 4, from GLPK's standard basis: 727 434 iterations without an
 * optimum, against 69 in one call and 109 in chunks of 10). The planner's
 * chunks are at least TLP_MIN_CHUNK (50) iterations.
 */
static void
small_chunks(int on)
{
	mx_typelp_test_chunk = on ? 10 : 0;
}

/* Small chunks, each taken to use a thousand seconds of CPU. */
static void
slow_chunks(int on)
{
	/* 3: the instance's LP takes 17 iterations, so several chunks */
	mx_typelp_test_chunk = on ? 3 : 0;
	mx_typelp_test_chunk_cpu_ms = on ? 1e6 : 0;
}

/*
 * The first solve taken to have failed, in a chunk said to use a thousand
 * seconds of CPU: it ends on its own (no chunk boundary to check the
 * budget at), and the rescue must not start with the budget spent.
 */
static void
failed_past_budget(int on)
{
	mx_typelp_test_force_fail = on;
	mx_typelp_test_chunk_cpu_ms = on ? 1e6 : 0;
}

static void
one_iteration(int on)
{
	mx_typelp_test_iterations = on;
}

/* An iteration limit of 2 in all, spent in chunks of 1. */
static void
two_iterations_in_chunks(int on)
{
	mx_typelp_test_chunk = on ? 1 : 0;
	mx_typelp_test_iterations = on ? 2 : 0;
}

/* Both solves, unscaled and scaled, taken to have failed. */
static void
two_failures(int on)
{
	mx_typelp_test_force_fail = on ? 2 : 0;
}

static void
glpk_error(int on)
{
	mx_typelp_test_force_error = on;
}

/*
 * Plan nseeds random snapshots with the defaults (budget time_limit_ms),
 * once as they are and once with perturb on: every plan fits, no GLPK
 * error, the same plans and solvers, the LP used in more than a third.
 * Returns the least solve_ms of the perturbed rounds.
 */
static double
same_plans_when(const char *what, void (*perturb)(int), double time_limit_ms, int nseeds)
{
	int			seed,
				viol = 0,
				errors = 0,
				differ = 0,
				used = 0;
	double		least = INFINITY;

	for (seed = 1; seed <= nseeds; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p,
					q;

		fx_random(&s, (uint64_t) seed, 2 + seed % 5, 10 + seed % 70);
		mx_options_default(&o);
		o.time_limit_ms = time_limit_ms;
		CHECK(mx_plan_round(&s, &o, &p) == 0, "%s, seed %d: planned as it is", what, seed);
		perturb(1);
		CHECK(mx_plan_round(&s, &o, &q) == 0, "%s, seed %d: planned", what, seed);
		perturb(0);
		viol += fx_plan_violations(&s, &q, o.overrun_s, o.overrun_factor) != 0;
		errors += strstr(p.solver, "error") != NULL || strstr(q.solver, "error") != NULL;
		differ += !fx_same_assignments(&p, &q) || strcmp(p.solver, q.solver) != 0;
		used += strcmp(q.solver, "glpk (lp configurations)") == 0;
		least = fmin(least, q.solve_ms);
		mx_plan_free(&p);
		mx_plan_free(&q);
		mx_snapshot_free(&s);
	}
	CHECK(viol == 0 && errors == 0, "%s: every plan fits (%d violations), no GLPK error (%d)", what, viol, errors);
	CHECK(differ == 0, "%s: same plans and solvers (%d differ)", what, differ);
	CHECK(used > nseeds / 3, "%s: the LP chose configurations in %d of %d rounds", what, used, nseeds);
	return least;
}

/*
 * Random clusters and queues: planning the same snapshot twice gives the
 * same plan (the simplex iteration limit, not the clock, ends the search).
 */
static void
test_random(void)
{
	same_plans_when("the same snapshot twice", unperturbed, 5000, 60);
}

/*
 * A busy machine: every read of the wall clock finds it a second further
 * on, five times the default 200 ms budget. The LP's budget is CPU time,
 * so the rounds choose as on an idle machine (with a wall-clock budget
 * they all fell back on "glpk time limit").
 */
static void
test_busy_clock(void)
{
	mx_options	o;
	double		least;

	mx_options_default(&o);
	least = same_plans_when("a busy clock", busy_clock, o.time_limit_ms, 20);
	CHECK(least >= 1000, "the busy clock was read (the shortest round took %.0f ms)", least);
}

/*
 * GLPK's unscaled phase 1 can report no feasible solution for an LP that
 * always has one (every job in the catch-all slot): the round solves it
 * again, scaled, and chooses as if the first solve had worked.
 */
static void
test_nofeas_rescue(void)
{
	same_plans_when("a false 'no feasible solution'", false_nofeas, 5000, 20);
}

/*
 * Rounds whose LP fails or falls back: returns how many of nseeds rounds
 * of the snapshots make(seed) did not choose with GLPK (a plan that does
 * not fit counts too).
 */
static int
fallbacks_over(const char *what, void (*make)(mx_snapshot *, int), int nseeds)
{
	int			seed,
				fell = 0;

	for (seed = 1; seed <= nseeds; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;

		make(&s, seed);
		mx_options_default(&o);
		o.time_limit_ms = 5000;
		CHECK(mx_plan_round(&s, &o, &p) == 0, "%s, seed %d: planned", what, seed);
		if (strcmp(p.solver, "glpk (lp configurations)") != 0 ||
			fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) != 0)
		{
			fell++;
			fprintf(stderr, "# %s, seed %d: '%s'\n", what, seed, p.solver);
		}
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	return fell;
}

/* test_random's snapshots with every job a thousand times longer (2.4 h to 83 days). */
static void
long_random(mx_snapshot *s, int seed)
{
	int			i;

	fx_random(s, (uint64_t) seed, 2 + seed % 5, 10 + seed % 70);
	for (i = 0; i < s->njobs; i++)
		s->jobs[i].duration *= 1000;
}

/*
 * The schema's extremes side by side: 192 nodes of 64 GPUs, soft jobs of
 * 1 to 4096 GPUs lasting seconds or the longest duration allowed (366 days).
 */
static void
schema_extremes(mx_snapshot *s, int seed)
{
	int			i;

	fx_seed((uint64_t) seed);
	fx_init(s, NOW);
	fx_type(s, "k80", 1.0);
	fx_type(s, "p100", 3.3);
	fx_type(s, "v100", 4.1);
	for (i = 0; i < 192; i++)
	{
		char		nm[32];

		snprintf(nm, sizeof(nm), "n%d", i);
		fx_node(s, nm, i % 3, 64, MX_NODE_UP);
	}
	for (i = 0; i < 24; i++)
		fx_soft(s, i + 1, -1, 1 << fx_int(0, 12), 1, 4096, 0,
				fx_int(0, 1) ? fx_int(1, 100) : 366 * 86400.0 - fx_int(0, 1000));
}

/*
 * Jobs of weeks put GPU-seconds of 10^8 to 10^11 in the capacity rows
 * beside the job rows' 1: GLPK's unscaled simplex then failed on a
 * singular basis in 173 of 200 such rounds and in 26 of 30 at the
 * schema's extremes. The scaled second solve chooses in every one.
 */
static void
test_long_jobs(void)
{
	int			fell = fallbacks_over("jobs 1000 times longer", long_random, 40);

	CHECK(fell == 0, "jobs of days to weeks: GLPK chooses in every round (%d fell back)", fell);
	fell = fallbacks_over("the schema's extremes", schema_extremes, 6);
	CHECK(fell == 0, "1 s to 366 days, 1 to 4096 GPUs: GLPK chooses in every round (%d fell back)", fell);
}

/*
 * An LP solved in many chunks (10 iterations each, against tens to a few
 * hundred for a whole solve here) chooses as one solved in a single chunk: each chunk
 * starts from the basis the one before left. (That the iteration limit
 * counts every chunk's iterations is test_fallbacks'.)
 */
static void
test_chunks(void)
{
	same_plans_when("the simplex in chunks of 10 iterations", small_chunks, 5000, 20);
}

/*
 * With perturb on for one round the round keeps the heuristic's plan and
 * names solver; the next round (perturb off) uses GLPK again.
 */
static void
falls_back_once(const char *what, void (*perturb)(int), const char *solver)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p,
				h;

	speedup_instance(&s);
	mx_options_default(&o);
	o.critical_margin = -1;
	o.use_milp = 0;
	CHECK(mx_plan_round(&s, &o, &h) == 0, "%s: heuristic reference plan", what);
	o.use_milp = 1;
	perturb(1);
	CHECK(mx_plan_round(&s, &o, &p) == 0, "%s: the round survives", what);
	perturb(0);
	CHECK(strcmp(p.solver, solver) == 0, "%s: solver '%s'", what, p.solver);
	CHECK(fx_same_assignments(&h, &p), "%s: the heuristic's plan is returned", what);
	mx_plan_free(&p);
	CHECK(mx_plan_round(&s, &o, &p) == 0 && strcmp(p.solver, "glpk (lp configurations)") == 0,
		  "%s: next round '%s'", what, p.solver);
	mx_plan_free(&p);
	mx_plan_free(&h);
	mx_snapshot_free(&s);
}

/*
 * An iteration limit that stops both solves before the optimum is named
 * for the iteration limit, not the time limit, also when it is spent in
 * several chunks; a
 * budget that runs out between two chunks keeps the heuristic's plan (a
 * partial solution would depend on where the budget struck), and so does
 * one spent by a first solve that failed, before the rescue starts; a
 * GLPK error is caught; two failed solves (unscaled, scaled) keep it too.
 */
static void
test_fallbacks(void)
{
	falls_back_once("a one-iteration simplex", one_iteration, "heuristic (glpk iteration limit)");
	falls_back_once("two iterations in chunks of one", two_iterations_in_chunks,
					"heuristic (glpk iteration limit)");
	falls_back_once("the CPU budget spent after a chunk", slow_chunks, "heuristic (glpk time limit)");
	falls_back_once("the CPU budget spent by a first solve that failed", failed_past_budget,
					"heuristic (glpk time limit)");
	falls_back_once("a GLPK error", glpk_error, "heuristic (glpk error)");
	falls_back_once("two failed solves", two_failures, "heuristic (glpk numerical failure)");
}


/*
 * Plans a random snapshot (fx_random: 2-6 GPU types, jobs waiting) with
 * the defaults and a budget no round here reaches: what stops a solve is
 * GLPK's outcome, not the clock. Returns mx_plan_round's result.
 */
static int
plan_random(mx_snapshot *s, mx_options *o, mx_plan *p, int seed, int jobs)
{
	fx_random(s, (uint64_t) seed, 2 + seed % 5, jobs);
	mx_options_default(o);
	o->time_limit_ms = 5000;
	return mx_plan_round(s, o, p);
}

/*
 * Small random queues (1-8 jobs, then 10-40) planned with a budget no
 * round reaches: no round ends on the simplex iteration limit. From the
 * starting basis a few degenerate LPs stall past it (seeds 63, 1179 and
 * 3348, 146-325 columns); the round then solves again from GLPK's
 * standard basis.
 */
static void
test_no_stall(void)
{
	int			seed,
				stalled = 0,
				used = 0;

	for (seed = 1; seed <= 5000; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;

		if (plan_random(&s, &o, &p, seed, seed <= 3000 ? 1 + seed % 8 : 10 + seed % 31) != 0)
			stalled++;
		else
		{
			if (strcmp(p.solver, "heuristic (glpk iteration limit)") == 0)
			{
				stalled++;
				fprintf(stderr, "# seed %d: '%s'\n", seed, p.solver);
			}
			used += strcmp(p.solver, "glpk (lp configurations)") == 0;
			mx_plan_free(&p);
		}
		mx_snapshot_free(&s);
	}
	CHECK(stalled == 0, "5000 small random rounds: none ends on the iteration limit or fails (%d did; GLPK chose in %d)",
		  stalled, used);
}

/*
 * The rescue on its own: every first solve is made to fail (a false "no
 * feasible solution"), so each round's plan is the scaled solve's from
 * GLPK's standard basis ("A failed solve", docs/model.md). Every kind of
 * fallback counts, not only the iteration limit's: a form of the LP that
 * GLPK solved less reliably from that basis (per-slot rows with carries,
 * docs/model.md, "The slot rows in GLPK") fell back on 36 of these 1 500
 * rounds, the cumulative rows on none. The bound is generous; the count
 * is printed.
 */
static void
test_rescue_alone(void)
{
	int			seed,
				fell = 0,
				used = 0,
				rounds = 1500;

	for (seed = 1; seed <= rounds; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;

		mx_typelp_test_force_fail = 1;
		if (plan_random(&s, &o, &p, seed, 1 + seed % 60) != 0)
			fell++;
		else
		{
			used += strcmp(p.solver, "glpk (lp configurations)") == 0;
			/* "heuristic" alone, or with nothing to decide, had no LP to solve */
			if (strncmp(p.solver, "heuristic (glpk", 15) == 0 ||
				fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor) != 0)
			{
				fell++;
				fprintf(stderr, "# rescue alone, seed %d: '%s'\n", seed, p.solver);
			}
			mx_plan_free(&p);
		}
		mx_typelp_test_force_fail = 0;
		mx_snapshot_free(&s);
	}
	CHECK(fell * 200 <= rounds && used > rounds * 3 / 4,
		  "%d rounds solved by the rescue alone: %d fell back (at most 0.5 %% allowed), GLPK chose in %d",
		  rounds, fell, used);
}


/*
 * The previous plan is a start and a tie-breaker, not a choice: with job
 * 1's previous plan on v (the heuristic's choice, test_configuration_choice),
 * the LP still gives it k, where it leaves v to the job that gains more.
 */
static void
previous_plan_not_binding(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;

	speedup_instance(&s);
	mx_options_default(&o);
	o.critical_margin = -1;
	s.jobs[0].prev_type = 0;
	s.jobs[0].prev_gpus = 1;
	s.jobs[0].prev_start = s.now;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].type == 1 && p.a[1].type == 0,
		  "a previous plan on the slower choice: job 1 still on k, job 2 on v (types %d, %d)",
		  p.a[0].type, p.a[1].type);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}


/*
 * A plan carried from round to round over an unchanged snapshot does not
 * change: where two configurations tie in the LP, which one an optimal
 * vertex favours depends on the starting basis, and the tie goes to the
 * previous plan's (300 random snapshots, six rounds each).
 */
static void
test_stable_replanning(void)
{
	int			changed = 0,
				rounds = 0;

	for (int seed = 1; seed <= 300; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;

		if (plan_random(&s, &o, &p, seed, 1 + seed % 40) != 0)
		{
			changed++;
			mx_snapshot_free(&s);
			continue;
		}
		for (int r = 0; r < 6; r++)
		{
			mx_plan		q;

			fx_set_previous_plan(&s, &p);
			if (mx_plan_round(&s, &o, &q) != 0)
			{
				changed++;
				break;
			}
			changed += !fx_same_assignments(&p, &q);
			rounds++;
			mx_plan_free(&p);
			p = q;
		}
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	CHECK(changed == 0, "a plan carried over an unchanged snapshot stays as it is (%d of %d plans changed)",
		  changed, rounds);
}

/*
 * A first solve that stops on the iteration limit is solved again from
 * GLPK's standard basis (the rescue): the rounds still choose with GLPK,
 * as without the limit.
 */
static void
first_solve_cut(int on)
{
	mx_typelp_test_first_iterations = on;
}

static void
test_stall_rescue(void)
{
	same_plans_when("the first solve cut at one iteration", first_solve_cut, 5000, 20);
}

int
main(void)
{
	test_configuration_choice();
	test_wide_job();
	test_nothing_to_choose();
	test_random();
	test_busy_clock();
	test_nofeas_rescue();
	test_long_jobs();
	test_chunks();
	test_fallbacks();
	test_no_stall();
	test_rescue_alone();
	test_stall_rescue();
	previous_plan_not_binding();
	test_stable_replanning();
	return unit_done("test_typelp");
}
