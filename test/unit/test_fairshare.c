/* test_fairshare.c — the owners' fair-share factors (fairshare.c). */
#include "unit.h"
#include "fixtures.h"
#include "fairshare.h"

static void
test_decay(void)
{
	double		t = 3600;

	CHECK_NEAR(mx_decayed_usage(2, NOW - t, NOW, NOW, t), t / log(2.0), 1e-6,
			   "one half-life of 2 GPUs: 2 x (1 - 1/2) / (ln 2 / T)");
	CHECK_NEAR(mx_decayed_usage(2, NOW - t, NOW + t, NOW, 0), 2 * t, 1e-9, "no half-life: no decay, clipped at now");
	CHECK(mx_decayed_usage(2, NOW, NOW + t, NOW, t) == 0, "a part that has not run yet used nothing");
	CHECK_NEAR(mx_decayed_usage(1, NOW - 2 * t, NOW - t, NOW, t),
			   mx_decayed_usage(1, NOW - t, NOW, NOW, t) / 2, 1e-6, "an hour a half-life ago weighs half");
}

static void
test_factors(void)
{
	mx_snapshot s;
	mx_options	o;
	double		f[3],
				e[3],
				u[3];
	int			t;

	fx_init(&s, NOW);
	mx_options_default(&o);
	t = fx_type(&s, "v100", 1.0);
	fx_node(&s, "n1", t, 4, MX_NODE_UP);
	fx_owner(&s, "a", 1);
	fx_owner(&s, "b", 1);
	fx_owner(&s, "idle", 5);
	s.owners[0].usage_s = 300;
	s.owners[1].usage_s = 100;
	s.owners[2].usage_s = 1000;
	fx_hard(&s, 1, t, 1, 60)->owner = 0;
	fx_hard(&s, 2, t, 1, 60)->owner = 1;
	CHECK(mx_tenancy_factors(&s, &o, f, e, u) == 0, "factors");
	CHECK_NEAR(e[0], 0.5, 1e-12, "entitlements among owners with work only");
	CHECK_NEAR(u[0], 0.75, 1e-12, "usage share 300 / 400");
	CHECK_NEAR(f[0], pow(2, 1 - 1.5), 1e-12, "over its share: 2^(1 - 0.75/0.5)");
	CHECK_NEAR(f[1], pow(2, 0.5), 1e-12, "under its share: 2^(1 - 0.25/0.5)");
	CHECK(f[2] == 1 && e[2] == 0, "an owner without work: factor 1, no entitlement");
	/* GPUs held count until their expected end, at most a half-life. */
	fx_part(&s, 9, 0, 2, NOW + 50);
	s.parts[0].owner = 1;
	CHECK(mx_tenancy_factors(&s, &o, f, e, u) == 0, "factors with a part");
	CHECK_NEAR(u[1], 200.0 / 500.0, 1e-12, "b: 100 + 2 GPUs x 50 s left");
	/* an overdue part counts until the end the planner assumes (overrun.h) */
	s.parts[0].expected_end = NOW - 150;
	CHECK(mx_tenancy_factors(&s, &o, f, e, u) == 0, "factors with an overdue part");
	CHECK_NEAR(u[1], 400.0 / 700.0, 1e-12, "b: 100 + 2 GPUs x 150 s more (150 s overdue, overrun_factor 1)");
	/* the baselines assume the grace alone, whatever the factor (mx_overrun_factor) */
	o.policy = MX_POLICY_BACKFILL;
	CHECK(mx_tenancy_factors(&s, &o, f, e, u) == 0, "factors with an overdue part under backfill");
	CHECK_NEAR(u[1], 220.0 / 520.0, 1e-12, "b: 100 + 2 GPUs x 60 s (the grace, overrun_s) under backfill");
	o.policy = MX_POLICY_MIXDNN;
	o.overrun_factor = 0;
	CHECK(mx_tenancy_factors(&s, &o, f, e, u) == 0, "factors with an overdue part, overrun_factor 0");
	CHECK_NEAR(u[1], 220.0 / 520.0, 1e-12, "b: 100 + 2 GPUs x 60 s with overrun_factor 0");
	mx_snapshot_free(&s);
}

int
main(void)
{
	test_decay();
	test_factors();
	return unit_done("test_fairshare");
}
