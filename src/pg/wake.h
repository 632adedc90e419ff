/*
 * wake.h — what a backend asks of the launch worker of its database
 * (worker.c), through shared memory (registry.c), after its transaction
 * commits. Depends on the registry only: any module may call it.
 */
#ifndef MIXDNN_WAKE_H
#define MIXDNN_WAKE_H

#include "postgres.h"

/*
 * Ask the worker to look at the tables once the current transaction has
 * committed (a round changed plans, a job finished or was cancelled).
 * Cheap; safe to call many times per transaction and without a worker.
 */
void		mx_worker_wake_at_commit(void);

/*
 * plan_mode worker: hand this transaction's events to the worker, which
 * plans them after the commit. Returns false when the worker cannot (not
 * loaded, or serving another database): then the caller plans now.
 */
bool		mx_worker_request_round(int events);

/*
 * The current round left jobs other transactions had locked unplanned: the
 * worker plans again about a second after this transaction commits (in a
 * backend, through a retry event; in the worker, at the end of its step).
 */
void		mx_worker_retry_round(void);

/* Whether the worker plans for this backend's database. */
bool		mx_worker_plans_here(void);

/*
 * Why no worker will launch this database's planned jobs, in plain words
 * for a job's reason; NULL when one will.
 */
const char *mx_worker_missing(void);

/* In the worker process: it is the worker (retries are kept for it). */
void		mx_wake_in_worker(void);

/* Whether this process is the worker. */
bool		mx_wake_is_worker(void);

/* In the worker process: the retry events its step asked for, cleared. */
uint32		mx_wake_take_retry(void);

#endif
