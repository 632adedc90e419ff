/*
 * bound.h — a whole-instance lower bound on the weighted completion time of
 * any complete plan, hence an upper bound on the planner's objective, from
 * one LP solved by GLPK (bench only; docs/performance.md, "Bounds").
 *
 * The core's plan.bound is the LP bound of the MILP's window on its own
 * time grid, plus the rest of the jobs *as the heuristic planned them*: it
 * says nothing about the jobs outside the window, nor about start times off
 * the grid. This bound covers every plannable job and continuous time.
 *
 * Relaxation ("energy LP"): time after now is cut into geometric buckets
 * (t_{b-1}, t_b] with t_b - now = (t_{b-1} - now) * ratio. x[j,c,b] = share
 * of job j finishing in bucket b on configuration c (type k, g GPUs, run
 * time p). A job on c cannot finish before e_c = earliest start of g GPUs of
 * type k for p seconds beside the running jobs, plus p. Constraints:
 *   sum_{c,b} x[j,c,b] = 1                                  (every job planned)
 *   sum_{j, c of type k, b' <= b} g p x[j,c,b'] <= A_k(t_b) (GPU-seconds of type k
 *                                         free of running jobs in [now, t_b])
 * Objective: min sum w_j (max(t_{b-1}, e_c) - now) x[j,c,b]. Any real plan
 * is a 0/1 point of it, so the LP optimum LB <= weighted completion time
 * sum w_j (end_j - now) of every plan, and objective <= sum w_j - LB / H.
 * Gang placement and the bucket width make it loose: at most a factor
 * ratio on each job's (end - now), plus what the fluid view of the GPUs
 * forgives.
 */
#ifndef MIXDNN_BENCH_BOUND_H
#define MIXDNN_BENCH_BOUND_H

#include "snapshot.h"
#include "planner.h"

typedef struct bench_bound
{
	int			ok;				/* 1: lb is valid */
	double		lb_wct;			/* lower bound on sum w_j (end_j - now) */
	double		sum_w;			/* sum of w_j over the plannable jobs */
	int			jobs;			/* plannable jobs */
	int			cols;
	int			rows;
	int			buckets;
	double		ms;				/* time to build and solve */
	char		status[64];
} bench_bound;

/*
 * Solve the energy LP. horizon_end: the last bucket boundary (e.g. the
 * latest end of a plan); past it one unbounded bucket. time_limit_s: GLPK's
 * limit. Returns 0 (see b->ok), or -1 out of memory.
 */
int			bench_energy_bound(const mx_snapshot *s, const mx_options *o, double ratio,
							   double horizon_end, double time_limit_s, bench_bound *b);

#endif
