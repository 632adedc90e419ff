/*
 * test_typeplan.c — the configuration LP's backfill (typeplan.c,
 * mx_typeplan_backfill) on hand-made plans.
 */
#include "unit.h"
#include "fixtures.h"
#include "capacity.h"
#include "typeplan.h"
#include "utility.h"

#define SOFT 0					/* job index: soft, 1 GPU, 100 s on an a100, 200 s on a v100 */
#define HARD 1					/* job index: hard, both v100 for 300 s */

/* Two a100 busy until +100, two v100 free. */
static void
cluster(mx_snapshot *s)
{
	int			a100, v100, na;

	fx_init(s, NOW);
	a100 = fx_type(s, "a100", 2.0);
	v100 = fx_type(s, "v100", 1.0);
	na = fx_node(s, "a0", a100, 2, MX_NODE_UP);
	fx_node(s, "v0", v100, 2, MX_NODE_UP);
	fx_part(s, 50, na, 2, NOW + 100);
	fx_soft(s, 1, a100, 1, 1, 1, (1 << a100) | (1 << v100), 100);
	fx_hard(s, 2, v100, 2, 300);
}

/*
 * The soft job on an a100 from soft_start, the hard one on both v100 from
 * hard_start (< 0: not planned); backfill over the first nw jobs, with the
 * start check (NULL: none). How many
 * moved; *work is left for the caller to free.
 */
static int
backfill(const mx_snapshot *s, double soft_start, double hard_start, int nw, mx_start_check check,
		 mx_plan *p, mx_capacity *work)
{
	mx_options	o;
	int			window[2] = {SOFT, HARD};

	mx_options_default(&o);
	o.start_check = check;
	mx_plan_init(p, s->njobs);
	fx_put(p, SOFT, 0, 1, soft_start, 100);
	if (hard_start >= 0)
		fx_put(p, HARD, 1, 2, hard_start, 300);
	if (mx_capacity_init(work, s, o.overrun_s, o.overrun_factor) < 0)
		return -1;
	(void) mx_capacity_reserve(work, 0, 1, soft_start, 100);
	if (hard_start >= 0)
		(void) mx_capacity_reserve(work, 1, 2, hard_start, 300);
	return mx_typeplan_backfill(s, &o, work, window, nw, p);
}

static int	checked;

/* A start check that refuses type 1 (v100) and counts the questions it is asked as expected. */
static mx_start_verdict
refuse_v100(const void *ctx, const struct mx_plan *p, int ji, int type, int gpus)
{
	(void) ctx;
	checked += ji == SOFT && type == 1 && gpus == 1 && p->a[SOFT].start == NOW + 300;
	return type == 1 ? MX_START_BORROWS : MX_START_OK;
}

