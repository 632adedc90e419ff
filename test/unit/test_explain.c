/* test_explain.c — mixdnn.explain()'s core: candidates and their causes (explain.c). */
#include "unit.h"
#include "fixtures.h"
#include "explain.h"
#include "guards.h"
#include "value.h"

/* Types a (speed 1) and b (speed 2), 4 GPUs each; job 1: soft, 2 GPUs, a or b, 1 h on a. */
static void
setup(mx_snapshot *s, int *na, int *nb)
{
	int			a,
				b;

	fx_init(s, NOW);
	a = fx_type(s, "a", 1.0);
	b = fx_type(s, "b", 2.0);
	*na = fx_node(s, "na", a, 4, MX_NODE_UP);
	*nb = fx_node(s, "nb", b, 4, MX_NODE_UP);
	fx_soft(s, 1, a, 2, 2, 2, 3, 3600);
}

static const mx_candidate *
row(const mx_explanation *e, int type)
{
	int			i;

	for (i = 0; i < e->n; i++)
		if (e->c[i].type == type)
			return &e->c[i];
	return NULL;
}

/* Job 1 on a (1 h) while b (30 min) would be faster: what keeps b away. */
static mx_block_cause
cause_of_b(mx_snapshot *s, const mx_options *o, mx_plan *p, int *nchosen)
{
	mx_explanation e;
	mx_block_cause c;
	int			i;

	p->a[0].job_id = 1;
	fx_put(p, 0, 0, 2, NOW, 3600);
	if (mx_explain_job(s, o, p, 0, &e) != 0 || row(&e, 1) == NULL || row(&e, 0) == NULL)
		return (mx_block_cause) -1;
	*nchosen = 0;
	for (i = 0; i < e.n; i++)
		*nchosen += e.c[i].chosen;
	c = row(&e, 1)->blocked_by;
	if (!(e.c[0].chosen && e.c[0].type == 0 && e.c[0].blocked_by == MX_BLOCK_NONE))
		c = (mx_block_cause) -2;
	mx_explanation_free(&e);
	return c;
}

