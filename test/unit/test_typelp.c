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
 * The LP of snapshot s over its whole queue, from the starting basis or
 * from GLPK's standard one (slack); OK or not, its stats in *st.
 */
static mx_typelp_result
solve_hinted(const mx_snapshot *s, int slack, const mx_plan *hint, mx_typelp_stats *st)
{
	mx_options	o;
	mx_capacity cap;
	mx_config  *choice = malloc(((size_t) s->njobs + 1) * sizeof(mx_config));
	int		   *window = malloc(((size_t) s->njobs + 1) * sizeof(int));
	mx_typelp_result r;
	int			i;

	mx_options_default(&o);
	if (choice == NULL || window == NULL || mx_capacity_init(&cap, s, o.overrun_s, o.overrun_factor) != 0)
	{
		free(choice);
		free(window);
		return MX_TYPELP_ERROR;
	}
	for (i = 0; i < s->njobs; i++)
		window[i] = i;
	mx_typelp_test_slack_basis = slack;
	r = mx_typelp_configs(s, &o, &cap, window, s->njobs, hint, mx_thread_cpu_ms() + 60000, choice, st);
	mx_typelp_test_slack_basis = 0;
	mx_capacity_free(&cap);
	free(choice);
	free(window);
	return r;
}

static mx_typelp_result
solve_from(const mx_snapshot *s, int slack, mx_typelp_stats *st)
{
	return solve_hinted(s, slack, NULL, st);
}

/*
 * The starting basis (every job in the catch-all slot) reaches the LP's
 * optimum, the one GLPK's standard basis reaches, in fewer iterations:
 * the random snapshots of test_random, and queues of 150 jobs.
 */
