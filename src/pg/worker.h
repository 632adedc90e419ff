/*
 * worker.h — the launch background worker (SPEC §5).
 */
#ifndef MIXDNN_WORKER_H
#define MIXDNN_WORKER_H

/* From _PG_init, only when loaded through shared_preload_libraries. */
void		mx_worker_init(void);

/*
 * Ask the worker to look at the tables once the current transaction has
 * committed (a round changed plans, a job finished or was cancelled).
 * Cheap; safe to call many times per transaction and without a worker.
 */
void		mx_worker_wake_at_commit(void);

#endif
