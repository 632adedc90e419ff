/*
 * reasons.h — the reason a round writes for each job it plans to start
 * later: what it waits for, and, when GPUs one of its configurations fits
 * are idle now, why it does not take them. Plain C; see docs/model.md,
 * "Reasons".
 */
#ifndef MIXDNN_REASONS_H
#define MIXDNN_REASONS_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"

/*
 * Fill p's reasons for s under o: "" for a planned job that starts now,
 * "waiting for N TYPE GPUs, expected free at T" for one that starts later,
 * followed by why it leaves idle GPUs alone when one of its configurations
 * fits them now. guard: the round's MX_GUARD_* per job (mx_job_guards),
 * or NULL to compute them. Other statuses keep their reasons. 0, or -1
 * when out of memory (then the waiting jobs may get the first part only).
 */
int			mx_plan_reasons(const mx_snapshot *s, const mx_options *o, const unsigned char *guard,
							mx_plan *p);

#endif
