/*
 * guc.h — the mixdnn.* settings.
 */
#ifndef MIXDNN_GUC_H
#define MIXDNN_GUC_H

#include "postgres.h"
#include "utils/timestamp.h"

#include "planner.h"

typedef enum mx_plan_mode
{
	MX_PLAN_MODE_COMMIT = 0,	/* a round in every committing transaction (contract §4) */
	MX_PLAN_MODE_WORKER			/* the background worker plans for many commits at once */
} mx_plan_mode;

extern int	mx_guc_plan_mode;
extern int	mx_guc_policy;
extern bool mx_guc_use_milp;
extern bool mx_guc_launch_worker;
extern bool mx_guc_force_drop;
extern int	mx_guc_history_retention_s;
extern int	mx_guc_time_limit_ms;
extern double mx_guc_mip_gap;
extern int	mx_guc_window_jobs;
extern int	mx_guc_grid_points;
extern double mx_guc_scaling_alpha;
extern int	mx_guc_overrun_s;
extern double mx_guc_overrun_factor;
extern int	mx_guc_aging_s;
extern double mx_guc_starve_factor;
extern double mx_guc_critical_margin;
extern double mx_guc_critical_wait;
extern double mx_guc_critical_trade;
extern double mx_guc_drain_margin;
extern bool mx_guc_reserve_all;
extern int	mx_guc_lease_timeout_s;
extern int	mx_guc_max_retries;
extern int	mx_guc_lock_timeout_ms;
extern int	mx_guc_planning_horizon;
extern int	mx_guc_max_waiting_jobs;
extern bool mx_guc_fair_share;
extern int	mx_guc_fair_share_half_life_s;
extern double mx_guc_replan_tolerance;

/* The virtual clock: valid only when mx_virtual_now_set. */
extern bool mx_virtual_now_set;
extern TimestampTz mx_virtual_now;

void		mx_guc_init(void);
void		mx_guc_reserve_prefix(void);

/* Planner options from the settings. */
void		mx_guc_options(mx_options *o);

#endif
