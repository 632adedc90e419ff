/*
 * guards.h — the guards of the waiting jobs: who holds GPUs in a round
 * (docs/model.md, "Who holds GPUs"). The passes (passes.h) and the
 * planner's holds act on them.
 */
#ifndef MIXDNN_GUARDS_H
#define MIXDNN_GUARDS_H

#include "snapshot.h"
#include "options.h"

/* Guard of a waiting job in this round (docs/model.md, "Who holds GPUs"). */
#define MX_GUARD_NONE 0
#define MX_GUARD_CRITICAL 1		/* waited critical_wait x r and would end after the known makespan bound T: served first when it fits now */
#define MX_GUARD_STARVING 2		/* waited >= starve_factor x its best run time: reserved */
#define MX_GUARD_DRAIN 3		/* critical with slack below drain_margin: reserved (GPUs drained for it) */

/*
 * guard[i] for every job of s (s->njobs entries) and, unless best is NULL,
 * best[i] = the shortest run time over its candidates (INFINITY without
 * any). With o->reserve_all every guard is MX_GUARD_NONE and best is not
 * filled. 0, or -1 when out of memory.
 */
int			mx_job_guards(const mx_snapshot *s, const mx_options *o, unsigned char *guard, double *best);

/*
 * Whether the plan of a job with guard g, starting at start, holds its GPUs
 * (docs/model.md, "Who holds GPUs"): a starving or draining job's always
 * (a reservation), a critical job's only when it starts now; any other
 * later start is a forecast the next round plans again.
 */
int			mx_guard_holds(unsigned char g, double start, double now);

#endif
