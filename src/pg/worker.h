/*
 * worker.h — the launch background worker (SPEC §5).
 */
#ifndef MIXDNN_WORKER_H
#define MIXDNN_WORKER_H

/* From _PG_init, only when loaded through shared_preload_libraries: its settings. */
void		mx_worker_init(void);

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
 * backend, through a retry event; without a worker, the next round does).
 */
void		mx_worker_retry_round(void);

/* Whether the worker plans for this backend's database. */
bool		mx_worker_plans_here(void);

/*
 * Why no worker will launch this database's planned jobs, in plain words
 * for a job's reason; NULL when one will.
 */
const char *mx_worker_missing(void);

#endif
