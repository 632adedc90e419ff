/*
 * supervisor.h — the background worker that starts a launch worker in
 * every database of the cluster (supervisor.c).
 */
#ifndef MIXDNN_SUPERVISOR_H
#define MIXDNN_SUPERVISOR_H

/* From _PG_init, only when loaded through shared_preload_libraries. */
void		mx_supervisor_init(void);

#endif
