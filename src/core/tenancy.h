/*
 * tenancy.h — a shared cluster: GPU quotas per owner (with borrowing of
 * idle GPUs) and fair share, around one scheduling round (docs/model.md,
 * "Quotas and fair share").
 *
 * The extension, the simulator, explain and what-if all plan through
 * mx_tenancy_plan_round(), so every one of them applies the same rule.
 */
#ifndef MIXDNN_TENANCY_H
#define MIXDNN_TENANCY_H

#include <stddef.h>

#include "snapshot.h"
#include "plan.h"
#include "planner.h"

/*
 * A borrowing job's weight is multiplied by this: every job within its
 * owner's quota is served first, so a borrower only gets GPUs that no one
 * else's plan uses now.
 */
#define MX_BORROW_FACTOR 1e-3

/* Rounds re-planned at most this often to settle who is over quota. */
#define MX_TENANCY_MAX_PASSES 6

/*
 * mx_plan_round() under the owners' quotas and, with o->fair_share, their
 * fair-share factors; exactly mx_plan_round() when s has no owners. A soft
 * job planned beyond a per-type quota without borrowing is planned again
 * without that type when it can run on another; otherwise a job that
 * would start beyond a quota without borrowing waits unplanned
 * (MX_WAITING) with a reason naming the quota; one whose quotas could
 * never let it run is MX_UNPLANNABLE. 0, or -1 when out of memory.
 */
int			mx_tenancy_plan_round(const mx_snapshot *s, const mx_options *o, mx_plan *out);

/*
 * Whether job ji starting now on (type, gpus) would take its owner beyond
 * a quota, given the GPUs the owner's running parts hold and, unless p is
 * NULL, its other jobs p starts now: 0 no, 1 yes but every exceeded quota
 * lets it borrow, 2 yes. With buf (not NULL) and a result of 1 or 2, the
 * reason in plain words.
 */
int			mx_tenancy_over_quota(const mx_snapshot *s, const mx_plan *p, int ji, int type, int gpus,
								  char *buf, size_t len);

#endif
