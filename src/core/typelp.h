/*
 * typelp.h — the time-indexed LP that chooses each waiting job's
 * configuration (GPU type and count) from the queued demand per type.
 *
 * The LP relaxation (GLPK, inside the round) spreads the first lp_window
 * waiting jobs over geometric time slots and configurations under per-type
 * GPU-second capacity; each job then takes the configuration that carries
 * most of its LP mass. The heuristic's list scheduling places the jobs
 * with those configurations (docs/model.md, "Configuration LP").
 */
#ifndef MIXDNN_TYPELP_H
#define MIXDNN_TYPELP_H

#include "snapshot.h"
#include "options.h"
#include "capacity.h"
#include "utility.h"
#include "plan.h"

typedef enum mx_typelp_result
{
	MX_TYPELP_OK = 0,			/* choice[] filled from an optimal LP */
	MX_TYPELP_NOTHING,			/* no job with a choice between configurations */
	MX_TYPELP_LIMIT,			/* the CPU budget ran out (a partial solution is not used) */
	MX_TYPELP_ITERATIONS,		/* the iteration limit before the optimum (a partial solution is not used) */
	MX_TYPELP_NUMERIC,			/* GLPK failed to solve, unscaled and scaled (docs/model.md) */
	MX_TYPELP_ERROR				/* GLPK error caught, or out of memory */
} mx_typelp_result;

typedef struct mx_typelp_stats
{
	int			njobs;			/* window jobs in the LP (the window cut at its column limit) */
	int			ncols;			/* LP columns built */
	int			nrows;
	int			iterations;		/* simplex iterations used */
	double		lp_obj;			/* LP objective (weighted completion-time estimate, s) */
	int			prev_starts;	/* jobs started in the simplex's basis from the previous plan or the hint */
	int			rescued;		/* 1: the first solve was repeated from GLPK's standard basis */
	int			prev_ties;		/* ties between configurations the previous plan decided */
} mx_typelp_stats;

/* Tests only: make a deliberately invalid GLPK call (the error-hook path). */
extern int	mx_typelp_test_force_error;

/* Tests only: start from GLPK's standard basis (every slack basic), not the starting one. */
extern int	mx_typelp_test_slack_basis;

/* Tests only: > 0 replaces the first solve's iteration limit (the rescue keeps its own). */
extern int	mx_typelp_test_first_iterations;

/* Tests only: take the status of the first n solves (1, 2) as "no feasible solution". */
extern int	mx_typelp_test_force_fail;

/* Tests only: > 0 replaces the simplex iteration limit (in all). */
extern int	mx_typelp_test_iterations;

/* Tests only: > 0 replaces the chunk size (iterations). */
extern int	mx_typelp_test_chunk;

/* Tests only: CPU milliseconds each chunk is taken to have used. */
extern double mx_typelp_test_chunk_cpu_ms;

/* Tests only: when set, count first solves whose starting basis is primal infeasible. */
extern int	mx_typelp_test_count_starts;
extern int	mx_typelp_test_infeasible_starts;

/*
 * Choose a configuration for each of the jobs window[0..n) of s against cap
 * (running jobs and the round's holds). On MX_TYPELP_OK, choice[i] is the
 * chosen configuration of window[i] (type -1: keep the heuristic's choice).
 * hint (may be NULL): the round's heuristic plan, indexed by job; a window
 * job without a previous plan starts the simplex from its configuration
 * there. It changes where the simplex starts, not the LP, nor (unlike a
 * previous plan) how ties are broken.
 * deadline_ms (mx_thread_cpu_ms() scale) is a safety stop only; the
 * simplex iteration limit decides where a round's search ends, so the same
 * input gives the same choice on a busy machine. The simplex runs in
 * chunks with the thread's CPU time checked between two; a solve stopped
 * there is not used (MX_TYPELP_LIMIT). GLPK's wall-clock limit is not set.
 */
mx_typelp_result mx_typelp_configs(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
								   const int *window, int n, const mx_plan *hint, double deadline_ms,
								   mx_config *choice, mx_typelp_stats *st);

#endif
