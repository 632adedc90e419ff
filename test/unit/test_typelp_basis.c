/*
 * test_typelp_basis.c — the configuration LP's starting bases (typelp.c):
 * from every job in the catch-all slot, from the previous plan and from
 * the heuristic's plan, the simplex reaches the optimum GLPK's standard
 * basis reaches, in fewer iterations (docs/model.md, "Starting basis").
 * Apart from test_typelp.c so that the unit suite runs the two at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fixtures.h"
#include "stopwatch.h"
#include "typelp.h"

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
 * the previous plan (an infeasible start makes it 7 in 2000).
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
			fx_set_previous_plan(&s, &p);
			ra = solve_from(&s, 0, &a);
		}
		tally_warm(&t, size, ra, &a, rb, &b);
		mx_plan_free(&p);
		mx_snapshot_free(&s);
	}
	check_warm(&t, "the previous plan");
	CHECK(t.ties > 0, "the previous plan decided %d ties between configurations", t.ties);
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

int
main(void)
{
	test_start_basis();
	test_previous_plan_basis();
	test_heuristic_hint_basis();
	return unit_done("test_typelp_basis");
}