static void
test_start_basis(void)
{
	int			seed,
				differ = 0,
				failed = 0;
	long		its[2][2] = {{0, 0}, {0, 0}};	/* [small, large][start, slack] */
	int			least = 1 << 30,
				most = 0,
				cut = 0;

	for (seed = 1; seed <= 80; seed++)
	{
		mx_snapshot s;
		mx_typelp_stats a,
					b;
		int			large = seed > 60;

		fx_random(&s, (uint64_t) seed, large ? 24 : 2 + seed % 5, large ? 150 : 10 + seed % 70);
		if (solve_from(&s, 0, &a) != MX_TYPELP_OK || solve_from(&s, 1, &b) != MX_TYPELP_OK)
			failed++;
		else
		{
			differ += fabs(a.lp_obj - b.lp_obj) > 1e-7 * fmax(1.0, fabs(b.lp_obj));
			its[large][0] += a.iterations;
			if (!large)
			{
				least = a.iterations < least ? a.iterations : least;
				most = a.iterations > most ? a.iterations : most;
			}
			its[large][1] += b.iterations;
			cut += a.njobs < s.njobs;
		}
		mx_snapshot_free(&s);
	}
	CHECK(failed == 0 && differ == 0, "the starting basis reaches the LP's optimum (%d failed, %d differ)",
		  failed, differ);
	CHECK(its[0][0] < its[0][1],
		  "60 queues of 10-79 jobs: %ld iterations from the starting basis (%d-%d each), %ld from the slack one",
		  its[0][0], least, most, its[0][1]);
	CHECK(its[1][0] < 0.9 * its[1][1], "20 queues of 150 jobs: %ld iterations from the starting basis, %ld from the slack one",
		  its[1][0], its[1][1]);
	CHECK(cut > 0, "the LP stops before 10 000 columns: %d of the 20 windows of 150 jobs cut", cut);
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

/* Every job of s takes its configuration and start in plan p as the previous plan. */
static void
set_previous_plan(mx_snapshot *s, const mx_plan *p)
{
	for (int k = 0; k < p->n; k++)
	{
		const mx_assignment *a = &p->a[k];
		mx_job	   *j = &s->jobs[a->job];

		j->prev_type = a->status == MX_PLANNED ? a->type : -1;
		j->prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
		j->prev_start = a->status == MX_PLANNED ? a->start : 0;
	}
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

/* Warm starts against the catch-all basis, summed over many snapshots. */
typedef struct warm_tally
{
	long		its[3][2];		/* [size class][warm, catch-all] simplex iterations */
	int			differ;			/* LP optima that differ */
	int			failed;			/* warm solves (or rounds) without a solution */
	int			kept;			/* jobs that started from the warm plan */
	int			ties;			/* LP ties the warm plan decided */
	int			rescued[2];		/* first solves repeated: warm, catch-all */
} warm_tally;

/* A tally starts empty, with the starting bases' feasibility counted. */
static void
warm_begin(warm_tally *t)
{
	memset(t, 0, sizeof(*t));
	mx_typelp_test_count_starts = 1;
	mx_typelp_test_infeasible_starts = 0;
}

/* One snapshot's two solves; rb not OK: the snapshot is not counted. */
static void
tally_warm(warm_tally *t, int size, mx_typelp_result ra, const mx_typelp_stats *a,
		   mx_typelp_result rb, const mx_typelp_stats *b)
{
	if (rb != MX_TYPELP_OK)
		return;
	if (ra != MX_TYPELP_OK)
	{
		t->failed++;
		return;
	}
	t->differ += fabs(a->lp_obj - b->lp_obj) > 1e-7 * fmax(1.0, fabs(b->lp_obj));
	t->its[size][0] += a->iterations;
	t->its[size][1] += b->iterations;
	t->kept += a->prev_starts;
	t->ties += a->prev_ties;
	t->rescued[0] += a->rescued;
	t->rescued[1] += b->rescued;
}

/* What every warm start must keep: the optimum, a feasible starting basis. */
static void
check_warm(const warm_tally *t, const char *from)
{
	mx_typelp_test_count_starts = 0;
	CHECK(t->failed == 0 && t->differ == 0, "from %s: the LP's optimum (%d failed, %d differ)",
		  from, t->failed, t->differ);
	CHECK(t->kept > 0 && mx_typelp_test_infeasible_starts == 0,
		  "%d jobs started from %s; %d starting bases infeasible", t->kept, from,
		  mx_typelp_test_infeasible_starts);
}

/*
 * A snapshot whose jobs carry a previous plan (here the round's own plan
 * of the same snapshot, half a minute earlier, a best case): the LP
 * starts from it where it fits and reaches the optimum it reaches without
 * it, in fewer iterations; the random snapshots of test_random, queues of
 * 150 jobs, and 2000 small queues, where the first solve is repeated
 * (a stall, a false "no feasible solution") about as rarely as without
 * the previous plan (an infeasible start made it 7 in 2000).
 */
static void
test_previous_plan_basis(void)
{
	warm_tally	t;

	warm_begin(&t);
	for (int seed = 1; seed <= 2080; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		p;
		mx_typelp_stats a,
					b;
		mx_typelp_result ra = MX_TYPELP_ERROR,
					rb;
		int			size = seed <= 60 ? 0 : seed <= 80 ? 1 : 2;

		fx_random(&s, (uint64_t) seed, size == 1 ? 24 : 2 + seed % 5,
				  size == 1 ? 150 : size == 2 ? 1 + seed % 40 : 10 + seed % 70);
		mx_options_default(&o);
		o.time_limit_ms = 5000;
		s.now -= 30;
		if (mx_plan_round(&s, &o, &p) != 0)
		{
			t.failed++;
			mx_snapshot_free(&s);
			continue;
		}
		s.now += 30;
		rb = solve_from(&s, 0, &b);
		if (rb == MX_TYPELP_OK)
		{
			set_previous_plan(&s, &p);
			ra = solve_from(&s, 0, &a);
		}
		tally_warm(&t, size, ra, &a, rb, &b);
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	check_warm(&t, "the previous plan");
	CHECK(t.ties > 0, "the previous plan decided %d ties between configurations", t.ties);
	previous_plan_not_binding();
	CHECK(t.its[0][0] < 0.8 * t.its[0][1],
		  "60 queues of 10-79 jobs: %ld iterations from the previous plan, %ld without one", t.its[0][0], t.its[0][1]);
	CHECK(t.its[1][0] < 0.8 * t.its[1][1],
		  "20 queues of 150 jobs: %ld iterations from the previous plan, %ld without one", t.its[1][0], t.its[1][1]);
	CHECK(t.its[2][0] < t.its[2][1] && t.rescued[0] <= t.rescued[1] + 2,
		  "2000 small queues: %ld iterations from the previous plan, %ld without; first solves repeated %d and %d times",
		  t.its[2][0], t.its[2][1], t.rescued[0], t.rescued[1]);
}

/*
 * Jobs without a previous plan (the first round of a batch), or whose
 * previous configuration is no longer a candidate (every other small
 * queue), start the simplex from the heuristic's plan of the round: the
 * LP's optimum in fewer iterations, every starting basis feasible, the
 * first solve repeated about as rarely, and no tie decided by the
 * heuristic's plan (only a plan the users have seen breaks ties).
 */
static void
test_heuristic_hint_basis(void)
{
	warm_tally	t;
	int			stale_kept = 0;

	warm_begin(&t);
	for (int seed = 1; seed <= 2020; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		h;
		mx_typelp_stats a,
					b;
		mx_typelp_result ra,
					rb;
		int			size = seed <= 20 ? 0 : 1,
					stale = size == 1 && seed % 2 == 1;

		fx_random(&s, (uint64_t) seed + 7000, size == 0 ? 24 : 2 + seed % 5,
				  size == 0 ? 150 : 1 + seed % 40);
		mx_options_default(&o);
		o.use_milp = 0;
		if (mx_plan_round(&s, &o, &h) != 0)
		{
			t.failed++;
			mx_snapshot_free(&s);
			continue;
		}
		for (int k = 0; stale && k < s.njobs; k++)
		{
			s.jobs[k].prev_type = 0;
			s.jobs[k].prev_gpus = 100000;
			s.jobs[k].prev_start = s.now;
		}
		rb = solve_from(&s, 0, &b);
		ra = rb == MX_TYPELP_OK ? solve_hinted(&s, 0, &h, &a) : rb;
		tally_warm(&t, size, ra, &a, rb, &b);
		stale_kept += stale && ra == MX_TYPELP_OK ? a.prev_starts : 0;
		mx_plan_free(&h);
		mx_snapshot_free(&s);
	}
	check_warm(&t, "the heuristic's plan");
	CHECK(stale_kept > 0 && t.ties == 0,
		  "%d jobs whose previous configuration is gone started from the heuristic's plan; it decided %d ties",
		  stale_kept, t.ties);
	CHECK(t.its[0][0] < 0.8 * t.its[0][1],
		  "20 queues of 150 jobs: %ld iterations from the heuristic's plan, %ld without", t.its[0][0], t.its[0][1]);
	CHECK(t.its[1][0] < t.its[1][1] && t.rescued[0] <= t.rescued[1] + 2,
		  "2000 small queues: %ld iterations from the heuristic's plan, %ld without; first solves repeated %d and %d times",
		  t.its[1][0], t.its[1][1], t.rescued[0], t.rescued[1]);
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

			set_previous_plan(&s, &p);
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
	test_start_basis();
	test_no_stall();
	test_rescue_alone();
	test_stall_rescue();
	test_previous_plan_basis();
	test_heuristic_hint_basis();
	test_stable_replanning();
	return unit_done("test_typelp");
}
