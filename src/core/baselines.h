/*
 * baselines.h — the comparison policies of contract §6 (k8s, static, backfill).
 * All three use the requested configuration only.
 */
#ifndef MIXDNN_BASELINES_H
#define MIXDNN_BASELINES_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"

/* Fill p for every job of s under policy o->policy (not MX_POLICY_MIXDNN). */
void		mx_baseline_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, mx_plan *p);

/*
 * The requested configuration of job j (the rules at the top of
 * baselines.c), given the GPUs of each type on up nodes. Returns 0 and sets
 * *type, *gpus, *util, or -1 with a reason when the cluster could never run it
 * or its run time there is not within MX_MAX_RUNTIME_S (plan_limits.h).
 */
int			mx_requested_config(const mx_snapshot *s, const mx_job *j, const int *total, double alpha,
								int *type, int *gpus, double *util, char *reason, size_t rlen);

#endif
