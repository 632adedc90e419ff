/*
 * lock.h — the scheduler lock: one transaction-level advisory lock that
 * every writer of jobs and nodes takes before touching a row, so rounds are
 * serialized and never deadlock with the writers they wait for.
 */
#ifndef MIXDNN_LOCK_H
#define MIXDNN_LOCK_H

void		mx_lock_scheduler(void);

#endif
