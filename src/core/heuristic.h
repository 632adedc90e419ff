/*
 * heuristic.h — greedy list scheduling: the MILP's incumbent and fallback,
 * and the planner for jobs beyond the MILP's window.
 */
#ifndef MIXDNN_HEURISTIC_H
#define MIXDNN_HEURISTIC_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"
#include "utility.h"

/*
 * Order in which the heuristic considers jobs (weighted shortest best run
 * time first); order must hold s->njobs indices.
 */
void		mx_heuristic_order(const mx_snapshot *s, const mx_options *o, int *order);

/*
 * The heuristic's choice for one job among its configurations cf[0..n)
 * against cap: the index of the config that finishes earliest (ties: fewer
 * GPUs, the previous plan's type, lower type index) and its start in *start;
 * -1 when none ever fits. cap is not changed.
 */
int			mx_heuristic_choose(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
								const mx_job *j, const mx_config *cf, int n, double *start);

/* Guard of a waiting job in this round (docs/model.md, "Who holds GPUs"). */
#define MX_GUARD_NONE 0
#define MX_GUARD_CRITICAL 1		/* waited critical_wait x r and would end after the known makespan bound T: served first when it fits now */
#define MX_GUARD_STARVING 2		/* waited >= starve_factor x its best run time: reserved */
#define MX_GUARD_DRAIN 3		/* critical with slack below drain_margin: reserved (GPUs drained for it) */

/*
 * guard[i] for every job of s (s->njobs entries) and, unless best is NULL,
 * best[i] = the shortest run time over its candidates (INFINITY without
 * any). With o->reserve_all every guard is MX_GUARD_NONE and best is not
 * filled. 0, or -1 when out of memory.
 */
int			mx_job_guards(const mx_snapshot *s, const mx_options *o, unsigned char *guard, double *best);

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