static void
test_causes(void)
{
	mx_snapshot s;
	mx_options	o,
				noguards;
	mx_plan		p;
	int			na,
				nb,
				nchosen = -1;

	mx_options_default(&o);
	noguards = o;
	noguards.starve_factor = 0;
	noguards.critical_margin = -1;

	/* nothing else: b fits now, so only the plan's value can explain it */
	setup(&s, &na, &nb);
	mx_plan_init(&p, s.njobs);
	CHECK(cause_of_b(&s, &o, &p, &nchosen) == MX_BLOCK_OBJECTIVE && nchosen == 1,
		  "b free: objective, one chosen row (%d)", nchosen);
	mx_plan_free(&p);
	mx_snapshot_free(&s);

	/* a running job holds b for 2 h */
	setup(&s, &na, &nb);
	fx_part(&s, 50, nb, 4, NOW + 7200);
	mx_plan_init(&p, s.njobs);
	CHECK(cause_of_b(&s, &o, &p, &nchosen) == MX_BLOCK_CAPACITY, "b held by a running job: capacity");
	mx_plan_free(&p);
	mx_snapshot_free(&s);

	/*
	 * another waiting job is planned on all of b for 1 h; it has waited
	 * 10 min, past critical_wait x its 2 h, so it can be critical
	 */
	setup(&s, &na, &nb);
	fx_hard(&s, 2, 1, 4, 7200)->submitted = NOW - 600;
	mx_plan_init(&p, s.njobs);
	p.a[1].job_id = 2;
	fx_put(&p, 1, 1, 4, NOW, 3600);
	CHECK(cause_of_b(&s, &noguards, &p, &nchosen) == MX_BLOCK_RESERVATIONS,
		  "b planned for an unguarded job: reservations");
	CHECK(cause_of_b(&s, &o, &p, &nchosen) == MX_BLOCK_GUARDS,
		  "b planned for a makespan-critical job: guards");
	/* A critical job's later start holds nothing (mx_guard_holds): a forecast like any other. */
	fx_put(&p, 1, 1, 4, NOW + 60, 3600);
	CHECK(cause_of_b(&s, &o, &p, &nchosen) == MX_BLOCK_RESERVATIONS,
		  "b planned for a makespan-critical job from +60: reservations");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
test_cluster_and_names(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			na,
				nb,
				c;

	setup(&s, &na, &nb);
	c = fx_type(&s, "c", 1.0);
	fx_hard(&s, 2, c, 2, 600);
	mx_options_default(&o);
	mx_plan_init(&p, s.njobs);
	CHECK(mx_explain_job(&s, &o, &p, 1, &e) == 0 && e.n == 1 && e.c[0].type == -1 &&
		  e.c[0].blocked_by == MX_BLOCK_CLUSTER && !e.c[0].chosen && !isfinite(e.c[0].start),
		  "no node of its type: one 'cluster' row");
	mx_explanation_free(&e);
	mx_plan_free(&p);
	mx_snapshot_free(&s);

	CHECK(mx_block_cause_name(MX_BLOCK_NONE) == NULL &&
		  strcmp(mx_block_cause_name(MX_BLOCK_CAPACITY), "capacity") == 0 &&
		  strcmp(mx_block_cause_name(MX_BLOCK_GUARDS), "guards") == 0 &&
		  strcmp(mx_block_cause_name(MX_BLOCK_RESERVATIONS), "reservations") == 0 &&
		  strcmp(mx_block_cause_name(MX_BLOCK_OBJECTIVE), "objective") == 0 &&
		  strcmp(mx_block_cause_name(MX_BLOCK_CLUSTER), "cluster") == 0 &&
		  mx_block_cause_name((mx_block_cause) 99) == NULL, "cause names");
}

/* On the planner's own plan, the chosen row is the plan's configuration and start. */
static void
test_round_plan(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			na,
				nb;

	setup(&s, &na, &nb);
	fx_part(&s, 50, nb, 4, NOW + 7200);
	mx_options_default(&o);
	CHECK(mx_plan_round(&s, &o, &p) == 0 && mx_explain_job(&s, &o, &p, 0, &e) == 0, "plan and explain");
	CHECK(e.c[0].chosen && e.c[0].type == p.a[0].type && e.c[0].gpus == p.a[0].gpus &&
		  e.c[0].start == p.a[0].start, "chosen row = the round's plan (type %d, +%.0f s)",
		  e.c[0].type, e.c[0].start - NOW);
	CHECK(e.c[0].value == mx_value(&s, &s.jobs[0], &o, p.a[0].start, p.a[0].end), "its value is mx_value()");
	mx_explanation_free(&e);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * A job appended after planning (behind the planning horizon): no chosen
 * row, every candidate "horizon", its earliest start after the plan of the
 * job within the horizon (job 1, 30 min on 2 b).
 */
static void
test_behind_horizon(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			na,
				nb,
				i,
				horizon = 1;

	setup(&s, &na, &nb);
	fx_hard(&s, 2, 1, 4, 3600);	/* 4 b, 1 h, read after job 1 is planned on b */
	mx_options_default(&o);
	s.njobs = 1;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.n == 1, "plan the horizon of one job");
	s.njobs = 2;
	CHECK(mx_explain_job(&s, &o, &p, horizon, &e) == 0 && e.n >= 1, "explain the job behind it");
	for (i = 0; i < e.n; i++)
		CHECK(!e.c[i].chosen && e.c[i].blocked_by == MX_BLOCK_HORIZON && isfinite(e.c[i].start),
			  "candidate %d: not chosen, horizon, an earliest start", i);
	CHECK(e.n == 1 && row(&e, 1) != NULL && p.a[0].type == 1 && p.a[0].start == NOW &&
		  row(&e, 1)->start == p.a[0].end, "its earliest start on b is when the planned job frees b");
	CHECK(strcmp(mx_block_cause_name(MX_BLOCK_HORIZON), "horizon") == 0, "cause name");
	mx_explanation_free(&e);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
test_position(void)
{
	mx_plan		p;

	mx_plan_init(&p, 4);
	p.a[0].job_id = 10;
	fx_put(&p, 0, 0, 1, NOW + 100, 10);
	p.a[1].job_id = 11;
	fx_put(&p, 1, 0, 1, NOW, 10);
	p.a[2].job_id = 9;
	fx_put(&p, 2, 0, 1, NOW + 100, 10);
	p.a[3].job_id = 12;			/* not planned */
	CHECK(mx_plan_position(&p, 1) == 1 && mx_plan_position(&p, 2) == 2 && mx_plan_position(&p, 0) == 3 &&
		  mx_plan_position(&p, 3) == 0, "positions by planned start, then job_id; 0 unplanned");
	mx_plan_free(&p);
}

/*
 * critical_from: job 1 of setup() is the only waiting job, so it sets the
 * makespan bound and would be critical at once; with critical_wait 0.05
 * it is not guarded until it has waited 0.05 x its best run time (30 min on
 * b): critical_from = submitted + 90 s. Once guarded, or with the wait off,
 * there is no such time.
 */
static void
test_critical_from(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			na, nb;

	mx_options_default(&o);
	setup(&s, &na, &nb);
	mx_plan_init(&p, s.njobs);
	p.a[0].job_id = 1;
	fx_put(&p, 0, 1, 2, NOW, 1800);
	CHECK(mx_explain_job(&s, &o, &p, 0, &e) == 0 && e.guard == MX_GUARD_NONE &&
		  fabs(e.critical_from - (NOW + 90)) < 1e-6, "just submitted: critical from +90 s (%g)", e.critical_from - NOW);
	mx_explanation_free(&e);
	s.jobs[0].submitted = NOW - 100;
	CHECK(mx_explain_job(&s, &o, &p, 0, &e) == 0 && e.guard == MX_GUARD_CRITICAL && isnan(e.critical_from),
		  "waited 100 s: critical, no time to wait for (%d)", e.guard);
	mx_explanation_free(&e);
	s.jobs[0].submitted = NOW;
	o.critical_wait = 0;
	CHECK(mx_explain_job(&s, &o, &p, 0, &e) == 0 && e.guard == MX_GUARD_CRITICAL && isnan(e.critical_from),
		  "critical_wait 0: critical at once (%d)", e.guard);
	mx_explanation_free(&e);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Backfill on one node of 4 v100s, `held` of them by a job 1000 s past its
 * expected end, and a 4-GPU head waiting: the v100 type's index.
 */
static int
backfill_overdue(mx_snapshot *s, mx_options *o, int held)
{
	int			t;

	fx_init(s, NOW);
	mx_options_default(o);
	o->policy = MX_POLICY_BACKFILL;
	t = fx_type(s, "v100", 1.0);
	fx_part(s, 1, fx_node(s, "n0", t, 4, MX_NODE_UP), held, NOW - 1000);
	fx_hard(s, 10, t, 4, 100);
	return t;
}

/*
 * backfill, contract §6: a job past its expected end counts as ending now,
 * its GPUs held. The head that waits for them is reserved from now and
 * waits: explain says they are held (capacity), not "objective", and the
 * reasons count held GPUs as held. n0's 4 GPUs are 1000 s overdue, n1's
 * run to +1000.
 */
static void
test_backfill_overdue(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			t,
				n1;

	t = backfill_overdue(&s, &o, 4);
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING, "backfill: the head waits (status %d)",
		  p.a[0].status);
	CHECK(mx_explain_job(&s, &o, &p, 0, &e) == 0 && e.n == 1 && e.c[0].blocked_by == MX_BLOCK_CAPACITY,
		  "... explain: its GPUs are held (capacity), not objective (%s)",
		  e.n > 0 ? mx_block_cause_name(e.c[0].blocked_by) : "no row");
	mx_explanation_free(&e);
	mx_plan_free(&p);

	n1 = fx_node(&s, "n1", t, 4, MX_NODE_UP);
	fx_part(&s, 2, n1, 4, NOW + 1000);
	s.jobs[0].ref_gpus = 8;
	fx_hard(&s, 11, t, 2, 10)->submitted = NOW + 1;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_PLANNED && p.a[1].status == MX_WAITING &&
		  strstr(p.a[0].reason, "; 0 free now") != NULL && strstr(p.a[1].reason, "(0 free)") != NULL,
		  "backfill: the reasons count the overdue job's GPUs as held ('%s', '%s')", p.a[0].reason, p.a[1].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Backfill: the head needs 2 GPUs of a job past its estimate besides the
 * 2 free ones, so it is reserved from now and waits (no planned row); a
 * later 2-GPU job would fit the free ones but would delay that
 * reservation: it waits for the reservation, not for an objective.
 */
static void
test_backfill_behind_head(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_explanation e;
	int			t;

	t = backfill_overdue(&s, &o, 2);
	fx_hard(&s, 11, t, 2, 50)->submitted = NOW + 1;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING && p.a[1].status == MX_WAITING &&
		  strstr(p.a[1].reason, "without delaying the reservation (2 free)") != NULL,
		  "backfill: the head and the job behind it wait ('%s')", p.a[1].reason);
	CHECK(mx_explain_job(&s, &o, &p, 1, &e) == 0 && e.n == 1 && e.c[0].blocked_by == MX_BLOCK_RESERVATIONS,
		  "... explain: the job behind waits for the reservation, not the objective (%s)",
		  e.n > 0 ? mx_block_cause_name(e.c[0].blocked_by) : "no row");
	mx_explanation_free(&e);
	CHECK(mx_explain_job(&s, &o, &p, 0, &e) == 0 && e.n == 1 && e.c[0].blocked_by == MX_BLOCK_CAPACITY,
		  "... and the head for its GPUs (%s)", e.n > 0 ? mx_block_cause_name(e.c[0].blocked_by) : "no row");
	mx_explanation_free(&e);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_backfill_overdue();
	test_backfill_behind_head();
	test_causes();
	test_critical_from();
	test_cluster_and_names();
	test_round_plan();
	test_behind_horizon();
	test_position();
	return unit_done("test_explain");
}
