/* test_heuristic.c — weights, values, the guards and greedy list scheduling (guards.c, heuristic.c, passes.c). */
#include "unit.h"
#include "fixtures.h"
#include "capacity.h"
#include "guards.h"
#include "heuristic.h"
#include "passes.h"
#include "value.h"

static mx_options
opts_heuristic(void)
{
	mx_options	o;

	mx_options_default(&o);
	o.use_milp = 0;
	return o;
}

static void
test_weight(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_job	   *j;

	fx_init(&s, NOW);
	fx_type(&s, "a", 1.0);
	j = fx_hard(&s, 1, 0, 1, 100);
	CHECK_NEAR(mx_job_weight(&s, j, &o), 1.0, 1e-12, "priority 0, just submitted: 1");
	j->priority = 10;
	CHECK_NEAR(mx_job_weight(&s, j, &o), 2.0, 1e-12, "priority 10: 2");
	j->priority = -20;
	j->submitted = NOW - 2 * o.aging_s;
	CHECK_NEAR(mx_job_weight(&s, j, &o), 0.25 * 3.0, 1e-12, "priority -20, waited 2 aging periods: 0.75");
	j->submitted = NOW + 100;
	j->priority = 0;
	CHECK_NEAR(mx_job_weight(&s, j, &o), 1.0, 1e-12, "submitted in the future: no aging");
	o.value_horizon_s = 1000;
	CHECK_NEAR(mx_value(&s, j, &o, NOW, NOW + 100), 0.9, 1e-12, "value = w (1 - (end - now)/H)");
	CHECK_NEAR(mx_value(&s, j, &o, NOW + 100, NOW + 200) - mx_value(&s, j, &o, NOW, NOW + 100), -0.1, 1e-12,
			   "100 s later costs w * 100/H");
	mx_snapshot_free(&s);
}

/* run the heuristic over all jobs of s */
static int
plan_all(const mx_snapshot *s, const mx_options *o, mx_plan *p)
{
	mx_capacity c;
	int		   *order = malloc(sizeof(int) * (s->njobs + 1));
	int			i;

	if (mx_capacity_init(&c, s, o->overrun_s, o->overrun_factor) < 0 || mx_plan_init(p, s->njobs) < 0)
		return -1;
	for (i = 0; i < s->njobs; i++)
		p->a[i].job_id = s->jobs[i].job_id;
	mx_heuristic_order(s, o, order);
	mx_heuristic_plan(s, o, &c, order, s->njobs, p);
	mx_capacity_free(&c);
	free(order);
	return 0;
}

