/*
 * launch_quota.h — GPU quotas at launch. A round plans every start within
 * the owners' quotas, but launch_due() starts a planned job when its time
 * comes, with no round in between: by then an earlier job of the owner may
 * overrun its expected end, or an administrator may have lowered a quota.
 * launch_due() asks here before it starts a due job (SPI; caller is
 * connected, as the extension's owner).
 */
#ifndef MIXDNN_LAUNCH_QUOTA_H
#define MIXDNN_LAUNCH_QUOTA_H

#include "postgres.h"

#include "executor/spi.h"

#include "snapshot_read.h"

typedef struct mx_launch_quota
{
	bool		on;				/* some owner of a due job has a GPU quota */
	mx_db_snapshot d;			/* the cluster, its held parts, the due jobs as jobs */
} mx_launch_quota;

/*
 * Reads the quotas of the owners of the due jobs (rows of due, the owner's
 * name in column owner_col) and the GPUs their launching and running parts
 * hold. cluster must stay valid while q is used.
 */
void		mx_launch_quota_read(mx_launch_quota *q, const mx_snapshot *cluster, SPITupleTable *due,
								 int owner_col);

/*
 * Whether due job i may start now on gpus GPUs of type: false when that
 * takes its owner beyond a quota that does not lend. Borrowing beyond a
 * quota that lends is the round's decision, so it is allowed here.
 */
bool		mx_launch_quota_allows(const mx_launch_quota *q, int i, int type, int gpus);

/* Due job i starts on gpus GPUs of node: its owner holds them from now on. */
void		mx_launch_quota_take(mx_launch_quota *q, int i, int node, int gpus);

#endif
