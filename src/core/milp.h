/*
 * milp.h — the GLPK mixed-integer utility model over a non-uniform time grid.
 */
#ifndef MIXDNN_MILP_H
#define MIXDNN_MILP_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"

typedef enum mx_milp_result
{
	MX_MILP_OPTIMAL = 0,		/* solved within the gap */
	MX_MILP_FEASIBLE,			/* time limit: best integer solution found */
	MX_MILP_NO_SOLUTION,		/* nothing better than the incumbent, or no integer solution */
	MX_MILP_ERROR,				/* GLPK failed (error hook caught it), or out of memory */
	MX_MILP_TIME_LIMIT			/* time limit before anything better than the incumbent */
} mx_milp_result;

/*
 * Tests only: when non-zero, mx_milp_plan() makes a deliberately invalid
 * GLPK call, so that the error-hook path (MX_MILP_ERROR) can be exercised.
 */
extern int	mx_milp_test_force_error;

/*
 * Re-plan the jobs window[0..n) within cap (the running jobs and whatever
 * the caller holds there — mx_plan_round() reserves the starving and
 * critical jobs' plans), starting from the incumbent in p (the heuristic's
 * plan for the same jobs). On OPTIMAL/FEASIBLE, p->a[...] for the window
 * holds the MILP's choice and *bound the LP bound; otherwise p is
 * unchanged. Window jobs the MILP leaves out are set to MX_WAITING (type -1)
 * for the caller to plan into the residual capacity; so are the jobs at the
 * end of the window that o->time_limit_ms left out of the model (the build
 * stops adding jobs after a share of the budget or beyond a model size,
 * docs/model.md "Budget"). OPTIMAL without a change of p means the LP
 * bound proved the incumbent optimal. *nvars = binary variables built.
 * o->time_limit_ms is this call's whole budget, model building included.
 */
mx_milp_result mx_milp_plan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
							const int *window, int n, mx_plan *p, double *bound, int *nvars);

#endif
