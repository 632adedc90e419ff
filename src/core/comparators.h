/*
 * comparators.h — the strong non-preemptive comparators of contract §6:
 * sjf, hgreedy, hsjf and k8s-any (docs/simulator.md gives each rule).
 *
 * Each round they start jobs now or leave them waiting; they never plan a
 * start in the future and never hold GPUs for a waiting job. They plan with
 * the job's duration as the user stated it (the estimate).
 */
#ifndef MIXDNN_COMPARATORS_H
#define MIXDNN_COMPARATORS_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"

/*
 * Fill p for every job of s under o->policy (MX_POLICY_SJF, _HGREEDY,
 * _HSJF or _K8S_ANY). 0, or -1 when out of memory (p then has every job
 * waiting).
 */
int			mx_comparator_plan(const mx_snapshot *s, const mx_options *o, mx_plan *p);

#endif