static void
test_backfill(void)
{
	mx_snapshot s;
	mx_plan		p;
	mx_capacity w;
	int			n;

	cluster(&s);

	/* Planned on an a100 at +300 (ends +400): a v100 now ends it at +200. */
	n = backfill(&s, NOW + 300, -1, 1, NULL, &p, &w);
	CHECK(n == 1 && p.a[SOFT].type == 1 && p.a[SOFT].gpus == 1 && p.a[SOFT].start == NOW &&
		  p.a[SOFT].end == NOW + 200, "moved to a free v100 now (%d; type %d, +%.0f..+%.0f)",
		  n, p.a[SOFT].type, p.a[SOFT].start - NOW, p.a[SOFT].end - NOW);
	CHECK(mx_capacity_free_at(&w, 1, NOW) == 1 && mx_capacity_free_at(&w, 0, NOW + 350) == 2,
		  "the capacity follows: one v100 taken now, the a100 reservation given back");
	mx_capacity_free(&w);
	mx_plan_free(&p);

	/* Planned at +100 (ends +200): a v100 now ends it no sooner. */
	n = backfill(&s, NOW + 100, -1, 1, NULL, &p, &w);
	CHECK(n == 0 && p.a[SOFT].type == 0 && p.a[SOFT].start == NOW + 100, "no sooner: stays (%d)", n);
	CHECK(mx_capacity_free_at(&w, 0, NOW + 150) == 1, "its reservation is put back");
	mx_capacity_free(&w);
	mx_plan_free(&p);

	/* The hard job is planned on both v100 from +50: a v100 run from now would move it. */
	n = backfill(&s, NOW + 300, NOW + 50, 1, NULL, &p, &w);
	CHECK(n == 0 && p.a[SOFT].start == NOW + 300 && p.a[HARD].start == NOW + 50, "no other plan moves (%d)", n);
	mx_capacity_free(&w);
	mx_plan_free(&p);

	/* A start check that refuses the v100 (an owner's quota): it stays, and the check saw the move. */
	n = backfill(&s, NOW + 300, -1, 1, refuse_v100, &p, &w);
	CHECK(n == 0 && p.a[SOFT].type == 0 && p.a[SOFT].start == NOW + 300 && mx_capacity_free_at(&w, 1, NOW) == 2,
		  "the start check refuses the v100: stays, nothing taken (%d)", n);
	CHECK(checked == 1, "the check was asked once, for the job on 1 v100 beside its plan at +300 (%d)", checked);
	mx_capacity_free(&w);
	mx_plan_free(&p);

	/* Outside the window: left as it is. */
	n = backfill(&s, NOW + 300, -1, 0, NULL, &p, &w);
	CHECK(n == 0 && p.a[SOFT].start == NOW + 300, "outside the window: stays (%d)", n);
	mx_capacity_free(&w);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* Whether a's configuration and utility are one of job i's candidates. */
static int
has_config(const mx_snapshot *s, int i, const mx_assignment *a)
{
	mx_config  *cf = NULL;
	int			cap = 0,
				n = mx_job_configs_buf(s, &s->jobs[i], MX_FITTED_ALPHA, &cf, &cap),
				found = 0;

	for (int c = 0; c < n; c++)
		found |= cf[c].type == a->type && cf[c].gpus == a->gpus && fabs(cf[c].utility - a->utility) < 1e-12 &&
			fabs(a->end - a->start - cf[c].runtime) < 1e-6;
	free(cf);
	return found;
}

static int
chosen_reasons(const mx_plan *p)
{
	int			n = 0;

	for (int i = 0; i < p->n; i++)
		n += strstr(p->a[i].reason, "; the round chose") != NULL ||
			strstr(p->a[i].reason, "; the round starts it later") != NULL;
	return n;
}

/*
 * Whole rounds on random snapshots, with the backfill and without: both
 * plans fit, every job the backfill changed starts now, and fewer waiting
 * jobs are kept off free GPUs that would end them sooner.
 */
static void
test_rounds(void)
{
	int			differ = 0,
				not_now = 0,
				bad = 0,
				chosen_on = 0,
				chosen_off = 0;

	for (int seed = 0; seed < 200; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		on,
					off;

		fx_random(&s, 3000 + seed, 6 + seed % 10, 10 + seed % 40);
		mx_options_default(&o);
		if (mx_plan_round(&s, &o, &on) < 0)
			bad++;
		o.lp_backfill = 0;
		if (mx_plan_round(&s, &o, &off) < 0)
			bad++;
		bad += fx_plan_violations(&s, &on, o.overrun_s, o.overrun_factor) + fx_plan_violations(&s, &off, o.overrun_s, o.overrun_factor);
		for (int i = 0; i < s.njobs; i++)
			if (on.a[i].status == MX_PLANNED && off.a[i].status == MX_PLANNED &&
				(on.a[i].type != off.a[i].type || on.a[i].gpus != off.a[i].gpus || on.a[i].start != off.a[i].start))
			{
				differ++;
				not_now += on.a[i].start > s.now + 1e-6 || !(on.a[i].start < off.a[i].start) ||
					!(on.a[i].end < off.a[i].end) || !has_config(&s, i, &on.a[i]);
			}
		chosen_on += chosen_reasons(&on);
		chosen_off += chosen_reasons(&off);
		mx_plan_free(&on);
		mx_plan_free(&off);
		mx_snapshot_free(&s);
	}
	CHECK(bad == 0, "200 random rounds with and without the backfill fit (%d bad)", bad);
	CHECK(differ > 0 && not_now == 0,
		  "%d jobs moved, each to start now, end sooner, with its configuration's utility (%d not)", differ, not_now);
	CHECK(chosen_on < chosen_off, "jobs kept off free GPUs that end them sooner: %d with, %d without", chosen_on,
		  chosen_off);
}

int
main(void)
{
	test_backfill();
	test_rounds();
	return unit_done("test_typeplan");
}
