/*
 * test_reasons.c — the reason of a job planned to start later (reasons.c):
 * each cause of leaving idle GPUs alone, on hand-made plans, the choice
 * among several idle configurations, long type names, and once through a
 * whole round.
 */
#include "unit.h"
#include "fixtures.h"
#include "guards.h"
#include "reasons.h"

#define V100_FREE_AT (NOW + 100)	/* the running part's end */
#define HARD 0					/* job index: hard, both k80 for 300 s */
#define SOFT 1					/* job index: soft, 1 GPU of any type */

/*
 * Two v100 (busy until +100), one p100 (up or down) and two k80 (free).
 * The soft job runs 100 s on a v100, 200 s on the p100, 400 s on a k80
 * (speeds 4, 2, 1). The hard job comes first, so that the soft job's
 * reason depends on the hard job's plan being put back after its own
 * reason was found.
 */
static void
cluster(mx_snapshot *s, int p100_up, const char *k80_name)
{
	int			v100, p100, k80, nv;

	fx_init(s, NOW);
	v100 = fx_type(s, "v100", 4.0);
	p100 = fx_type(s, "p100", 2.0);
	k80 = fx_type(s, k80_name, 1.0);
	nv = fx_node(s, "v0", v100, 2, MX_NODE_UP);
	fx_node(s, "p0", p100, 1, p100_up ? MX_NODE_UP : MX_NODE_DOWN);
	fx_node(s, "k0", k80, 2, MX_NODE_UP);
	fx_part(s, 50, nv, 2, V100_FREE_AT);
	fx_hard(s, 2, k80, 2, 300);
	fx_soft(s, 1, v100, 1, 1, 1, (1 << v100) | (1 << p100) | (1 << k80), 100);
}

/* The soft job on a v100 from v100_start; the hard one on both k80 from hard_start, or waiting (< 0). */
static void
reasons_for(const mx_snapshot *s, const unsigned char *guard, double v100_start, double hard_start, mx_plan *p)
{
	mx_options	o;

	mx_options_default(&o);
	mx_plan_init(p, s->njobs);
	fx_put(p, SOFT, 0, 1, v100_start, 100);
	if (hard_start >= 0)
		fx_put(p, HARD, 2, 2, hard_start, 300);
	CHECK(mx_plan_reasons(s, &o, guard, p) == 0, "reasons filled");
}

#define AT_100 "waiting for 1 v100 GPU, expected free at 2023-11-14 22:15:00 UTC"

static void
expect(mx_plan *p, int ji, const char *want, const char *what)
{
	CHECK(strcmp(p->a[ji].reason, want) == 0, "%s: '%s'", what, p->a[ji].reason);
}

