/*
 * snapshot_read.h — the tables as an mx_snapshot (SPI; caller is connected).
 */
#ifndef MIXDNN_SNAPSHOT_READ_H
#define MIXDNN_SNAPSHOT_READ_H

#include "postgres.h"
#include "utils/timestamp.h"

#include "snapshot.h"

/* What a waiting job's row holds now, to write back only what changes. */
typedef struct mx_job_row
{
	bool		planned;		/* status = 'planned' */
	char	   *gpu_type;		/* planned_gpu_type, NULL when none */
	int			gpus;
	bool		has_start;
	TimestampTz start;
	TimestampTz end;
	char	   *reason;			/* NULL when none */
	char	   *requeue_reason;	/* why its last launch was lost, NULL when never */
	char	   *model;			/* NULL when none */
	char	   *owner;
} mx_job_row;

typedef struct mx_db_snapshot
{
	mx_snapshot snap;			/* arrays palloc'd in the current context */
	mx_job_row *rows;			/* parallel to snap.jobs */
	int			running_jobs;	/* launching and running jobs */
	char	  **part_owners;	/* parallel to snap.parts */
	bool		horizon_full;	/* as many jobs as the horizon holds: more may wait behind */
} mx_db_snapshot;

/* Cluster only: types and nodes with their busy GPUs (for launching). */
void		mx_read_cluster(mx_snapshot *s, TimestampTz now);

/*
 * The launching and running jobs' parts of d->snap's nodes (read with
 * mx_read_cluster), with their owners in d->part_owners.
 */
void		mx_read_running(mx_db_snapshot *d);

/* Everything a round needs, with the first `horizon` waiting jobs in queue order. */
void		mx_read_snapshot(mx_db_snapshot *d, TimestampTz now, int horizon);

/*
 * Append waiting job job_id to d after mx_read_snapshot() left it out (it
 * waits behind the horizon), with its model's profile; its index in
 * d->snap.jobs, or -1 when it is not waiting.
 */
int			mx_read_waiting_job(mx_db_snapshot *d, int64 job_id);

#endif
