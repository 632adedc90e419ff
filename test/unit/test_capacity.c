/* test_capacity.c — the step functions of free GPUs over time (capacity.c). */
#include "unit.h"
#include "fixtures.h"
#include "capacity.h"
#include "options.h"
#include "overrun.h"

static void
test_init(void)
{
	mx_snapshot s;
	mx_capacity c;
	int			a, b, n0, n1, n2, n3, n4;

	fx_init(&s, NOW);
	a = fx_type(&s, "v100", 2.0);
	b = fx_type(&s, "k80", 1.0);
	n0 = fx_node(&s, "a0", a, 8, MX_NODE_UP);
	n1 = fx_node(&s, "a1", a, 8, MX_NODE_UP);
	n2 = fx_node(&s, "a2", a, 8, MX_NODE_DOWN);
	n3 = fx_node(&s, "a3", a, 8, MX_NODE_DRAINING);
	n4 = fx_node(&s, "b0", b, 4, MX_NODE_UP);
	fx_part(&s, 1, n0, 4, NOW + 100);
	fx_part(&s, 2, n1, 8, NOW + 300);
	fx_part(&s, 3, n3, 8, NOW + 1000);	/* draining: gives no capacity at all */
	fx_part(&s, 4, n4, 2, NOW - 50);	/* overdue: busy until now + overrun */
	(void) n2;

	{ int rc = mx_capacity_init(&c, &s, 60, 0); CHECK(rc == 0, "init"); }
	CHECK(c.total[a] == 16, "total counts only up nodes (got %d)", c.total[a]);
	CHECK(c.total[b] == 4, "total of k80");
	CHECK(c.steps[a][0].t == NOW, "first step at now");
	CHECK(mx_capacity_free_at(&c, a, NOW) == 4, "free v100 now = 4 (got %d)", mx_capacity_free_at(&c, a, NOW));
	CHECK(mx_capacity_free_at(&c, a, NOW + 99.9) == 4, "still 4 just before the first end");
	CHECK(mx_capacity_free_at(&c, a, NOW + 100) == 8, "8 at the first end");
	CHECK(mx_capacity_free_at(&c, a, NOW + 300) == 16, "16 when both end");
	CHECK(mx_capacity_free_at(&c, a, NOW + 5000) == 16, "never more than the total");
	CHECK(c.nsteps[a] == 3, "three steps (got %d)", c.nsteps[a]);
	CHECK(mx_capacity_free_at(&c, b, NOW) == 2, "overdue part holds its GPUs now");
	CHECK(mx_capacity_free_at(&c, b, NOW + 59) == 2, "... until now + overrun");
	CHECK(mx_capacity_free_at(&c, b, NOW + 60) == 4, "freed at now + overrun");

	CHECK(mx_capacity_earliest(&c, a, 4, 1000, NOW) == NOW, "4 GPUs fit now");
	CHECK(mx_capacity_earliest(&c, a, 6, 50, NOW) == NOW + 100, "6 GPUs at the first end");
	CHECK(mx_capacity_earliest(&c, a, 16, 50, NOW) == NOW + 300, "16 GPUs when all is free");
	CHECK(isinf(mx_capacity_earliest(&c, a, 17, 50, NOW)), "17 GPUs never");
	CHECK(mx_capacity_earliest(&c, a, 4, 10, NOW + 42) == NOW + 42, "from is respected");
	CHECK(mx_capacity_earliest(&c, a, 4, 10, NOW - 500) == NOW, "from before now is now");

	/* reservations */
	{ int rc = mx_capacity_reserve(&c, a, 4, NOW, 200); CHECK(rc == 0, "reserve 4 on [0,200)"); }
	CHECK(mx_capacity_free_at(&c, a, NOW) == 0, "none free now");
	CHECK(mx_capacity_free_at(&c, a, NOW + 100) == 4, "4 free at 100");
	CHECK(mx_capacity_free_at(&c, a, NOW + 200) == 8, "8 free at 200");
	CHECK(mx_capacity_earliest(&c, a, 4, 10, NOW) == NOW + 100, "4 GPUs next at 100");
	{ int rc = mx_capacity_reserve(&c, a, 1, NOW + 50, 10); CHECK(rc == -1, "over-reservation refused"); }
	CHECK(mx_capacity_free_at(&c, a, NOW + 50) == 0 && mx_capacity_free_at(&c, a, NOW + 100) == 4,
		  "refused reservation changed nothing");
	{ int rc = mx_capacity_reserve(&c, a, 16, NOW + 400, 100); CHECK(rc == 0, "reserve all on [400,500)"); }
	CHECK(mx_capacity_earliest(&c, a, 16, 100, NOW) == NOW + 300, "16 for 100 s fits the gap [300,400)");
	CHECK(mx_capacity_earliest(&c, a, 16, 101, NOW) == NOW + 500, "16 for 101 s only after 500");
	CHECK(mx_capacity_earliest(&c, a, 8, 50, NOW + 350) == NOW + 350, "a window inside the gap");
	CHECK(mx_capacity_earliest(&c, a, 8, 60, NOW + 350) == NOW + 500, "too long for the rest of the gap");

	/* a release gives back exactly what its reservation took, steps merged */
	{
		int			n0 = c.nsteps[a];
		int			rc = mx_capacity_release(&c, a, 16, NOW + 400, 100);

		CHECK(rc == 0 && mx_capacity_free_at(&c, a, NOW + 450) == 16 && c.nsteps[a] == n0 - 2,
			  "release [400,500): 16 free, %d steps (before %d)", c.nsteps[a], n0);
		rc = mx_capacity_release(&c, a, 1, NOW + 300, 10);
		CHECK(rc == -1 && mx_capacity_free_at(&c, a, NOW + 305) == 16, "no release above the total");
		rc = mx_capacity_release(&c, a, 13, NOW + 50, 100);	/* 4 + 13 > 16 at 100 */
		CHECK(rc == -1 && mx_capacity_free_at(&c, a, NOW + 50) == 0 && mx_capacity_free_at(&c, a, NOW + 120) == 4,
			  "a refused release changed nothing");
		rc = mx_capacity_reserve(&c, a, 16, NOW + 400, 100);
		CHECK(rc == 0 && c.nsteps[a] == n0, "reserved again: %d steps", c.nsteps[a]);
	}

	{
		mx_capacity d;

		{ int rc = mx_capacity_copy(&d, &c); CHECK(rc == 0, "copy"); }
		{ int rc = mx_capacity_reserve(&d, b, 4, NOW + 60, 10); CHECK(rc == 0, "reserve in the copy"); }
		CHECK(mx_capacity_free_at(&c, b, NOW + 65) == 4, "the original is unchanged");
		CHECK(mx_capacity_free_at(&d, b, NOW + 65) == 0, "the copy changed");
		mx_capacity_free(&d);
	}
	mx_capacity_free(&c);
	mx_snapshot_free(&s);
}

