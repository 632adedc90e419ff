/*
 * planner.h — one scheduling round: snapshot in, plan out.
 *
 * The extension, bin/mixdnn-sim and bin/mixdnn-bench all call
 * mx_plan_round(), so what is measured is what runs in the database.
 */
#ifndef MIXDNN_PLANNER_H
#define MIXDNN_PLANNER_H

#include "snapshot.h"
#include "plan.h"

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

typedef struct mx_options
{
	mx_policy	policy;
	int			use_milp;		/* 0: heuristic only */
	double		time_limit_ms;	/* wall-clock budget of the MILP */
	double		mip_gap;		/* GLPK stops when bound - best <= mip_gap * the window's weighted completion time (docs/model.md) */
	int			window_jobs;	/* waiting jobs inside the MILP; the rest by the heuristic */
	int			grid_points;	/* start-time points of the MILP's non-uniform grid */
	double		scaling_alpha;	/* throughput ~ n^alpha without a profile */
	double		overrun_s;		/* a job past its expected end is assumed to need this much longer */
	double		aging_s;		/* a job's weight grows by its base weight every aging_s seconds of waiting */
	/*
	 * Guards of the heuristic's list scheduling (docs/model.md, "Who holds
	 * GPUs"): a waiting job holds no GPUs ahead of time unless it is
	 * starving (it gets a reservation) or makespan-critical (it is served
	 * first whenever it fits now).
	 */
	double		starve_factor;	/* X: a job waiting >= X x its best run time is starving; <= 0: never */
	double		critical_margin;	/* mu: critical when now >= T - (1 + mu) x its best run time; < 0: never */
	double		drain_margin;	/* nu: a critical job with now >= T - (1 + nu) x its best run time is reserved; < 0: never */
	int			reserve_all;	/* 1: every job reserves in its turn (the planner before issue #4; ablation) */
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
} mx_options;

#define MX_DEFAULT_HORIZON_S (30.0 * 86400.0)
#define MX_DEFAULT_HALF_LIFE_S (86400.0)

/* Defaults; each is justified by a measurement in docs/model.md. */
void		mx_options_default(mx_options *o);

const char *mx_policy_name(mx_policy p);
/* 0 on success, -1 for an unknown name. */
int			mx_policy_parse(const char *name, mx_policy *out);

/*
 * Plan every waiting job of s. Returns 0 and fills *out (release it with
 * mx_plan_free), or -1 when out of memory. Never exits, never prints.
 */
int			mx_plan_round(const mx_snapshot *s, const mx_options *o, mx_plan *out);

#endif
