/*
 * plan_limits.h — the largest times the core plans with, and the check that
 * keeps every plan inside them (docs/model.md, "Limits").
 *
 * A round plans for everyone at once, so one job with an absurd run time
 * (a duration on a type of speed 1e-6, a tiny measured throughput) must not
 * produce a time the database cannot store: such a configuration is no
 * candidate, and a plan that would still end beyond the last plannable
 * instant leaves that one job unplanned with a reason.
 */
#ifndef MIXDNN_PLAN_LIMITS_H
#define MIXDNN_PLAN_LIMITS_H

#include "plan.h"
#include "snapshot.h"

/* A configuration that would run longer than ten years is no candidate. */
#define MX_MAX_RUNTIME_S (3650.0 * 86400.0)

/* 9999-12-31 23:59:59 UTC: no plan ends later (PostgreSQL stores far more). */
#define MX_MAX_EPOCH_S 253402300799.0

/* 1 if a run time is a finite, positive number of seconds within MX_MAX_RUNTIME_S. */
int			mx_runtime_ok(double runtime);

/*
 * 1 if a run of runtime seconds from start ends by MX_MAX_EPOCH_S. A policy
 * checks it before a job takes its GPUs: a plan that mx_plan_enforce_limits
 * drops afterwards would have held them from the jobs behind it.
 */
int			mx_ends_in_calendar(double start, double runtime);

/* Makes a unplannable: its plan would end after MX_MAX_EPOCH_S. */
void		mx_unplan_late(mx_assignment *a);

/*
 * Every planned assignment of p whose start or end is not finite, lies
 * before s->now - 1 s or after MX_MAX_EPOCH_S becomes MX_UNPLANNABLE with a
 * reason. Returns how many were changed.
 */
int			mx_plan_enforce_limits(const mx_snapshot *s, mx_plan *p);

#endif