/* Unexplained busy bits and parts that oversubscribe a node are clamped. */
static void
test_inconsistent(void)
{
	mx_snapshot s;
	mx_capacity c;
	int			a, n0;

	fx_init(&s, NOW);
	a = fx_type(&s, "a", 1.0);
	n0 = fx_node(&s, "n0", a, 4, MX_NODE_UP);
	s.nodes[n0].busy = 0x3;		/* 2 busy GPUs, no part */
	{ int rc = mx_capacity_init(&c, &s, 30, 0); CHECK(rc == 0, "init"); }
	CHECK(mx_capacity_free_at(&c, a, NOW) == 2, "busy bits without a part count (got %d)",
		  mx_capacity_free_at(&c, a, NOW));
	CHECK(mx_capacity_free_at(&c, a, NOW + 30) == 4, "... until now + overrun");
	mx_capacity_free(&c);

	s.nodes[n0].busy = 0;
	fx_part(&s, 1, n0, 3, NOW + 10);
	fx_part(&s, 2, n0, 3, NOW + 20);	/* inconsistent: 6 > 4 */
	{ int rc = mx_capacity_init(&c, &s, 30, 0); CHECK(rc == 0, "init"); }
	CHECK(mx_capacity_free_at(&c, a, NOW) == 0, "oversubscribed node gives 0, not negative");
	CHECK(mx_capacity_free_at(&c, a, NOW + 10) == 1, "1 free after the first part");
	CHECK(mx_capacity_free_at(&c, a, NOW + 20) == 4, "all free after both");
	mx_capacity_free(&c);
	mx_snapshot_free(&s);
}