static void
test_choices(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	int			k80, v100, nk, nv;

	/* soft job whose reference type is busy takes the free faster type */
	fx_init(&s, NOW);
	k80 = fx_type(&s, "k80", 1.0);
	v100 = fx_type(&s, "v100", 4.0);
	nk = fx_node(&s, "k0", k80, 4, MX_NODE_UP);
	nv = fx_node(&s, "v0", v100, 4, MX_NODE_UP);
	fx_part(&s, 99, nk, 4, NOW + 10000);
	fx_soft(&s, 1, k80, 4, 1, 4, 0, 3600);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].status == MX_PLANNED && p.a[0].type == v100 && p.a[0].start == NOW,
		  "soft job: reference k80 busy, starts now on v100");
	CHECK(p.a[0].end < NOW + 10000 + 3600, "... and finishes earlier than waiting for k80");
	CHECK(p.a[0].gpus == 4 && fabs(p.a[0].utility - 4.0) < 1e-9 && fabs(p.a[0].end - NOW - 900) < 1e-6,
		  "... on 4 v100 (utility 4, 900 s: the earliest completion; %d GPUs, utility %.2f)", p.a[0].gpus,
		  p.a[0].utility);
	mx_plan_free(&p);

	/* a hard job never gets another configuration */
	s.jobs[0].cls = MX_HARD;
	s.jobs[0].min_gpus = s.jobs[0].max_gpus = 4;
	s.jobs[0].allowed = (uint64_t) 1 << k80;
	plan_all(&s, &o, &p);
	CHECK(p.a[0].status == MX_PLANNED && p.a[0].type == k80 && p.a[0].gpus == 4,
		  "hard job keeps k80 x4 although v100 is free");
	CHECK(p.a[0].start == NOW + 10000, "hard job starts exactly when its k80 GPUs free (%.3f)",
		  p.a[0].start - NOW);
	CHECK(p.a[0].end == NOW + 10000 + 3600, "... and runs its duration");
	mx_plan_free(&p);

	/* a job that cannot start now is planned exactly at the expected free time */
	s.jobs[0].cls = MX_SOFT;
	s.jobs[0].allowed = 0;
	s.jobs[0].min_gpus = 4;
	fx_part(&s, 98, nv, 3, NOW + 1800);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].type == v100 && p.a[0].gpus == 4 && p.a[0].start == NOW + 1800,
		  "4 v100 busy until +1800: planned at exactly +1800 (type %d, %d GPUs, +%.3f)",
		  p.a[0].type, p.a[0].gpus, p.a[0].start - NOW);
	mx_plan_free(&p);

	/* an overdue job holds its GPUs until now + overrun */
	s.parts[1].expected_end = NOW - 5;
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW + o.overrun_s, "GPUs of an overdue job: planned at now + overrun");
	mx_plan_free(&p);
	/* long overdue: as long again (overrun_factor 1), or the grace alone (0) */
	s.parts[1].expected_end = NOW - 5000;
	plan_all(&s, &o, &p);
	CHECK(o.overrun_factor == 1 && p.a[0].start == NOW + 5000,
		  "5000 s overdue: planned at now + 5000 (+%.1f)", p.a[0].start - NOW);
	mx_plan_free(&p);
	o.overrun_factor = 0;
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW + o.overrun_s, "overrun_factor 0: at now + overrun (+%.1f)", p.a[0].start - NOW);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
test_order_and_ties(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	int			a, b, order[4];

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	b = fx_type(&s, "b", 1.0);
	fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_hard(&s, 1, a, 4, 1000);
	fx_hard(&s, 2, a, 4, 1000)->priority = 10;	/* weight 2 */
	fx_hard(&s, 3, a, 4, 400);
	mx_heuristic_order(&s, &o, order);
	CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0,
		  "order by weight / runtime: 1/400, then 2/1000, then 1/1000 (%d %d %d)", order[0], order[1], order[2]);
	plan_all(&s, &o, &p);
	CHECK(p.a[2].start == NOW && p.a[1].start == NOW + 400 && p.a[0].start == NOW + 1400,
		  "planned back to back in that order");
	mx_plan_free(&p);
	mx_snapshot_free(&s);

	/* equal completion: fewer GPUs, then the previous type, then the lower type */
	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	b = fx_type(&s, "b", 1.0);
	fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_soft(&s, 1, a, 2, 2, 2, 0, 1000);
	o.scaling_alpha = 1.0;
	plan_all(&s, &o, &p);
	CHECK(p.a[0].type == a, "tie between types: lower type index");
	mx_plan_free(&p);
	s.jobs[0].prev_type = b;
	plan_all(&s, &o, &p);
	CHECK(p.a[0].type == b, "tie between types: the previous plan's type");
	mx_plan_free(&p);
	s.jobs[0].min_gpus = 1;
	s.jobs[0].max_gpus = 4;
	o.scaling_alpha = 0.0;		/* more GPUs give nothing */
	plan_all(&s, &o, &p);
	CHECK(p.a[0].gpus == 1, "no speed-up from more GPUs: fewest GPUs (%d)", p.a[0].gpus);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Makespan-critical guard: job 2 (4 GPUs, 100 s, waiting for 10 s) is as
 * long as the known makespan bound T = now + 100, so it is served first and
 * starts now; the soft job 1 then takes 4 of the 8 GPUs (84.9 s at alpha
 * 0.5) instead of all 8 (60 s) — both start now. Without the guard
 * (critical_margin < 0) greedy gives job 1 all 8 GPUs and job 2 waits for
 * them.
 */
