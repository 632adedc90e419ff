/*
 * options.h — what a caller chooses of a round: the policy and the
 * planner's parameters, their defaults, and their command-line form. Every
 * planner and policy module depends on this one; it depends on none.
 */
#ifndef MIXDNN_OPTIONS_H
#define MIXDNN_OPTIONS_H

#include <stddef.h>

typedef enum mx_policy
{
	MX_POLICY_MIXDNN = 0,		/* utility model: heuristic + GLPK MILP */
	MX_POLICY_K8S,				/* submit order, requested config, first fit, skip what does not fit */
	MX_POLICY_STATIC,			/* requested config, strict FIFO */
	MX_POLICY_BACKFILL,			/* requested config, EASY backfill */
	/* the strong non-preemptive comparators (comparators.h) */
	MX_POLICY_SJF,				/* requested config, shortest estimated run first, first fit */
	MX_POLICY_HGREEDY,			/* submit order, the allowed config that finishes first, if free now */
	MX_POLICY_HSJF,				/* as hgreedy, shortest best run time first */
	MX_POLICY_K8S_ANY			/* as k8s, a soft job may take another type at its requested count */
} mx_policy;

#define MX_NPOLICIES 8

struct mx_plan;

/* What a start check (below) says of a start now. */
typedef enum mx_start_verdict
{
	MX_START_OK = 0,			/* the job may start so */
	MX_START_BORROWS,			/* only by borrowing: it would make the job a borrower */
	MX_START_REFUSED			/* no */
} mx_start_verdict;

/*
 * Whether job ji of the round's snapshot may start now on (type, gpus),
 * beside the running jobs and the jobs plan p starts now.
 */
typedef mx_start_verdict (*mx_start_check) (const void *ctx, const struct mx_plan *p, int ji, int type,
											int gpus);

typedef struct mx_options
{
	mx_policy	policy;
	int			use_milp;		/* 0: heuristic only */
	double		time_limit_ms;	/* GLPK's budget: CPU ms for the LP, wall ms for the MILP */
	double		mip_gap;		/* GLPK stops when bound - best <= mip_gap * the window's weighted completion time (docs/model.md) */
	int			window_jobs;	/* waiting jobs inside the MILP; the rest by the heuristic */
	int			grid_points;	/* start-time points of the MILP's non-uniform grid */
	double		scaling_alpha;	/* throughput ~ n^alpha without a profile */
	double		overrun_s;		/* a job past its expected end is assumed to need at least this much longer */
	double		overrun_factor;	/* rho: ... and at least rho x the time it is past it (overrun.h) */
	double		aging_s;		/* a job's weight grows by its base weight every aging_s seconds of waiting */
	/*
	 * Guards of the heuristic's list scheduling (docs/model.md, "Who holds
	 * GPUs"): a waiting job holds no GPUs ahead of time unless it is
	 * starving (it gets a reservation) or makespan-critical (it is served
	 * first whenever it fits now; only once it has waited critical_wait x
	 * its best run time).
	 */
	double		starve_factor;	/* X: a job waiting >= X x its best run time is starving; <= 0: never */
	double		critical_margin;	/* mu: critical when now >= T - (1 + mu) x its best run time; < 0: never */
	double		critical_wait;	/* kappa: critical or draining only once waited kappa x its best run time; 0: on arrival */
	double		critical_trade;	/* lambda: a critical job starts first only if its makespan gain >= lambda x the completion time it costs others (relative); 0: always */
	double		drain_margin;	/* nu: a critical job with now >= T - (1 + nu) x its best run time is reserved; < 0: never */
	int			reserve_all;	/* 1: every job reserves in its turn (the ablation of the guards) */
	/*
	 * H, the normaliser of a plan's value (docs/model.md): 0 (the default)
	 * lets mx_plan_round() choose it per round from the MILP's window; the
	 * value functions use MX_DEFAULT_HORIZON_S when it is 0 outside a round.
	 */
	double		value_horizon_s;
	/*
	 * Fair share (tenancy.h, docs/model.md "Quotas and fair share"): 1
	 * scales each job's weight by its owner's factor; the half-life of
	 * the usage history the factor is computed from.
	 */
	int			fair_share;
	double		fair_share_half_life_s;
	/*
	 * The configuration LP (docs/model.md, "Configuration LP"): with
	 * use_milp, a time-indexed LP over the first lp_window waiting jobs
	 * that are not held chooses their configurations; 0 restores the
	 * start-now MILP over window_jobs jobs (ablation).
	 */
	int			lp_configs;
	int			lp_window;
	/*
	 * A window job its LP configuration makes wait starts now on another
	 * of its configurations that fits for its whole run and ends it
	 * sooner, moving no other plan (docs/model.md, the LP's backfill).
	 */
	int			lp_backfill;
	/*
	 * NULL: any start is allowed. Otherwise a rule the planner cannot check
	 * itself, because its snapshot has no owners: tenancy.c sets it to its
	 * owners' quotas. The LP's backfill moves a job only onto a
	 * configuration it calls MX_START_OK.
	 */
	mx_start_check start_check;
	const void *start_check_ctx;
} mx_options;

#define MX_DEFAULT_HORIZON_S (30.0 * 86400.0)
#define MX_DEFAULT_HALF_LIFE_S (86400.0)

/* Fitted on Gavel's throughput matrix, docs/model.md "Scaling exponent". */
#define MX_FITTED_ALPHA 0.75

/* Defaults; each is justified by a measurement in docs/model.md. */
void		mx_options_default(mx_options *o);

const char *mx_policy_name(mx_policy p);
/* 0 on success, -1 for an unknown name. */
int			mx_policy_parse(const char *name, mx_policy *out);

/*
 * The planner's options as command-line options of bin/mixdnn-sim and
 * bin/mixdnn-bench, one table for both, with the range each accepts.
 */
typedef enum mx_option_kind
{
	MX_OPT_REAL,				/* a number in [lo, hi] */
	MX_OPT_INT,					/* a whole number in [lo, hi] */
	MX_OPT_SET,					/* a flag: sets the int field to 1 */
	MX_OPT_CLEAR				/* a flag: sets the int field to 0 */
} mx_option_kind;

typedef struct mx_option_spec
{
	const char *name;			/* without the leading -- */
	mx_option_kind kind;
	size_t		offset;			/* of the field in mx_options */
	double		lo,
				hi;
	const char *arg;			/* the value's name in the help, NULL for a flag */
	const char *help;
} mx_option_spec;

extern const mx_option_spec mx_option_specs[];
extern const int mx_noption_specs;

/*
 * Sets spec's field of *o from value (NULL for a flag). Returns 0, or -1
 * with err set to why value is not acceptable (o unchanged).
 */
int			mx_option_set(mx_options *o, const mx_option_spec *spec, const char *value,
						  char *err, size_t errlen);


/*
 * The overrun factor a round of o->policy plans with (overrun.h):
 * o->overrun_factor for mixdnn; 0 for every other policy, whose schedules
 * must not move with MixDNN's model. mx_overrun_end treats a factor that
 * is not a positive finite number as 0.
 */
double		mx_overrun_factor(const mx_options *o);

#endif
