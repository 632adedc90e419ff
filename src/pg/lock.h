/*
 * lock.h — the scheduler lock, and the bound on every lock wait of code that
 * runs for the scheduler (docs/design.md, "Concurrency" and "Security").
 *
 * The scheduler lock serializes rounds, launches, the launcher functions
 * that change job state, and writes to the cluster tables; a transaction
 * that changed the cluster waits for no other lock longer than
 * mixdnn.lock_timeout until it ends. Its tag is one no SQL-callable
 * function can build, so only this extension takes it.
 */
#ifndef MIXDNN_LOCK_H
#define MIXDNN_LOCK_H

/*
 * Takes the scheduler lock until the end of the transaction, waiting at most
 * mixdnn.lock_timeout; then fails with SQLSTATE 55P03 (lock_not_available).
 */
void		mx_lock_scheduler(void);

/*
 * Installs the error hook that gives the lock up before an error that
 * aborts the transaction is sent to the client (lock.c, quiet_client).
 */
void		mx_lock_init(void);

/* Whether this transaction holds it. */
bool		mx_scheduler_lock_held(void);

/*
 * Sets PostgreSQL's lock_timeout to mixdnn.lock_timeout at the current GUC
 * nest level (restored when that level ends), so no lock wait of the
 * caller outlasts it.
 */
void		mx_bound_lock_waits(void);
/* The same bound, as SET LOCAL: for the rest of the transaction, its commit included. */
void		mx_bound_lock_waits_to_end(void);

#endif
