/*
 * preview.h — a round's plan without the round: read the tables as the
 * extension's owner, plan them with the core exactly as mx_run_round()
 * does, hand the plan to a callback, and write nothing (no plan, no
 * mixdnn.rounds row, no notification). mixdnn.explain() and
 * mixdnn.what_if() are built on it.
 */
#ifndef MIXDNN_PREVIEW_H
#define MIXDNN_PREVIEW_H

#include "postgres.h"

#include "planner.h"
#include "snapshot_read.h"

typedef struct mx_preview
{
	mx_db_snapshot d;
	mx_options	o;
	mx_plan		plan;			/* empty when the hypothetical job is behind the horizon */
	int			ji;				/* the job asked about in d.snap.jobs; -1 when not read */
	bool		behind_horizon; /* it waits behind the planning horizon: plan does not cover it */
	int			horizon;		/* mixdnn.planning_horizon */
	int64		queue_rank;		/* its rank in queue order; set when behind_horizon */
} mx_preview;

/* A job as submitted (defaults applied, validated), by names. */
typedef struct mx_hypothetical
{
	bool		hard;
	const char *gpu_type;		/* NULL: a soft job stated for speed-1.0 GPUs */
	int			gpus;
	int			min_gpus;
	int			max_gpus;
	int			nallowed;		/* -1: every registered type */
	char	  **allowed;
	double		duration;		/* seconds */
	int			priority;
	const char *model;			/* NULL: the scaling model */
} mx_hypothetical;

typedef void (*mx_preview_fn) (const mx_preview *pv, void *arg);

/*
 * Plan now, with job *extra added as if it had just been submitted: served
 * after every waiting job of its priority (its submitted_at is now, its
 * job_id the largest). Like a real submission, it pushes the last job of a
 * full horizon out; behind a full horizon it is not planned at all
 * (behind_horizon, queue_rank, ji = -1). Calls fn(pv, arg) while the plan
 * exists. Connects to SPI itself.
 */
void		mx_preview_run(const mx_hypothetical *extra, mx_preview_fn fn, void *arg);

/*
 * Plan now and call fn(pv, arg) with pv->ji the index of waiting job
 * job_id: within the horizon, planned like every other; behind it, read
 * after planning (behind_horizon, queue_rank). ji = -1: it is not waiting.
 */
void		mx_preview_job(int64 job_id, mx_preview_fn fn, void *arg);

/* GPUs of a type free now, as the round's capacity counts them. */
int			mx_type_free_now(const mx_preview *pv, int type);

#endif