static void
test_guard_critical(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[2];
	int			a;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	fx_node(&s, "a0", a, 8, MX_NODE_UP);
	fx_soft(&s, 1, a, 8, 4, 8, 0, 60);
	fx_hard(&s, 2, a, 4, 100)->submitted = NOW - 10;
	o.scaling_alpha = 0.5;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_NONE && g[1] == MX_GUARD_CRITICAL,
		  "job 2 is critical, job 1 is not (%d %d)", g[0], g[1]);
	plan_all(&s, &o, &p);
	CHECK(p.a[1].start == NOW && p.a[0].start == NOW && p.a[0].gpus == 4,
		  "critical job 2 starts now, job 1 on 4 GPUs beside it (+%.0f, +%.0f, %d GPUs)",
		  p.a[1].start - NOW, p.a[0].start - NOW, p.a[0].gpus);
	mx_plan_free(&p);
	o.critical_margin = -1;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_NONE, "critical_margin < 0: no guard");
	plan_all(&s, &o, &p);
	CHECK(p.a[0].gpus == 8 && p.a[0].start == NOW && p.a[1].start == NOW + 60,
		  "without the guard: job 1 on 8 GPUs, job 2 after it (+%.0f)", p.a[1].start - NOW);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * critical_trade (lambda, default 3): a critical job is served first only
 * when that gains more makespan than it costs the other jobs in
 * completion time (both as shares of the round's forecast). Job 20 (8
 * GPUs, 1000 s, waited 100 s) sets T alone and is critical; ten 10 s jobs
 * of one GPU wait for the same 8 GPUs. Served first, it holds all ten back
 * for 1000 s (they end by +1020); after them it starts at +20 and ends at
 * +1020: no makespan gained for eight times their flow time, so it yields.
 * Lambda 0 serves it first as before; in test_guard_critical serving
 * first gains on both counts and still happens.
 */
static void
test_guard_critical_trade(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[11];
	int			a;

	CHECK(o.critical_trade == 3, "critical_trade defaults to 3 (%g)", o.critical_trade);
	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	fx_node(&s, "a0", a, 8, MX_NODE_UP);
	for (int i = 0; i < 10; i++)
		fx_hard(&s, 1 + i, a, 1, 10);
	fx_hard(&s, 20, a, 8, 1000)->submitted = NOW - 100;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[10] == MX_GUARD_CRITICAL && g[0] == MX_GUARD_NONE,
		  "job 20 is critical, the short jobs are not (%d %d)", g[10], g[0]);
	plan_all(&s, &o, &p);
	CHECK(p.a[10].start == NOW + 20 && p.a[0].start == NOW && p.a[9].start == NOW + 10,
		  "lambda 3: the short jobs first, job 20 after them (+%.0f; +%.0f, +%.0f)",
		  p.a[10].start - NOW, p.a[0].start - NOW, p.a[9].start - NOW);
	mx_plan_free(&p);
	o.critical_trade = 0;
	plan_all(&s, &o, &p);
	CHECK(p.a[10].start == NOW && p.a[0].start == NOW + 1000,
		  "lambda 0: job 20 first (+%.0f), the short jobs after it (+%.0f)",
		  p.a[10].start - NOW, p.a[0].start - NOW);
	mx_plan_free(&p);
	/* a running part that ends last anyway: no makespan to gain, so job 20 yields at any lambda > 0 */
	o.critical_trade = 0.001;
	fx_node(&s, "a1", a, 8, MX_NODE_UP);
	fx_part(&s, 99, 1, 8, NOW + 5000);
	plan_all(&s, &o, &p);
	CHECK(p.a[10].start == NOW + 20, "a part running to +5000: job 20 yields (+%.0f)", p.a[10].start - NOW);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * The trade's makespan counts what is already placed: critical job 2
 * (8 GPUs of a, 2900 s) is weighed after critical job 1 (8 GPUs of a,
 * 3000 s) was served first, so the makespan ends at +3000 whatever job 2
 * does. Served first, job 2 would send the four short soft jobs (100 s)
 * to type b, busy until +50; after them it starts at +100 and still ends
 * before job 1. No gain: job 2 yields (counting only the jobs of its own
 * trial, it gained 100 s and was served first).
 */
