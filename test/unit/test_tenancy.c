/* test_tenancy.c — quotas, borrowing and fair share around a round (tenancy.c). */
#include "unit.h"
#include "fixtures.h"
#include "capacity.h"
#include "tenancy.h"
#include "utility.h"

/* A snapshot of one up node of `gpus` v100s, default options; the type index. */
static int
one_node(mx_snapshot *s, mx_options *o, int gpus)
{
	int			t;

	fx_init(s, NOW);
	mx_options_default(o);
	t = fx_type(s, "v100", 1.0);
	fx_node(s, "n1", t, gpus, MX_NODE_UP);
	return t;
}

static int
starts_now(const mx_snapshot *s, const mx_plan *p, int i)
{
	return p->a[i].status == MX_PLANNED && p->a[i].start <= s->now + 1e-6;
}

/* One 4-GPU node; owner a's two 2-GPU jobs; quota of 2 GPUs of all types. */
static void
test_quota(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p,
				q;
	int			t;

	t = one_node(&s, &o, 4);
	fx_hard(&s, 1, t, 2, 100)->owner = 0;
	fx_hard(&s, 2, t, 2, 100)->owner = 0;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "no owners: a round");
	CHECK(mx_plan_round(&s, &o, &q) == 0 && fx_same_assignments(&p, &q), "no owners: exactly mx_plan_round");
	mx_plan_free(&p);
	mx_plan_free(&q);

	fx_owner(&s, "a", 1);
	s.owners[0].quota_all = 2;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "quota: a round");
	CHECK(starts_now(&s, &p, 0) != starts_now(&s, &p, 1), "one of the two starts now");
	CHECK(p.a[starts_now(&s, &p, 0) ? 1 : 0].status == MX_WAITING, "the other waits, unplanned");
	CHECK(strcmp(p.a[starts_now(&s, &p, 0) ? 1 : 0].reason,
				 "over quota: role a holds 2 of the 2 GPUs (all types) its quota allows and needs 2") == 0,
		  "with the quota as reason: %s", p.a[1].reason);
	mx_plan_free(&p);

	s.owners[0].borrow_all = 1;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0) && starts_now(&s, &p, 1),
		  "with borrow both start on the idle GPUs");
	mx_plan_free(&p);

	s.owners[0].borrow_all = 0;
	s.jobs[1].ref_gpus = s.jobs[1].min_gpus = s.jobs[1].max_gpus = 4;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[1].status == MX_UNPLANNABLE &&
		  strstr(p.a[1].reason, "may never hold the 4 GPUs") != NULL,
		  "a job its quota could never let run is unplannable: %s", p.a[1].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Forecasts too: 4 GPUs held by b until +100 s; a (quota 2 GPUs) has two
 * 2-GPU jobs. Both would be planned at +100 s, and launched then without
 * a round; only one may be.
 */
