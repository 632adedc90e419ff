/*
 * heuristic.h — the steps of greedy list scheduling: the order of the
 * jobs, one job's earliest-completion configuration, placing one job. The
 * passes that plan a round with them (the MILP's incumbent and fallback,
 * and the planner for jobs beyond its window) are in passes.h.
 */
#ifndef MIXDNN_HEURISTIC_H
#define MIXDNN_HEURISTIC_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"
#include "utility.h"

/*
 * Order in which the heuristic considers jobs (weighted shortest best run
 * time first); order must hold s->njobs indices.
 */
void		mx_heuristic_order(const mx_snapshot *s, const mx_options *o, int *order);

/*
 * The heuristic's choice for one job among its configurations cf[0..n)
 * against cap: the index of the config that finishes earliest (ties: fewer
 * GPUs, the previous plan's type, lower type index) and its start in *start;
 * -1 when none ever fits. cap is not changed.
 */
int			mx_heuristic_choose(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
								const mx_job *j, const mx_config *cf, int n, double *start);

/*
 * Place job ji (an index into s->jobs) into cap at the configuration that
 * finishes earliest (mx_heuristic_choose) and reserve it there; fills
 * p->a[ji]. With now_only, a job whose choice does not start now is left
 * alone. *cf and *ccap are scratch for mx_job_configs_buf(). Returns one of:
 */
#define MX_PLACE_PLANNED 0
#define MX_PLACE_DEFERRED 1		/* now_only and its choice does not start now: nothing changed */
#define MX_PLACE_UNPLANNABLE 2	/* no configuration (ever) fits, or out of memory: p->a[ji] says why */
int			mx_heuristic_place(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, int ji,
							   mx_plan *p, mx_config **cf, int *ccap, int now_only);

#endif