static void
test_causes(void)
{
	mx_snapshot s;
	mx_plan		p;
	unsigned char guard[2] = {MX_GUARD_NONE, MX_GUARD_NONE};

	cluster(&s, 0, "k80");

	/* A k80 would end it at +400, the plan at +200. */
	reasons_for(&s, guard, V100_FREE_AT, -1, &p);
	expect(&p, SOFT, AT_100 "; ends it no later than free k80 GPUs would", "no sooner");
	mx_plan_free(&p);

	/* Planned at +1000 (ends +1100): a k80 now would end it sooner. */
	reasons_for(&s, guard, NOW + 1000, -1, &p);
	expect(&p, SOFT, "waiting for 1 v100 GPU, expected free at 2023-11-14 22:30:00 UTC; "
		   "the round chose v100 over free k80 GPUs", "chosen");
	mx_plan_free(&p);

	/*
	 * The hard job takes both k80 from +50, before a k80 run from now
	 * would end; it waits itself with its GPUs free for its whole run.
	 */
	reasons_for(&s, guard, V100_FREE_AT, NOW + 50, &p);
	expect(&p, SOFT, AT_100 "; jobs ahead of it are planned on free k80 GPUs", "ahead");
	expect(&p, HARD, "waiting for 2 k80 GPUs, expected free at 2023-11-14 22:14:10 UTC; "
		   "the round starts it later, though free k80 GPUs fit it", "its own configuration");
	mx_plan_free(&p);

	/* A starving job's plan is a reservation; its own reason does not count it. */
	guard[HARD] = MX_GUARD_STARVING;
	reasons_for(&s, guard, V100_FREE_AT, NOW + 50, &p);
	expect(&p, SOFT, AT_100 "; starving or critical jobs hold a reservation on free k80 GPUs", "reserved");
	expect(&p, HARD, "waiting for 2 k80 GPUs, expected free at 2023-11-14 22:14:10 UTC; "
		   "the round starts it later, though free k80 GPUs fit it", "the starving job itself");
	mx_plan_free(&p);

	/* A critical job planned later holds nothing. */
	guard[HARD] = MX_GUARD_CRITICAL;
	reasons_for(&s, guard, V100_FREE_AT, NOW + 50, &p);
	expect(&p, SOFT, AT_100 "; jobs ahead of it are planned on free k80 GPUs", "critical: ahead");
	mx_plan_free(&p);
	guard[HARD] = MX_GUARD_NONE;

	/* The hard job starts now on both k80: nothing idle, the plain reason. */
	reasons_for(&s, guard, V100_FREE_AT, NOW, &p);
	expect(&p, SOFT, AT_100, "no idle GPU fits");
	expect(&p, HARD, "", "a job starting now has no reason");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* With the p100 up, two idle configurations: the stronger one is named. */
static void
test_choice(void)
{
	mx_snapshot s;
	mx_plan		p;

	cluster(&s, 1, "k80");
	/* Plan ends +400: the p100 (+200) would end it sooner, a k80 (+400) not. */
	reasons_for(&s, NULL, NOW + 300, -1, &p);
	CHECK(strstr(p.a[SOFT].reason, "; the round chose v100 over free p100 GPUs") != NULL,
		  "chosen beats no sooner: '%s'", p.a[SOFT].reason);
	mx_plan_free(&p);
	/* Plan ends +200: the p100 ties with it, a k80 ends later; the earlier end is named. */
	reasons_for(&s, NULL, V100_FREE_AT, -1, &p);
	expect(&p, SOFT, AT_100 "; ends it no later than free p100 GPUs would", "a tie is no sooner, earliest end first");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* Type names of 63 characters: the words that tell the cases apart survive the cut. */
static void
test_long_names(void)
{
	mx_snapshot s;
	mx_plan		p;
	char		name[MX_NAME_LEN];

	memset(name, 'k', MX_NAME_LEN - 1);
	name[MX_NAME_LEN - 1] = '\0';
	cluster(&s, 0, name);
	reasons_for(&s, NULL, NOW + 1000, NOW + 50, &p);
	CHECK(strlen(p.a[SOFT].reason) < MX_REASON_LEN && strstr(p.a[SOFT].reason, "; jobs ahead of it") != NULL,
		  "cut at %zu bytes: '%s'", strlen(p.a[SOFT].reason), p.a[SOFT].reason);
	CHECK(strstr(p.a[HARD].reason, "; the round starts it later") != NULL, "'%s'", p.a[HARD].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * The same type, fewer GPUs: planned on 2 v100 from +1000 (50 s), while 1
 * v100 is free now and would end it at +100. Not "chose v100 over v100".
 */
static void
test_same_type(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v100, nv;

	fx_init(&s, NOW);
	v100 = fx_type(&s, "v100", 4.0);
	nv = fx_node(&s, "v0", v100, 2, MX_NODE_UP);
	fx_part(&s, 50, nv, 1, NOW + 1000);
	fx_soft(&s, 1, v100, 1, 1, 2, 1 << v100, 100);
	mx_options_default(&o);
	mx_plan_init(&p, s.njobs);
	fx_put(&p, 0, v100, 2, NOW + 1000, 50);
	CHECK(mx_plan_reasons(&s, &o, NULL, &p) == 0 &&
		  strstr(p.a[0].reason, "; the round starts it later, though free v100 GPUs fit it") != NULL,
		  "same type: '%s'", p.a[0].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* A whole round: the soft job's earliest completion is on the busy v100. */
static void
test_round(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;

	cluster(&s, 0, "k80");
	s.jobs[HARD] = s.jobs[SOFT];	/* the hard job would take the k80 now */
	s.njobs = 1;
	mx_options_default(&o);
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_PLANNED && p.a[0].type == 0 &&
		  p.a[0].start == V100_FREE_AT, "the soft job waits for the v100 (start +%.0f)", p.a[0].start - NOW);
	expect(&p, 0, AT_100 "; ends it no later than free k80 GPUs would", "the round's reason");
	mx_plan_free(&p);
	s.njobs = 2;
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_causes();
	test_choice();
	test_long_names();
	test_same_type();
	test_round();
	return unit_done("test_reasons");
}