static void
test_guard_critical_trade_placed(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	int			a,
				b;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	b = fx_type(&s, "b", 1.0);
	fx_node(&s, "a0", a, 16, MX_NODE_UP);
	fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_part(&s, 99, 1, 4, NOW + 50);
	fx_hard(&s, 1, a, 8, 3000)->submitted = NOW - 200;
	fx_hard(&s, 2, a, 8, 2900)->submitted = NOW - 200;
	for (int i = 0; i < 4; i++)
		fx_soft(&s, 10 + i, a, 1, 1, 1, (1u << a) | (1u << b), 100);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW && p.a[1].start == NOW + 100 && p.a[2].start == NOW && p.a[2].type == a,
		  "job 1 now, the short jobs now on a, job 2 after them (+%.0f, +%.0f on %d, +%.0f)",
		  p.a[0].start - NOW, p.a[2].start - NOW, p.a[2].type, p.a[1].start - NOW);
	mx_plan_free(&p);
	o.critical_trade = 0;
	plan_all(&s, &o, &p);
	CHECK(p.a[1].start == NOW && p.a[2].type == b,
		  "lambda 0: job 2 now, the short jobs on b (+%.0f, type %d)", p.a[1].start - NOW, p.a[2].type);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * The trade's budget (four trials a round) counts only critical jobs that
 * fit now: jobs 1-4 (8 GPUs, 3000 s, each on a type busy until +100) are
 * critical but cannot start, so job 5 (8 GPUs of type e, 2990 s) still
 * gets its trial and yields to the ten short jobs on e, as it would alone
 * (the makespan, +3100, is set by jobs 1-4 either way).
 */
static void
test_guard_critical_trade_budget(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[15];
	int			e;

	fx_init(&s, NOW);
	for (int k = 0; k < 4; k++)
	{
		char		name[8] = {'t', (char) ('0' + k), 0};
		int			t = fx_type(&s, name, 1.0);

		fx_node(&s, name, t, 8, MX_NODE_UP);
		fx_part(&s, 90 + k, k, 8, NOW + 100);
		fx_hard(&s, 1 + k, t, 8, 3000)->submitted = NOW - 200;
	}
	e = fx_type(&s, "e", 1.0);
	fx_node(&s, "e0", e, 8, MX_NODE_UP);
	fx_hard(&s, 5, e, 8, 2990)->submitted = NOW - 200;
	for (int i = 0; i < 10; i++)
		fx_hard(&s, 10 + i, e, 1, 10);
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_CRITICAL && g[3] == MX_GUARD_CRITICAL &&
		  g[4] == MX_GUARD_CRITICAL && g[5] == MX_GUARD_NONE,
		  "jobs 1-5 critical, the short jobs not (%d %d %d %d)", g[0], g[3], g[4], g[5]);
	plan_all(&s, &o, &p);
	CHECK(p.a[4].start == NOW + 20 && p.a[5].start == NOW && p.a[0].start == NOW + 100,
		  "job 5 yields after four critical jobs that do not fit (+%.0f; short +%.0f, job 1 +%.0f)",
		  p.a[4].start - NOW, p.a[5].start - NOW, p.a[0].start - NOW);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * critical_wait (kappa, default 0.05): the job of test_guard_critical
 * (100 s) is critical only once it has waited kappa x 100 s = 5 s, so a
 * long job that has just arrived lets the short job beside it take the GPUs
 * it wants first; kappa 0 makes it critical on arrival.
 */
