/*
 * dbguard.h — stops a database's launch worker before commands that need
 * the database to themselves (dbguard.c).
 */
#ifndef MIXDNN_DBGUARD_H
#define MIXDNN_DBGUARD_H

/* From _PG_init, only when loaded through shared_preload_libraries. */
void		mx_dbguard_init(void);

#endif
