/*
 * test_plan_limits.c — one absurd or refused job never stops the others
 * from being planned, under every policy (plan_limits.h, issue #9 items 5
 * and 6).
 */
#include <string.h>

#include "unit.h"
#include "fixtures.h"
#include "plan_limits.h"
#include "utility.h"

static void
cluster(mx_snapshot *s, double now)
{
	int			v,
				slow;

	fx_init(s, now);
	v = fx_type(s, "v100", 1.0);
	slow = fx_type(s, "slow", 1e-6);
	fx_node(s, "v1", v, 4, MX_NODE_UP);
	fx_node(s, "s1", slow, 4, MX_NODE_UP);
}

static void
absurd_runtime(mx_policy policy)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;

	cluster(&s, NOW);
	fx_soft(&s, 1, -1, 1, 1, 1, (uint64_t) 1 << 1, 300 * 86400.0);	/* slow only: 8e8 years */
	fx_hard(&s, 2, 0, 1, 3600.0);
	mx_options_default(&o);
	o.policy = policy;
	CHECK(mx_plan_round(&s, &o, &p) == 0, "%s: the round plans", mx_policy_name(policy));
	if (policy == MX_POLICY_MIXDNN)
		CHECK(p.a[0].status == MX_UNPLANNABLE && strstr(p.a[0].reason, "exceeds the limit of 3650 days") != NULL,
			  "%s: the absurd job is unplannable and says why (%s)", mx_policy_name(policy), p.a[0].reason);
	else
		CHECK(p.a[0].status != MX_PLANNED || p.a[0].end <= MX_MAX_EPOCH_S,
			  "%s: the absurd job has no plan beyond the last plannable time", mx_policy_name(policy));
	CHECK(p.a[1].status == MX_PLANNED && p.a[1].start == NOW, "%s: the other job starts now", mx_policy_name(policy));
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * The absurd job comes first in every order but sjf's, and asks for a GPU
 * of the slow type: taking it for the round and dropping its plan only
 * afterwards left the hard job that needs all four waiting for ever
 * ("k8s: needs 4 slow GPUs, 3 free now"; static, backfill: planned after
 * 9999-12-31 behind it).
 */
static void
absurd_blocks_nothing(mx_policy policy)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;

	cluster(&s, NOW);
	fx_soft(&s, 1, -1, 1, 1, 1, (uint64_t) 1 << 1, 300 * 86400.0);	/* slow only: 8e8 years */
	fx_hard(&s, 2, 1, 4, 3600.0);	/* every slow GPU, an hour */
	s.jobs[0].submitted = NOW - 10.0;
	s.jobs[1].submitted = NOW - 5.0;
	mx_options_default(&o);
	o.policy = policy;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_UNPLANNABLE &&
		  strstr(p.a[0].reason, "exceeds the limit of 3650 days") != NULL,
		  "%s: the absurd job is unplannable and says why (%s)", mx_policy_name(policy), p.a[0].reason);
	CHECK(p.a[1].status == MX_PLANNED && p.a[1].start == NOW,
		  "%s: the job that needs its GPUs starts now (%s)", mx_policy_name(policy), p.a[1].reason);
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
end_of_time(mx_policy policy)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;

	cluster(&s, MX_MAX_EPOCH_S - 3600.0);
	fx_hard(&s, 1, 0, 1, 7200.0);
	fx_hard(&s, 2, 0, 1, 600.0);
	mx_options_default(&o);
	o.policy = policy;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_UNPLANNABLE &&
		  strstr(p.a[0].reason, "after 9999-12-31") != NULL,
		  "%s: a plan ending after 9999-12-31 is unplannable (%s)", mx_policy_name(policy), p.a[0].reason);
	CHECK(p.a[1].status == MX_PLANNED, "%s: a job ending before it is planned", mx_policy_name(policy));
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

static void
refused(void)
{
	mx_snapshot s;
	mx_options	o;
	mx_plan		p;
	mx_job	   *j;

	cluster(&s, NOW);
	j = fx_soft(&s, 1, -1, 1, 1, 1, 0, 3600.0);
	j->refuse = "none of its allowed GPU types exists any more (a100)";
	fx_hard(&s, 2, 0, 1, 3600.0);
	j = &s.jobs[0];				/* adding a job may move the array */
	mx_options_default(&o);
	CHECK(mx_job_configs_max(&s, j) > 0 && !mx_job_fits_ever(&s, j, o.scaling_alpha),
		  "a refused job has no configuration, though its (empty) type set reads as every type");
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_UNPLANNABLE &&
		  strcmp(p.a[0].reason, j->refuse) == 0, "a refused job is unplannable with the caller's reason");
	CHECK(p.a[1].status == MX_PLANNED, "the other job is planned");
	mx_plan_free(&p);
	o.policy = MX_POLICY_K8S;
	CHECK(mx_plan_round(&s, &o, &p) == 0 && p.a[0].status == MX_UNPLANNABLE,
		  "k8s: a refused job is unplannable too");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

/*
 * mx_plan_enforce_limits() as plan_limits.h states it, on a hand-made plan:
 * a start before now - 1 s is no plan (the planner never makes one, so no
 * round can show this line failing; a plan in the past would be launched
 * at once as if it had been due all along).
 */
static void
enforce_past_start(void)
{
	mx_snapshot s;
	mx_plan		p;

	cluster(&s, NOW);
	fx_hard(&s, 1, 0, 1, 600.0);
	fx_hard(&s, 2, 0, 1, 600.0);
	fx_hard(&s, 3, 0, 1, 600.0);
	CHECK(mx_plan_init(&p, 3) == 0, "enforce: a plan of three jobs");
	fx_put(&p, 0, 0, 1, NOW - 10.0, 600.0);	/* 10 s in the past */
	fx_put(&p, 1, 0, 1, NOW - 0.5, 600.0);	/* within the second of slack */
	fx_put(&p, 2, 0, 1, NOW + 60.0, 600.0);
	CHECK(mx_plan_enforce_limits(&s, &p) == 1, "enforce: one assignment changed");
	CHECK(p.a[0].status == MX_UNPLANNABLE && isnan(p.a[0].start) && p.a[0].gpus == 0,
		  "enforce: a start 10 s before now is no plan (status %d)", p.a[0].status);
	CHECK(p.a[1].status == MX_PLANNED && p.a[1].start == NOW - 0.5,
		  "enforce: a start half a second before now is kept");
	CHECK(p.a[2].status == MX_PLANNED && p.a[2].start == NOW + 60.0, "enforce: a later start is kept");
	mx_plan_free(&p);
	mx_snapshot_free(&s);
}

int
main(void)
{
	mx_policy	pol;

	/* every policy, the comparators (sjf .. k8s-any) too: mixdnn.policy may name any */
	for (pol = MX_POLICY_MIXDNN; pol <= MX_POLICY_K8S_ANY; pol++)
	{
		absurd_runtime(pol);
		absurd_blocks_nothing(pol);
		end_of_time(pol);
	}
	refused();
	enforce_past_start();
	CHECK(mx_runtime_ok(MX_MAX_RUNTIME_S) && !mx_runtime_ok(MX_MAX_RUNTIME_S * 1.001) && !mx_runtime_ok(NAN) &&
		  !mx_runtime_ok(INFINITY) && !mx_runtime_ok(0), "mx_runtime_ok: finite, positive, at most ten years");
	return unit_done("test_plan_limits");
}