static void
test_guard_critical_wait(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[2];
	int			a;
	mx_job	   *j2;

	CHECK(o.critical_wait == 0.05, "critical_wait defaults to 0.05 (%g)", o.critical_wait);
	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	fx_node(&s, "a0", a, 8, MX_NODE_UP);
	fx_soft(&s, 1, a, 8, 4, 8, 0, 60);
	j2 = fx_hard(&s, 2, a, 4, 100);
	o.scaling_alpha = 0.5;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_NONE, "just arrived: not critical (%d)", g[1]);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].gpus == 8 && p.a[0].start == NOW && p.a[1].start == NOW + 60,
		  "just arrived: job 1 on 8 GPUs, job 2 after it (+%.0f)", p.a[1].start - NOW);
	mx_plan_free(&p);
	j2->submitted = NOW - 4.9;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_NONE, "waited 4.9 s < 5 s: not critical (%d)", g[1]);
	j2->submitted = NOW - 5;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_CRITICAL, "waited 5 s: critical (%d)", g[1]);
	j2->submitted = NOW;
	o.critical_wait = 0;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_CRITICAL, "kappa 0: critical on arrival (%d)", g[1]);
	o.critical_wait = 0.05;
	o.drain_margin = 0.1;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_NONE, "kappa holds back draining too (%d)", g[1]);
	j2->submitted = NOW - 5;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_DRAIN, "waited 5 s: draining (%d)", g[1]);
	o.drain_margin = -1;
	/* the wait does not hold back starving: waited 5 x r >= X r, but < kappa r */
	o.critical_wait = 10;
	o.starve_factor = 4;
	j2->submitted = NOW - 500;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_STARVING, "starving before the wait ends (%d)", g[1]);
	/* a submission time ahead of now: held back by a wait, not with kappa 0 */
	o.starve_factor = 16;
	o.critical_wait = 0.05;
	j2->submitted = NOW + 100;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_NONE, "submitted ahead of now, kappa 0.05: not critical (%d)", g[1]);
	o.critical_wait = 0;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[1] == MX_GUARD_CRITICAL, "submitted ahead of now, kappa 0: critical (%d)", g[1]);
	mx_snapshot_free(&s);
}

/*
 * Drain guard. Type a has 4 GPUs, 2 busy until +1000. L needs all 4 for
 * 20000 s; N needs 2 for 1500 s and fits now. T = now + (2 x 1000 + 4 x
 * 20000 + 2 x 1500) / 4 = now + 21250, so with margins of 0.1 L's slack
 * T - r_L = 1250 s is below 0.1 x r_L:
 *  - drain_margin < 0: L is critical, cannot start now, holds nothing; N
 *    starts now and L is planned at +1500, when N ends;
 *  - drain_margin 0.1: L drains: reserved at +1000, and N, which would
 *    overlap it, waits until L ends.
 */
static void
test_guard_drain(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[2];
	int			a, na;

	o.critical_margin = 0.1;
	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	na = fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_part(&s, 90, na, 2, NOW + 1000);
	fx_hard(&s, 1, a, 4, 20000)->submitted = NOW - 1500;	/* L, waiting past kappa r */
	fx_hard(&s, 2, a, 2, 1500);		/* N */
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_CRITICAL && g[1] == MX_GUARD_NONE,
		  "drain off: L critical, N unguarded (%d %d)", g[0], g[1]);
	plan_all(&s, &o, &p);
	CHECK(p.a[1].start == NOW && p.a[0].start == NOW + 1500,
		  "drain off: N starts now, L when N ends (+%.0f, +%.0f)", p.a[1].start - NOW, p.a[0].start - NOW);
	mx_plan_free(&p);

	o.drain_margin = 0.1;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_DRAIN && g[1] == MX_GUARD_NONE,
		  "drain_margin 0.1: L drains (%d %d)", g[0], g[1]);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW + 1000 && p.a[1].start == NOW + 21000,
		  "L reserved at +1000, N after it (+%.0f, +%.0f)", p.a[0].start - NOW, p.a[1].start - NOW);
	mx_plan_free(&p);

	o.drain_margin = 0.0;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_CRITICAL,
		  "drain_margin 0: slack 1250 s > 0, L only critical (%d)", g[0]);
	mx_snapshot_free(&s);
}

