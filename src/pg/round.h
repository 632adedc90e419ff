/*
 * round.h — one scheduling round inside PostgreSQL: read the tables into a
 * snapshot, call the core planner, write the plan back, record the round.
 */
#ifndef MIXDNN_ROUND_H
#define MIXDNN_ROUND_H

#include "postgres.h"

/*
 * Run a round for event (e.g. "arrival"). Errors propagate. Runs as the
 * owner of mixdnn.jobs, so the write-back covers every user's jobs.
 * Returns the new round_id.
 */
int64		mx_run_round(const char *event);

/*
 * The same, from a trigger: a failure (other than a cancel request) is
 * logged as a WARNING and rolled back to before the round, never failing
 * the user's statement. Returns the round_id, 0 after a failure, or
 * MX_ROUND_BUSY when the scheduler lock was not free within
 * mixdnn.lock_timeout (then nothing was done).
 */
#define MX_ROUND_BUSY (-1)
int64		mx_run_round_protected(const char *event);

#endif