static void
test_quota_later(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t;

	t = one_node(&s, &o, 4);
	fx_part(&s, 9, 0, 4, NOW + 100);
	s.parts[0].owner = 1;
	fx_hard(&s, 1, t, 2, 100)->owner = 0;
	fx_hard(&s, 2, t, 2, 100)->owner = 0;
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	s.owners[0].quota_all = 2;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	CHECK(!(p.a[0].status == MX_PLANNED && p.a[1].status == MX_PLANNED &&
			p.a[0].start < p.a[1].end && p.a[1].start < p.a[0].end),
		  "a's two jobs are never planned to run at once");
	CHECK(p.a[0].status == MX_PLANNED || p.a[1].status == MX_PLANNED, "one of them is planned");
	/*
	 * The other is refused at its start, +100 s: the reason gives what a
	 * would hold then and when, not "holds 2" (a holds none now).
	 */
	{
		const char *why = p.a[p.a[0].status == MX_PLANNED ? 1 : 0].reason;
		char		at[32],
					want[MX_REASON_LEN];

		CHECK(mx_format_utc(NOW + 100, at, sizeof(at)) == 0, "a time to name");
		snprintf(want, sizeof(want),
				 "over quota: role a would hold 2 of the 2 GPUs (all types) its quota allows at %s and needs 2", at);
		CHECK(p.a[p.a[0].status == MX_PLANNED ? 1 : 0].status != MX_WAITING || strcmp(why, want) == 0,
			  "a start later than now: what a would hold then, and when: '%s'", why);
	}
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * test_quota_later with the longest names, a per-type quota: the reason
 * keeps its count and time (227 bytes).
 */
static void
test_quota_later_long_names(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t,
				refused;
	char		role[64],
				type[64];

	memset(role, 'r', 63);
	role[63] = '\0';
	memset(type, 't', 63);
	type[63] = '\0';
	fx_init(&s, NOW);
	mx_options_default(&o);
	t = fx_type(&s, type, 1.0);
	fx_node(&s, "n1", t, 4, MX_NODE_UP);
	fx_part(&s, 9, 0, 4, NOW + 100);
	s.parts[0].owner = 1;
	fx_hard(&s, 1, t, 2, 100)->owner = 0;
	fx_hard(&s, 2, t, 2, 100)->owner = 0;
	fx_owner(&s, role, 1);
	fx_owner(&s, "b", 1);
	s.owners[0].quota[t] = 2;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	refused = p.a[0].status == MX_PLANNED ? 1 : 0;
	CHECK(p.a[refused].status == MX_WAITING && strstr(p.a[refused].reason, " UTC and needs 2") != NULL &&
		  strstr(p.a[refused].reason, role) != NULL && strstr(p.a[refused].reason, type) != NULL,
		  "63-byte role and type names: the whole reason (%zu bytes: '%s')", strlen(p.a[refused].reason),
		  p.a[refused].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Two GPUs. a (quota 1, borrowing) has two 100 s jobs, b one 1000 s job.
 * Shortest first would start both of a's; as a borrower a2 yields to b1.
 */
static void
test_borrower_yields(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t;

	t = one_node(&s, &o, 2);
	fx_hard(&s, 1, t, 1, 100)->owner = 0;
	fx_hard(&s, 2, t, 1, 100)->owner = 0;
	fx_hard(&s, 3, t, 1, 1000)->owner = 1;
	o.critical_margin = -1;		/* b1 would otherwise be served first as makespan-critical */
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	s.owners[0].quota[t] = 1;
	s.owners[0].borrow = (uint64_t) 1 << t;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	CHECK(starts_now(&s, &p, 2), "b's job, within its quota, starts now");
	CHECK(starts_now(&s, &p, 0) + starts_now(&s, &p, 1) == 1, "only one of a's starts: no idle GPU to borrow");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/* One GPU; a used it, b did not: with fair share b's job goes first. */
static void
test_fair_share_order(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t;

	t = one_node(&s, &o, 1);
	fx_hard(&s, 1, t, 1, 100)->owner = 0;
	fx_hard(&s, 2, t, 1, 100)->owner = 1;
	s.jobs[0].submitted = NOW - 60;		/* older: first without fair share */
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	s.owners[0].usage_s = 7200;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0), "without fair share the older job first");
	mx_plan_free(&p);
	o.fair_share = 1;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 1), "with fair share the unserved owner's");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * A quota-refused job leaves the other jobs' reasons as their policy wrote
 * them: a baseline's, and mixdnn's with the idle GPUs named.
 */
static void
test_refusal_keeps_reasons(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t;

	t = one_node(&s, &o, 6);
	fx_part(&s, 8, 0, 2, NOW + 100);
	fx_part(&s, 9, 0, 2, NOW + 100);
	s.parts[0].owner = 0;
	s.parts[1].owner = 1;
	fx_hard(&s, 1, t, 2, 100)->owner = 0;	/* a holds its quota's 2 GPUs: refused */
	fx_hard(&s, 2, t, 4, 100)->owner = 1;	/* 2 GPUs are idle: waits for the parts to end */
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	s.owners[0].quota_all = 2;
	o.policy = MX_POLICY_STATIC;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING &&
		  strncmp(p.a[0].reason, "over quota", 10) == 0, "a's job is refused: '%s'", p.a[0].reason);
	CHECK(strncmp(p.a[1].reason, "static FIFO: ", 13) == 0, "b's keeps the baseline's reason: '%s'", p.a[1].reason);
	mx_plan_free(&p);
	o.policy = MX_POLICY_MIXDNN;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[1].status == MX_PLANNED &&
		  strcmp(p.a[1].reason, "waiting for 4 v100 GPUs, expected free at 2023-11-14 22:15:00 UTC") == 0,
		  "mixdnn: b's waits for the v100 GPUs: '%s'", p.a[1].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * An up v100 node of vg GPUs, vh of them held by a running job of owner 0,
 * and an up k80 node of kg GPUs; default options. Node 0 is the v100s'.
 */
static void
v100_k80(mx_snapshot *s, mx_options *o, int vg, int kg, int vh, int *v, int *k)
{
	fx_init(s, NOW);
	mx_options_default(o);
	*v = fx_type(s, "v100", 2.0);
	*k = fx_type(s, "k80", 1.0);
	fx_node(s, "v0", *v, vg, MX_NODE_UP);
	fx_node(s, "k0", *k, kg, MX_NODE_UP);
	fx_part(s, 99, 0, vh, NOW + 3600);
	s->parts[0].owner = 0;
}

/*
 * a holds its quota's one v100; its soft job may run on a v100 or a k80,
 * both idle: it starts on a k80 now (the check after the plan narrows it
 * to the k80 and the round is planned again), not refused for the round
 * because the fastest type is over quota. Its hard v100 job is still
 * refused, with the quota's reason.
 */
static void
test_quota_other_type(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v,
				k;

	v100_k80(&s, &o, 2, 2, 1, &v, &k);
	fx_soft(&s, 1, v, 1, 1, 1, (1 << v) | (1 << k), 100)->owner = 0;
	fx_hard(&s, 2, v, 1, 50)->owner = 0;
	fx_owner(&s, "a", 1);
	s.owners[0].quota[v] = 1;
	for (int milp = 1; milp >= 0; milp--)
	{
		o.use_milp = milp;
		CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0) && p.a[0].type == k,
			  "%s: the soft job starts on a k80 now (status %d, type %d: '%s')",
			  milp ? "the LP" : "the heuristic", p.a[0].status, p.a[0].type, p.a[0].reason);
		CHECK(p.a[1].status == MX_WAITING &&
			  strcmp(p.a[1].reason, "over quota: role a holds 1 of the 1 v100 GPUs its quota allows and needs 1") == 0,
			  "%s: the hard one is refused: '%s'", milp ? "the LP" : "the heuristic", p.a[1].reason);
		mx_plan_free(&p);
	}

	/* The k80s down: nothing left within the quota, so it waits for it (not unplannable). */
	s.nodes[1].status = MX_NODE_DOWN;
	for (int milp = 1; milp >= 0; milp--)
	{
		o.use_milp = milp;
		/* planned at +50 s, when the hard job's v100 is free: what a would hold then */
		CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING &&
			  strcmp(p.a[0].reason, "over quota: role a would hold 1 of the 1 v100 GPUs its quota allows "
					 "at 2023-11-14 22:14:10 UTC and needs 1") == 0,
			  "%s, k80s down: the soft job waits for the quota (status %d: '%s')",
			  milp ? "the LP" : "the heuristic", p.a[0].status, p.a[0].reason);
		mx_plan_free(&p);
	}

	/*
	 * v100 only, 1-2 GPUs, quota 2 with 1 held, 3 v100s idle: planned on
	 * two, it waits for its quota; it is not shrunk to one (model.md).
	 */
	s.nodes[1].status = MX_NODE_UP;
	s.nodes[0].gpus = 4;
	s.jobs[0].allowed = 1 << v;
	s.jobs[0].max_gpus = 2;
	s.owners[0].quota[v] = 2;
	s.njobs = 1;
	o.use_milp = 0;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING &&
		  strcmp(p.a[0].reason, "over quota: role a holds 1 of the 2 v100 GPUs its quota allows and needs 2") == 0,
		  "v100 only: it waits for its quota, not shrunk to one GPU (status %d, %d GPUs: '%s')",
		  p.a[0].status, p.a[0].gpus, p.a[0].reason);
	mx_plan_free(&p);
	s.njobs = 2;
	mx_snapshot_free(&s);
}

