/*
 * options.c — the planner's options: defaults, policy names, and the
 * command-line table of the simulator and the benchmark (options.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

void
mx_options_default(mx_options *o)
{
	memset(o, 0, sizeof(*o));
	o->policy = MX_POLICY_MIXDNN;
	o->use_milp = 1;
	o->time_limit_ms = 200.0;
	o->mip_gap = 0.01;
	o->window_jobs = 20;
	o->grid_points = 24;
	o->scaling_alpha = MX_FITTED_ALPHA;
	o->overrun_s = 60.0;
	o->overrun_factor = 1.0;
	o->aging_s = 3600.0;
	o->value_horizon_s = 0.0;
	o->starve_factor = 16.0;
	o->critical_margin = 0.05;
	o->critical_wait = 0.05;
	o->critical_trade = 3;
	o->drain_margin = -1.0;
	o->reserve_all = 0;
	o->fair_share = 0;
	o->fair_share_half_life_s = MX_DEFAULT_HALF_LIFE_S;
	o->lp_configs = 1;
	o->lp_window = 150;
	o->lp_backfill = 1;
}

static const char *const policy_names[MX_NPOLICIES] = {
	"mixdnn", "k8s", "static", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any"
};

const char *
mx_policy_name(mx_policy p)
{
	if ((int) p < 0 || (int) p >= MX_NPOLICIES)
		return "unknown";
	return policy_names[p];
}

int
mx_policy_parse(const char *name, mx_policy *out)
{
	int			i;

	if (name == NULL)
		return -1;
	for (i = 0; i < MX_NPOLICIES; i++)
		if (strcmp(name, policy_names[i]) == 0)
		{
			*out = (mx_policy) i;
			return 0;
		}
	if (strcmp(name, "kubernetes") == 0)
	{
		*out = MX_POLICY_K8S;
		return 0;
	}
	return -1;
}

#define OFF(field) offsetof(mx_options, field)

/*
 * The ranges are those the simulator always accepted; mixdnn.* settings
 * (src/pg/guc.c) have their own, in the units of a setting.
 */
const mx_option_spec mx_option_specs[] = {
	{"no-milp", MX_OPT_CLEAR, OFF(use_milp), 0, 0, NULL, "mixdnn: heuristic only"},
	{"time-limit-ms", MX_OPT_REAL, OFF(time_limit_ms), 1, 3.6e6, "MS", "mixdnn: GLPK budget per round (CPU ms for the LP, wall ms for the MILP)"},
	{"window", MX_OPT_INT, OFF(window_jobs), 0, 100000, "N", "mixdnn: waiting jobs inside the MILP"},
	{"mip-gap", MX_OPT_REAL, OFF(mip_gap), 0, 1, "G", "mixdnn: relative MIP gap"},
	{"grid-points", MX_OPT_INT, OFF(grid_points), 2, 100000, "N", "mixdnn: start-time points of the MILP grid"},
	{"alpha", MX_OPT_REAL, OFF(scaling_alpha), 0, 1, "A", "scaling exponent for unprofiled configurations"},
	{"aging-s", MX_OPT_REAL, OFF(aging_s), 0, 1e12, "S",
	"mixdnn: a job's weight grows by its base weight every S s of waiting"},
	{"starve-factor", MX_OPT_REAL, OFF(starve_factor), 0, 1e6, "X",
	"mixdnn: waiting X times its best run time earns a reservation (0: never)"},
	{"critical-margin", MX_OPT_REAL, OFF(critical_margin), -1, 100, "MU",
	"mixdnn: slack share at which a long job is critical (<0: never)"},
	{"critical-wait", MX_OPT_REAL, OFF(critical_wait), 0, 100, "K",
	"mixdnn: a long job is critical or draining only after waiting K times its best run time"},
	{"critical-trade", MX_OPT_REAL, OFF(critical_trade), 0, 1000, "L",
	"mixdnn: a critical job starts first only if its makespan gain is L times the others' loss (0: always)"},
	{"drain-margin", MX_OPT_REAL, OFF(drain_margin), -1, 100, "NU",
	"mixdnn: slack share below which a critical job reserves (<0: never)"},
	{"reserve-all", MX_OPT_SET, OFF(reserve_all), 0, 0, NULL,
	"mixdnn: every job reserves in its turn (the ablation of the guards)"},
	{"value-horizon-s", MX_OPT_REAL, OFF(value_horizon_s), 0, 1e12, "S",
	"mixdnn: H, the normaliser of a plan's value (0: chosen per round)"},
	{"start-now-milp", MX_OPT_CLEAR, OFF(lp_configs), 0, 0, NULL,
	"mixdnn: the start-now MILP instead of the configuration LP (ablation)"},
	{"lp-window", MX_OPT_INT, OFF(lp_window), 1, 100000, "N",
	"mixdnn: waiting jobs inside the configuration LP (default 150)"},
	{"no-lp-backfill", MX_OPT_CLEAR, OFF(lp_backfill), 0, 0, NULL,
	"mixdnn: a window job its LP configuration makes wait is not started on a free, sooner one (ablation)"},
	{"fair-share", MX_OPT_SET, OFF(fair_share), 0, 0, NULL,
	"mixdnn: weigh each job by its owner's fair-share factor (docs/model.md)"},
	{"fair-share-half-life-s", MX_OPT_REAL, OFF(fair_share_half_life_s), 60, 1e9, "S",
	"half-life of the owners' usage history (default 86400)"},
	/*
	 * at least 1 s, as mixdnn.overrun_grace (1..86400 s): at 0 a job past
	 * its expected end was assumed to end now, the job waiting for its GPUs
	 * was due at once, could not be placed and was not planned again until
	 * the next event, where the database plans it again a second later
	 */
	{"overrun-s", MX_OPT_REAL, OFF(overrun_s), 1, 1e12, "S",
	"least assumed extra time of a job past its expected end, at least 1 s as mixdnn.overrun_grace (default 60)"},
	{"overrun-factor", MX_OPT_REAL, OFF(overrun_factor), 0, 100, "F",
	"a job d seconds past its expected end is assumed to need at least F x d more (default 1; 0: the least time alone)"},
};

const int	mx_noption_specs = (int) (sizeof(mx_option_specs) / sizeof(mx_option_specs[0]));

int
mx_option_set(mx_options *o, const mx_option_spec *spec, const char *value, char *err, size_t errlen)
{
	char	   *field = (char *) o + spec->offset;
	char	   *end;
	double		d;

	if (spec->kind == MX_OPT_SET || spec->kind == MX_OPT_CLEAR)
	{
		*(int *) field = spec->kind == MX_OPT_SET;
		return 0;
	}
	errno = 0;
	d = value ? strtod(value, &end) : 0;
	if (value == NULL || errno || end == value || *end != '\0' || !isfinite(d) || d < spec->lo || d > spec->hi)
	{
		snprintf(err, errlen, "--%s: \"%s\" is not a number in [%g, %g]", spec->name,
				 value ? value : "", spec->lo, spec->hi);
		return -1;
	}
	if (spec->kind == MX_OPT_INT)
		*(int *) field = (int) d;
	else
		*(double *) field = d;
	return 0;
}

double
mx_overrun_factor(const mx_options *o)
{
	return o->policy == MX_POLICY_MIXDNN ? o->overrun_factor : 0;
}
