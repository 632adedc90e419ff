/*
 * restore.h — telling a data load (pg_restore, psql -f of a pg_dump) from a
 * user's statement (restore.c, docs/operations.md "Backup and restore").
 */
#ifndef MIXDNN_RESTORE_H
#define MIXDNN_RESTORE_H

/*
 * Whether the current statement is a data load: COPY ... FROM by a
 * superuser with row_security off, as pg_dump writes it. The first time a
 * session loads, it takes the load lock until it disconnects.
 */
bool		mx_restore_loading(void);

/*
 * The worker's side: false when a load holds the lock; else true, and the
 * lock is held (session level) until mx_restore_end_cycle().
 */
bool		mx_restore_begin_cycle(void);
void		mx_restore_end_cycle(void);

/*
 * With preload: a COPY ... FROM into a table of schema mixdnn, or an ALTER
 * TABLE ... DISABLE TRIGGER of one, by a session that loads as a dump does
 * takes the load lock as it starts, whether the tables' triggers fire or
 * not (pg_restore --disable-triggers).
 */
void		mx_restore_init(void);

#endif