/*
 * Narrowing keeps the quotas' cap on the GPU count: a's v100 quota (4) is
 * held, its k80 quota is 2; its soft job (1-4 GPUs, v100 or k80) starts on
 * two of the eight idle k80s, not refused for asking four.
 */
static void
test_quota_narrow_caps(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v,
				k;

	v100_k80(&s, &o, 8, 8, 4, &v, &k);
	fx_soft(&s, 1, v, 4, 1, 4, (1 << v) | (1 << k), 100)->owner = 0;
	fx_owner(&s, "a", 1);
	s.owners[0].quota[v] = 4;
	s.owners[0].quota[k] = 2;
	for (int milp = 1; milp >= 0; milp--)
	{
		o.use_milp = milp;
		CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0) && p.a[0].type == k &&
			  p.a[0].gpus == 2, "%s: two k80s now (status %d, type %d, %d GPUs: '%s')",
			  milp ? "the LP" : "the heuristic", p.a[0].status, p.a[0].type, p.a[0].gpus, p.a[0].reason);
		mx_plan_free(&p);
	}
	mx_snapshot_free(&s);
}

/*
 * a's soft job may take 1-4 GPUs of a v100 (quota 2) or a k80 (no quota),
 * and every k80 node is down: it is capped to the 2 v100s its quota allows
 * and starts now on idle v100s. Before, the k80s' missing quota kept its
 * count at 4, which the v100 quota refused at every start: it waited.
 */
