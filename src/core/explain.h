/*
 * explain.h — why a waiting job has the plan a round gives it: each of its
 * candidate configurations with its utility, run time, earliest feasible
 * start and value, which one the round chose, and what keeps each faster
 * one from finishing the job sooner. Plain C; the extension's
 * mixdnn.explain() and mixdnn.what_if() call it on a plan that
 * mx_plan_round() made, so what they say is what a round does.
 */
#ifndef MIXDNN_EXPLAIN_H
#define MIXDNN_EXPLAIN_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"

/*
 * What keeps a faster configuration from finishing the job before its
 * chosen one. Extensible: new causes (quota, fair share) go at the end.
 */
typedef enum mx_block_cause
{
	MX_BLOCK_NONE = 0,			/* chosen, or not faster than the chosen one */
	MX_BLOCK_CAPACITY,			/* GPUs held by launching/running jobs until they end */
	MX_BLOCK_GUARDS,			/* GPUs reserved for starving or makespan-critical jobs */
	MX_BLOCK_RESERVATIONS,		/* GPUs planned for other waiting jobs */
	MX_BLOCK_OBJECTIVE,			/* it fits, but the round's plan is worth more overall */
	MX_BLOCK_CLUSTER,			/* no up node could hold any configuration */
	MX_BLOCK_HORIZON,			/* behind the planning horizon: no round plans it yet */
	MX_BLOCK_QUOTA,				/* its owner's quota, which lends no GPUs, would be exceeded now */
	MX_BLOCK_FAIR_SHARE			/* the round without fair share would end the job sooner (also on the chosen row) */
} mx_block_cause;

typedef struct mx_candidate
{
	int			type;			/* -1 on the MX_BLOCK_CLUSTER row */
	int			gpus;
	double		utility;
	double		runtime;		/* seconds */
	double		start;			/* earliest feasible start; the plan's start when chosen; INFINITY: never */
	double		value;			/* mx_value() of running from start; NAN when never */
	int			chosen;
	mx_block_cause blocked_by;
} mx_candidate;

typedef struct mx_explanation
{
	int			n;
	mx_candidate *c;			/* malloc'd; the chosen one first, then by run time */
	int			guard;			/* MX_GUARD_* of the job in this round */
	/*
	 * Unguarded only because it has not waited critical_wait x its best
	 * run time yet: when that wait ends (seconds, the snapshot's clock);
	 * NAN otherwise.
	 */
	double		critical_from;
} mx_explanation;

/*
 * Explain job ji of s under plan p (made by mx_plan_round(s, o)): every
 * candidate's earliest start keeps every other job's plan as it is. A job
 * without candidates on the up nodes gets one MX_BLOCK_CLUSTER row. A job
 * that p does not cover (ji >= p->n: appended to s after planning, because
 * it waits behind the planning horizon) has no chosen row, and every
 * candidate is MX_BLOCK_HORIZON. 0, or -1 when out of memory.
 */
int			mx_explain_job(const mx_snapshot *s, const mx_options *o, const mx_plan *p, int ji,
						   mx_explanation *out);

void		mx_explanation_free(mx_explanation *e);

/* "capacity", "guards", ...; NULL for MX_BLOCK_NONE. */
const char *mx_block_cause_name(mx_block_cause c);

/*
 * Queue position of job ji in plan p: 1 + the waiting jobs served before it
 * (planned to start earlier, or at the same time with a smaller job_id, the
 * order in which launches are made); 0 when ji has no planned start.
 */
int			mx_plan_position(const mx_plan *p, int ji);

#endif
