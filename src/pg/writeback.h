/*
 * writeback.h — a round's plan and record into the tables (SPI; caller is
 * connected).
 */
#ifndef MIXDNN_WRITEBACK_H
#define MIXDNN_WRITEBACK_H

#include "postgres.h"
#include "utils/timestamp.h"

#include "plan.h"
#include "snapshot_read.h"

/* Insert the mixdnn.rounds row; returns its round_id. */
int64		mx_record_round(const mx_db_snapshot *d, const mx_plan *p, TimestampTz now, const char *event);

/*
 * Write the plans whose decision changed (a start that moved later by at
 * most tolerance x its distance from now is not a change) to mixdnn.jobs
 * and mixdnn.plan_history, and the reasons that changed while their plan
 * stood to mixdnn.jobs alone; returns how many decisions were written.
 * Rows another transaction has locked are left alone instead of waited
 * for; *skipped counts the decisions among them (a round retries those).
 */
int			mx_write_plan(const mx_db_snapshot *d, const mx_plan *p, int64 round_id, double tolerance,
						  int *skipped);

/*
 * The planned start a write-back leaves stored for job i of d when the
 * round plans it as a: its stored start when decision_changed() would not
 * rewrite the row (the same configuration and run time, a start later by
 * at most tolerance x the time from now to the stored one), else a's.
 * Tells what mixdnn.queue will show (explain, what_if).
 */
double		mx_kept_start(const mx_db_snapshot *d, int i, const mx_assignment *a, double tolerance);

/*
 * When the horizon was full, the waiting jobs behind it that the round did
 * not read: planned ones go back to pending, new ones get a reason saying
 * they are queued. Returns how many rows changed.
 */
int			mx_write_queue(const mx_db_snapshot *d, int64 round_id, int horizon);

/* Why a job beyond the planning horizon waits (docs/design.md, "The waiting queue"). */
char	   *mx_queued_reason(int horizon);

#endif