static void
test_quota_type_down(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			v,
				k;

	v100_k80(&s, &o, 8, 8, 0, &v, &k);
	s.nodes[1].status = MX_NODE_DOWN;
	fx_soft(&s, 1, v, 4, 1, 4, (1 << v) | (1 << k), 100)->owner = 0;
	fx_owner(&s, "a", 1);
	s.owners[0].quota[v] = 2;
	for (int milp = 1; milp >= 0; milp--)
	{
		o.use_milp = milp;
		CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0) && p.a[0].type == v &&
			  p.a[0].gpus == 2, "%s: k80s down: two v100s now (status %d, type %d, %d GPUs: '%s')",
			  milp ? "the LP" : "the heuristic", p.a[0].status, p.a[0].type, p.a[0].gpus, p.a[0].reason);
		mx_plan_free(&p);
	}
	s.nodes[1].status = MX_NODE_UP;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && starts_now(&s, &p, 0) && p.a[0].type == k &&
		  p.a[0].gpus == 4, "k80s up: four k80s now, as before (status %d, type %d, %d GPUs)",
		  p.a[0].status, p.a[0].type, p.a[0].gpus);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * A soft job the snapshot's builder refused (its types deleted: none left,
 * a reason) keeps its own reason when its owner is over quota everywhere.
 */