/*
 * Who holds GPUs. Type a has 4 GPUs, 2 busy until +1000. W needs all 4 for
 * 100 s; N needs 2 for 1500 s and fits now. L (10000 s on type b, waiting
 * for 600 s) makes
 * T = now + 10000, so neither W nor N is critical.
 *  - W not starving: it holds nothing; N starts now; W is planned when
 *    its GPUs free, at +1500 (N's end).
 *  - W starving (waited 500 s >= X x 100 s, X = 4 here): W is reserved at +1000;
 *    N would overlap that reservation, so N is planned after W.
 *  - reserve_all (the planner before issue #4): W reserves in its turn
 *    (it is first in order), N waits as in the starving case.
 */
static void
test_guard_starving(void)
{
	mx_snapshot s;
	mx_options	o = opts_heuristic();
	mx_plan		p;
	unsigned char g[3];
	double		best[3];
	int			a, b, na;

	o.starve_factor = 4;		/* W's wait is compared with 4 x its run time */
	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	b = fx_type(&s, "b", 1.0);
	na = fx_node(&s, "a0", a, 4, MX_NODE_UP);
	fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_part(&s, 90, na, 2, NOW + 1000);
	fx_hard(&s, 1, a, 4, 100)->submitted = NOW - 300;	/* W */
	fx_hard(&s, 2, a, 2, 1500);		/* N */
	fx_hard(&s, 3, b, 4, 10000)->submitted = NOW - 600;	/* L, waiting past kappa r */
	CHECK(mx_job_guards(&s, &o, g, best) == 0 && g[0] == MX_GUARD_NONE && g[1] == MX_GUARD_NONE &&
		  g[2] == MX_GUARD_CRITICAL, "W waited 3 x its run time: no guard; L critical (%d %d %d)", g[0], g[1], g[2]);
	plan_all(&s, &o, &p);
	CHECK(p.a[1].start == NOW && p.a[0].start == NOW + 1500 && p.a[2].start == NOW,
		  "W holds nothing: N starts now, W planned when N's GPUs free (+%.0f, +%.0f)",
		  p.a[1].start - NOW, p.a[0].start - NOW);
	mx_plan_free(&p);

	s.jobs[0].submitted = NOW - 500;
	CHECK(mx_job_guards(&s, &o, g, best) == 0 && g[0] == MX_GUARD_STARVING && fabs(best[0] - 100) < 1e-6,
		  "W waited 5 x its best run time (%d, %.0f s): starving", g[0], best[0]);
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW + 1000 && p.a[1].start == NOW + 1100,
		  "W starving: reserved at +1000, N after it (+%.0f, +%.0f)", p.a[0].start - NOW, p.a[1].start - NOW);
	mx_plan_free(&p);

	/* the MILP plans around the reservation and never moves it */
	{
		mx_options	om;

		mx_options_default(&om);
		om.starve_factor = 4;
		om.time_limit_ms = 2000;
		mx_plan_round(&s, &om, &p);
		CHECK(p.a[0].start == NOW + 1000 && fx_plan_violations(&s, &p, om.overrun_s, om.overrun_factor) == 0,
			  "with the MILP ('%s'): W still at +1000 (+%.0f)", p.solver, p.a[0].start - NOW);
		mx_plan_free(&p);
	}

	s.jobs[0].submitted = NOW - 300;
	o.reserve_all = 1;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[2] == MX_GUARD_NONE, "reserve_all: no guards");
	plan_all(&s, &o, &p);
	CHECK(p.a[0].start == NOW + 1000 && p.a[1].start == NOW + 1100,
		  "reserve_all: W reserves in its turn, N after it (+%.0f, +%.0f)", p.a[0].start - NOW,
		  p.a[1].start - NOW);
	mx_plan_free(&p);

	o.reserve_all = 0;
	o.starve_factor = 0;
	s.jobs[0].submitted = NOW - 1e6;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_NONE, "starve_factor 0: never starving");
	mx_snapshot_free(&s);
}