/* Random reservations against a brute-force array over integer times. */
static void
test_random(void)
{
	enum { T = 400 };
	mx_snapshot s;
	mx_capacity c;
	int			freev[T + 200];
	int			a, i, t, bad_free = 0, bad_earliest = 0, bad_reserve = 0, bad_release = 0, bad_seconds = 0, maxsteps = 0;
	int			res[3000][3],	/* start, GPUs, length of the reservations still held */
				nres = 0;

	fx_seed(7);
	fx_init(&s, 0.0);
	a = fx_type(&s, "a", 1.0);
	for (i = 0; i < 6; i++)
		fx_node(&s, "n", a, 8, MX_NODE_UP);
	for (i = 0; i < 6; i++)
		fx_part(&s, i, i, fx_int(1, 8), fx_int(1, 100));
	{ int rc = mx_capacity_init(&c, &s, 60, 0); CHECK(rc == 0, "init"); }
	for (t = 0; t < T + 200; t++)
	{
		freev[t] = 48;
		for (i = 0; i < s.nparts; i++)
			if (s.parts[i].expected_end > t)
				freev[t] -= s.parts[i].gpus;
	}
	for (i = 0; i < 3000; i++)
	{
		int			g = fx_int(1, 48),
					len = fx_int(1, 60),
					from = fx_int(0, T - 100),
					x,
					want = -1;
		double		e;

		for (x = from; x < T + 200 - len && want < 0; x++)
		{
			int			ok = 1,
						y;

			for (y = x; y < x + len; y++)
				if (freev[y] < g)
				{
					ok = 0;
					break;
				}
			if (ok)
				want = x;
		}
		e = mx_capacity_earliest(&c, a, g, len, from);
		if (want < 0 ? !(isinf(e) || e >= T) : e != want)
			bad_earliest++;
		if (want >= 0 && want < T)
		{
			int			y;

			if (mx_capacity_reserve(&c, a, g, want, len) != 0)
				bad_reserve++;
			for (y = want; y < want + len; y++)
				freev[y] -= g;
			res[nres][0] = want;
			res[nres][1] = g;
			res[nres][2] = len;
			nres++;
		}
		else if (want < 0)
		{
			/* must be refused at from */
			int			y,
						fits = 1;

			for (y = from; y < from + len; y++)
				if (freev[y] < g)
					fits = 0;
			if (!fits && mx_capacity_reserve(&c, a, g, from, len) == 0)
				bad_reserve++;
		}
		/* now and then give back one reservation held, in random order */
		if (nres > 0 && fx_int(0, 2) == 0)
		{
			int			k = fx_int(0, nres - 1),
						y;

			if (mx_capacity_release(&c, a, res[k][1], res[k][0], res[k][2]) != 0)
				bad_release++;
			for (y = res[k][0]; y < res[k][0] + res[k][2]; y++)
				freev[y] += res[k][1];
			memcpy(res[k], res[--nres], sizeof(res[k]));
		}
		if (c.nsteps[a] > maxsteps)
			maxsteps = c.nsteps[a];
	}
	for (t = 0; t < T; t++)
		if (mx_capacity_free_at(&c, a, t) != freev[t] || mx_capacity_free_at(&c, a, t + 0.5) != freev[t])
			bad_free++;
	for (i = 1; i < c.nsteps[a]; i++)
		if (!(c.steps[a][i].t > c.steps[a][i - 1].t) || c.steps[a][i].free == c.steps[a][i - 1].free)
			bad_free++;
	/* free_seconds over random intervals, half-integer ends included: the sum of the array */
	for (i = 0; i < 500; i++)
	{
		double		from = fx_int(0, 2 * T - 2) / 2.0,
					to = from + fx_int(0, 2 * T - 2 * (int) from) / 2.0,
					want = 0;

		for (t = 0; t < T; t++)
			want += freev[t] * (fmin(to, t + 1.0) > fmax(from, t) ? fmin(to, t + 1.0) - fmax(from, t) : 0);
		if (fabs(mx_capacity_free_seconds(&c, a, from, to) - want) > 1e-9)
			bad_seconds++;
	}
	CHECK(bad_seconds == 0, "free_seconds matches brute force on 500 intervals (%d)", bad_seconds);
	CHECK(bad_earliest == 0, "earliest matches brute force (%d mismatches)", bad_earliest);
	CHECK(bad_reserve == 0, "reserve accepts what fits, refuses what does not (%d)", bad_reserve);
	CHECK(bad_release == 0 && nres > 0, "release gives back any reservation held (%d failed, %d still held)",
		  bad_release, nres);
	CHECK(bad_free == 0, "free_at matches brute force; steps strictly increasing and merged (%d)", bad_free);
	CHECK(maxsteps <= T + 200, "steps stay bounded (max %d)", maxsteps);
	mx_capacity_free(&c);
	mx_snapshot_free(&s);
}