static void
test_quota_keeps_refusal(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t;
	mx_job	   *j;

	t = one_node(&s, &o, 4);
	fx_part(&s, 99, 0, 2, NOW + 3600);
	s.parts[0].owner = 0;
	fx_hard(&s, 1, t, 1, 100)->owner = 0;
	j = fx_soft(&s, 2, -1, 1, 1, 1, 0, 100);
	j->owner = 0;
	j->refuse = "none of its allowed GPU types exists any more";
	fx_owner(&s, "a", 1);
	s.owners[0].quota_all = 2;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[1].status == MX_UNPLANNABLE &&
		  strcmp(p.a[1].reason, "none of its allowed GPU types exists any more") == 0,
		  "the refused job keeps its reason (status %d: '%s')", p.a[1].status, p.a[1].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * Jobs p leaves waiting for a per-type quota although one of their
 * configurations on another type fits now, for its whole run, GPUs no plan
 * of p uses, within every quota of the owner (beside what it holds and
 * what p starts now). (A job is not shrunk to fit: fewer GPUs of the
 * refused type do not count.)
 */
static int
refused_beside_room(const mx_snapshot *s, const mx_options *o, const mx_plan *p)
{
	mx_capacity c;
	mx_config  *cf = NULL;
	int			ccap = 0,
				n = 0;

	if (mx_capacity_init(&c, s, o->overrun_s, o->overrun_factor) < 0)
		return -1;
	for (int i = 0; i < p->n; i++)
		if (p->a[i].status == MX_PLANNED)
			(void) mx_capacity_reserve(&c, p->a[i].type, p->a[i].gpus, p->a[i].start, p->a[i].end - p->a[i].start);
	for (int i = 0; i < p->n; i++)
	{
		int			nc,
					room = 0,
					quota;
		char		refused[MX_NAME_LEN];
		const char *of = strstr(p->a[i].reason, " of the ");

		/* "over quota: role a holds 4 of the 4 v100 GPUs its quota allows ...": the type */
		if (p->a[i].status == MX_UNPLANNABLE || strncmp(p->a[i].reason, "over quota", 10) != 0 ||
			of == NULL || sscanf(of, " of the %d %63s GPUs", &quota, refused) != 2 || strcmp(refused, "GPUs") == 0)
			continue;
		nc = mx_job_configs_buf(s, &s->jobs[i], o->scaling_alpha, &cf, &ccap);
		for (int k = 0; k < nc && !room; k++)
			room = strcmp(s->types[cf[k].type].name, refused) != 0 &&
				mx_capacity_earliest(&c, cf[k].type, cf[k].gpus, cf[k].runtime, s->now) <= s->now &&
				mx_tenancy_over_quota(s, p, i, cf[k].type, cf[k].gpus, NULL, 0) == 0;
		n += room;
	}
	free(cf);
	mx_capacity_free(&c);
	return n;
}

/*
 * Jobs p calls unplannable for a quota they only exceed now (the reason
 * says what the owner holds): such a job waits for its quota.
 */
static int
unplannable_for_now(const mx_plan *p)
{
	int			n = 0;

	for (int i = 0; i < p->n; i++)
		n += p->a[i].status == MX_UNPLANNABLE && strstr(p->a[i].reason, "over quota") != NULL &&
			strstr(p->a[i].reason, " holds ") != NULL;
	return n;
}

/* Jobs planned in off that on leaves waiting for a quota. */
static int
refused_in(const mx_plan *on, const mx_plan *off)
{
	int			n = 0;

	for (int i = 0; i < on->n; i++)
		n += off->a[i].status == MX_PLANNED && on->a[i].status == MX_WAITING &&
			strncmp(on->a[i].reason, "over quota", 10) == 0;
	return n;
}

/*
 * The LP's backfill under quotas: it moves a job only onto a type its
 * owner's quotas let it start on now (the start check), so on these seeds
 * no job the round without the backfill plans is refused for a quota with
 * it (the check is of the start instant only: a moved job can still take
 * a later start of its owner over a quota; docs/model.md). Random rounds,
 * a's quota of 4 GPUs on one type (lending or not) or of all types.
 */
static void
test_quota_backfill(void)
{
	int			rounds = 0,
				differ = 0,
				refused = 0,
				idle = 0,
				unplannable = 0;

	for (int seed = 0; seed < 300; seed++)
	{
		mx_snapshot s;
		mx_options	o;
		mx_plan		on,
					off;

		fx_random(&s, 3000 + seed, 6 + seed % 10, 10 + seed % 40);
		fx_owner(&s, "a", 1);
		fx_owner(&s, "b", 1);
		for (int i = 0; i < s.njobs; i++)
			s.jobs[i].owner = i % 2;
		for (int i = 0; i < s.nparts; i++)
			s.parts[i].owner = i % 2;
		if (seed % 3 == 2)
			s.owners[0].quota_all = 6;
		else
			s.owners[0].quota[seed % 2] = 4;
		s.owners[0].borrow = seed % 5 == 0 ? 3 : 0;
		mx_options_default(&o);
		if (mx_tenancy_plan_round(&s, &o, &on) == 0)
		{
			o.lp_backfill = 0;
			if (mx_tenancy_plan_round(&s, &o, &off) == 0)
			{
				rounds++;
				idle += refused_beside_room(&s, &o, &on) + refused_beside_room(&s, &o, &off);
				unplannable += unplannable_for_now(&on) + unplannable_for_now(&off);
				differ += !fx_same_assignments(&on, &off);
				refused += refused_in(&on, &off);
				mx_plan_free(&off);
			}
			mx_plan_free(&on);
		}
		mx_snapshot_free(&s);
	}
	CHECK(rounds == 300, "300 random rounds planned (%d)", rounds);
	CHECK(differ > 0, "the backfill acts under quotas: %d of 300 rounds differ", differ);
	CHECK(refused == 0, "no job planned without the backfill is refused for a quota with it (%d)", refused);
	CHECK(idle == 0, "no job is refused for a per-type quota while another type within its quotas fits idle GPUs (%d)",
		  idle);
	CHECK(unplannable == 0, "no job is unplannable for what its owner holds now (%d)", unplannable);
}

/*
 * Quotas count an owner's overdue part by the planner's overrun rule
 * (overrun.h): a 1000 s overdue 4-GPU job of a (quota 4) keeps a's next
 * job off the GPUs another job frees at +300. The baselines keep the
 * fixed grace whatever the factor (mx_overrun_factor).
 */
static void
test_quota_overdue(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t,
				n0,
				n1;

	fx_init(&s, NOW);
	mx_options_default(&o);
	t = fx_type(&s, "v100", 1.0);
	n0 = fx_node(&s, "n0", t, 4, MX_NODE_UP);
	n1 = fx_node(&s, "n1", t, 4, MX_NODE_UP);
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	s.owners[0].quota_all = 4;
	fx_part(&s, 1, n0, 4, NOW - 1000);
	s.parts[0].owner = 0;
	fx_part(&s, 2, n1, 4, NOW + 300);
	s.parts[1].owner = 1;
	fx_hard(&s, 10, t, 4, 100)->owner = 0;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[0].status != MX_PLANNED,
		  "mixdnn: a's job is not planned at +300 beside its job 1000 s overdue (status %d, +%.0f)",
		  p.a[0].status, p.a[0].start - NOW);
	mx_plan_free(&p);
	o.policy = MX_POLICY_BACKFILL;
	s.nodes[n1].status = MX_NODE_DOWN;
	for (int f = 0; f <= 1; f++)
	{
		o.overrun_factor = f;
		/* contract §6: a job past its expected end counts as ending now, its GPUs still held */
		CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_WAITING &&
			  strstr(p.a[0].reason, "from now, held past their expected end") != NULL,
			  "backfill, overrun_factor %d: waits, reserved from now, no start at now + grace (status %d, %s)",
			  f, p.a[0].status, p.a[0].reason);
		mx_plan_free(&p);
	}
	mx_snapshot_free(&s);
}