static void
test_random_invariant(void)
{
	int			seed, bad = 0, planned = 0, unpl = 0, nondet = 0;
	mx_options	o = opts_heuristic();

	for (seed = 1; seed <= 40; seed++)
	{
		mx_snapshot s;
		mx_plan		p, q;
		int			i;

		fx_random(&s, seed, 4 + seed % 20, 10 + seed * 5);
		plan_all(&s, &o, &p);
		plan_all(&s, &o, &q);
		bad += fx_plan_violations(&s, &p, o.overrun_s, o.overrun_factor);
		if (!fx_same_assignments(&p, &q))
			nondet++;
		for (i = 0; i < p.n; i++)
		{
			if (p.a[i].status == MX_PLANNED)
				planned++;
			else if (p.a[i].status == MX_UNPLANNABLE && p.a[i].reason[0])
				unpl++;
			else
				bad++;
		}
		mx_plan_free(&p);
		mx_plan_free(&q);
		mx_snapshot_free(&s);
	}
	CHECK(bad == 0, "40 random instances: no capacity violation over time (%d)", bad);
	CHECK(planned > 1000 && unpl > 0, "every job planned (%d) or unplannable with a reason (%d)", planned, unpl);
	CHECK(nondet == 0, "deterministic");
}

/* The guards' bound T counts an overdue part by the overrun rule (overrun.h). */
static void
test_guard_overdue(void)
{
	mx_snapshot s;
	mx_options	o;
	unsigned char g[1];
	int			t,
				n0;

	fx_init(&s, NOW);
	mx_options_default(&o);
	o.critical_wait = 0;
	t = fx_type(&s, "v100", 1.0);
	n0 = fx_node(&s, "n0", t, 4, MX_NODE_UP);
	fx_node(&s, "n1", t, 4, MX_NODE_UP);
	fx_part(&s, 1, n0, 4, NOW - 100000);
	fx_hard(&s, 10, t, 4, 3600);
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_NONE,
		  "a part 100000 s overdue: T = now + 100000 s, a 1 h job is not critical (guard %d)", g[0]);
	o.overrun_factor = 0;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] != MX_GUARD_NONE,
		  "overrun_factor 0: T = now + 1 h, the job is critical (guard %d)", g[0]);
	mx_snapshot_free(&s);
}

/*
 * T counts the latest end of a running part even where the work bounds do
 * not: one GPU of 64 busy for 100000 s spreads to about 1600 s over the
 * cluster, so without the part's end T would be now + 1 h (the job's own
 * run time) and the 1 h job critical.
 */
static void
test_guard_bound_part_end(void)
{
	mx_snapshot s;
	mx_options	o;
	unsigned char g[1];
	int			t,
				n0,
				i;
	char		name[16];

	fx_init(&s, NOW);
	mx_options_default(&o);
	o.critical_wait = 0;
	t = fx_type(&s, "v100", 1.0);
	n0 = fx_node(&s, "n0", t, 8, MX_NODE_UP);
	for (i = 1; i < 8; i++)
	{
		snprintf(name, sizeof(name), "n%d", i);
		fx_node(&s, name, t, 8, MX_NODE_UP);
	}
	fx_part(&s, 1, n0, 1, NOW + 100000);
	fx_hard(&s, 10, t, 1, 3600);
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_NONE,
		  "a 1-GPU part running until +100000 s: T = now + 100000 s, a 1 h job is not critical (guard %d)", g[0]);
	s.parts[0].expected_end = NOW + 1000;
	CHECK(mx_job_guards(&s, &o, g, NULL) == 0 && g[0] == MX_GUARD_CRITICAL,
		  "the part ends at +1000 s: T = now + 1 h, the job is critical (guard %d)", g[0]);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_weight();
	test_guard_overdue();
	test_guard_bound_part_end();
	test_choices();
	test_order_and_ties();
	test_guard_critical();
	test_guard_critical_wait();
	test_guard_critical_trade();
	test_guard_critical_trade_placed();
	test_guard_critical_trade_budget();
	test_guard_drain();
	test_guard_starving();
	test_random_invariant();
	return unit_done("test_heuristic");
}
