/*
 * worker.h — the launch background worker process (docs/launcher.md).
 * What backends ask of it is in wake.h.
 */
#ifndef MIXDNN_WORKER_H
#define MIXDNN_WORKER_H

/* From _PG_init, only when loaded through shared_preload_libraries: its settings. */
void		mx_worker_init(void);

#endif
