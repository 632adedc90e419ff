/*
 * passes.h — guarded list scheduling: the heuristic's plan of a round, the
 * MILP's incumbent and fallback, and the planner for jobs beyond the LP's
 * or MILP's window (docs/model.md, "Heuristic").
 */
#ifndef MIXDNN_PASSES_H
#define MIXDNN_PASSES_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"

/*
 * Plan the jobs order[0..n) into cap (reserving what it plans), each at the
 * configuration that finishes it earliest, in four passes (critical jobs
 * that start now; starving jobs, reserved; the rest that start now; the
 * deferred rest, planned into what is left — docs/model.md, "Heuristic").
 * Fills p->a[job].
 */
void		mx_heuristic_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap,
							  const int *order, int n, mx_plan *p);

/*
 * The same with the guards and best run times of mx_job_guards() already
 * computed (the planner needs them for its holds too); guard == NULL plans
 * conservatively, every job reserving in turn.
 */
void		mx_heuristic_plan_guarded(const mx_snapshot *s, const mx_options *o, mx_capacity *cap,
									  const int *order, int n, mx_plan *p,
									  const unsigned char *guard, const double *best);

#endif