/*
 * A quota that lends (2 GPUs of all types) beside a larger row that does
 * not (4: a group's, borrow_limit_all) on one 8-GPU node: a's four 2-GPU
 * jobs borrow up to 4 GPUs, not the whole node; without such a row they
 * borrow every idle GPU. Per type likewise.
 */
static void
test_quota_borrow_limit(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	int			t,
				i,
				now;

	t = one_node(&s, &o, 8);
	for (i = 0; i < 4; i++)
		fx_hard(&s, i + 1, t, 2, 100)->owner = 0;
	fx_owner(&s, "a", 1);
	s.owners[0].quota_all = 2;
	s.owners[0].borrow_all = 1;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	for (i = 0, now = 0; i < 4; i++)
		now += starts_now(&s, &p, i) ? 2 : 0;
	CHECK(now == 8, "lending with no other row: borrows the whole node (%d)", now);
	mx_plan_free(&p);

	s.owners[0].borrow_limit_all = 4;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	for (i = 0, now = 0; i < 4; i++)
		now += starts_now(&s, &p, i) ? 2 : 0;
	CHECK(now == 4, "a row of 4 that does not lend stops the borrowing at 4 (%d)", now);
	CHECK(p.a[3].status == MX_WAITING &&
		  strcmp(p.a[3].reason, "over quota: role a holds 4 of the 4 GPUs (all types) its quota allows and needs 2") == 0,
		  "the rest wait with that row as reason: %s", p.a[3].reason);
	mx_plan_free(&p);

	s.owners[0].quota_all = -1;
	s.owners[0].borrow_all = 0;
	s.owners[0].borrow_limit_all = 0;
	s.owners[0].quota[t] = 2;
	s.owners[0].borrow = (uint64_t) 1 << t;
	s.owners[0].borrow_limit[t] = 6;
	CHECK(mx_tenancy_plan_round(&s, &o, &p) == 0, "a round");
	for (i = 0, now = 0; i < 4; i++)
		now += starts_now(&s, &p, i) ? 2 : 0;
	CHECK(now == 6, "per type: borrowing stops at 6 (%d)", now);
	CHECK(mx_tenancy_over_quota(&s, &p, 3, t, 2, NULL, 0) == 2, "a start beyond it is refused, as launch_due asks");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_quota();
	test_quota_overdue();
	test_quota_later();
	test_quota_later_long_names();
	test_borrower_yields();
	test_fair_share_order();
	test_refusal_keeps_reasons();
	test_quota_other_type();
	test_quota_narrow_caps();
	test_quota_type_down();
	test_quota_keeps_refusal();
	test_quota_backfill();
	test_quota_borrow_limit();
	return unit_done("test_tenancy");
}
