/*
 * tenancy_read.h — the owners of a snapshot's jobs and parts, with their
 * shares, binding quotas and decayed usage (SPI; caller is connected).
 */
#ifndef MIXDNN_TENANCY_READ_H
#define MIXDNN_TENANCY_READ_H

#include "planner.h"
#include "snapshot_read.h"

/*
 * Fill d->snap.owners from d->rows[].owner and d->part_owners[] and set
 * every job's and part's owner index; with o->fair_share, their usage
 * (decaying with o->fair_share_half_life_s).
 */
void		mx_read_owners(mx_db_snapshot *d, const mx_options *o);

/* Whether some mixdnn.quotas row limits GPUs (false on a schema without quotas). */
bool		mx_any_gpu_quota(void);

#endif
