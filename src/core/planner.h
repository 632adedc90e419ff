/*
 * planner.h — one scheduling round: snapshot in, plan out.
 *
 * The extension, bin/mixdnn-sim and bin/mixdnn-bench all call
 * mx_plan_round(), so what is measured is what runs in the database.
 */
#ifndef MIXDNN_PLANNER_H
#define MIXDNN_PLANNER_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"

/*
 * Plan every waiting job of s. Returns 0 and fills *out (release it with
 * mx_plan_free), or -1 when out of memory. Never exits, never prints.
 */
int			mx_plan_round(const mx_snapshot *s, const mx_options *o, mx_plan *out);

#endif
