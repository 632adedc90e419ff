/*
 * value.h — the value model: a job's weight from its priority and waiting
 * time, and the objective value of running it or of a whole plan (the
 * quantity every planner maximizes; docs/model.md, "Objective").
 */
#ifndef MIXDNN_VALUE_H
#define MIXDNN_VALUE_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"

/* Job weight from priority and waiting time (docs/model.md). */
double		mx_job_weight(const mx_snapshot *s, const mx_job *j, const mx_options *o);

/*
 * Objective value of running job j on a configuration from start to end:
 * w_j * (1 - (end - now) / H), H = mx_value_horizon(o).
 */
double		mx_value(const mx_snapshot *s, const mx_job *j, const mx_options *o,
					 double start, double end);

/* H: o->value_horizon_s when set, else MX_DEFAULT_HORIZON_S. */
double		mx_value_horizon(const mx_options *o);

/* Sum of mx_value() over the MX_PLANNED assignments of p. */
double		mx_plan_value(const mx_snapshot *s, const mx_options *o, const mx_plan *p);

#endif