/*
 * The overrun rule: a part d seconds past its expected end holds its GPUs
 * until now + max(grace, factor x d); a busy bit no part explains, and a
 * part without an end, until now + grace.
 */
static void
test_overrun(void)
{
	mx_snapshot s;
	mx_capacity c;
	int			a, n0, n1;

	CHECK(mx_overrun_end(NOW + 5, NOW, 60, 1) == NOW + 5, "ahead of now: the expected end");
	CHECK(mx_overrun_end(NOW - 30, NOW, 60, 1) == NOW + 60, "30 s late: the grace (60 s) is longer");
	CHECK(mx_overrun_end(NOW - 600, NOW, 60, 1) == NOW + 600, "600 s late, factor 1: 600 s more");
	CHECK(mx_overrun_end(NOW - 600, NOW, 60, 0.5) == NOW + 300, "factor 0.5: 300 s more");
	CHECK(mx_overrun_end(NOW - 600, NOW, 60, 0) == NOW + 60, "factor 0: the grace alone");
	CHECK(mx_overrun_end(NAN, NOW, 60, 1) == NOW + 60, "no expected end: the grace");
	CHECK(mx_overrun_end(NOW, NOW, 60, 1) == NOW + 60, "at the expected end: the grace");
	CHECK(mx_overrun_end(-INFINITY, NOW, 60, 1) == NOW + 60, "an end of -infinity: the grace");
	CHECK(mx_overrun_end(NOW - 600, NOW, 60, NAN) == NOW + 60, "a NaN factor: the grace");
	CHECK(mx_overrun_end(NOW - 600, NOW, -5, 0) == NOW, "a negative grace counts as 0");
	CHECK(mx_overrun_end(NOW - 600, NOW, NAN, 0.5) == NOW + 300, "a NaN grace counts as 0");
	{
		mx_options	o;

		mx_options_default(&o);
		CHECK(mx_overrun_factor(&o) == 1, "mixdnn plans with overrun_factor (default 1)");
		CHECK(mx_overrun_end(NOW - 600, NOW, 60, INFINITY) == NOW + 60, "an infinite factor counts as 0");
		o.overrun_factor = 2;
		o.policy = MX_POLICY_BACKFILL;
		CHECK(mx_overrun_factor(&o) == 0, "the baselines plan with 0");
	}

	fx_init(&s, NOW);
	a = fx_type(&s, "v100", 2.0);
	n0 = fx_node(&s, "a0", a, 4, MX_NODE_UP);
	n1 = fx_node(&s, "a1", a, 4, MX_NODE_UP);
	fx_part(&s, 1, n0, 4, NOW - 1000);	/* overdue by 1000 s */
	s.nodes[n1].busy = 0x3;			/* two busy GPUs no part explains */
	{ int rc = mx_capacity_init(&c, &s, 60, 1); CHECK(rc == 0, "init, factor 1"); }
	CHECK(mx_capacity_free_at(&c, a, NOW + 60) == 4, "the unexplained bits free at now + grace");
	CHECK(mx_capacity_free_at(&c, a, NOW + 999) == 4, "the overdue part holds its GPUs for another 1000 s");
	CHECK(mx_capacity_free_at(&c, a, NOW + 1000) == 8, "... and frees them then");
	mx_capacity_free(&c);
	{ int rc = mx_capacity_init(&c, &s, 60, 0); CHECK(rc == 0, "init, factor 0"); }
	CHECK(mx_capacity_free_at(&c, a, NOW + 60) == 8, "factor 0: everything frees at now + grace");
	mx_capacity_free(&c);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_init();
	test_overrun();
	test_inconsistent();
	test_random();
	return unit_done("test_capacity");
}
