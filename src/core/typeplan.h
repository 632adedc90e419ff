/*
 * typeplan.h — a round's plan with the configurations the configuration LP
 * chose (typelp.h), placed by the heuristic's guarded list scheduling.
 */
#ifndef MIXDNN_TYPEPLAN_H
#define MIXDNN_TYPEPLAN_H

#include "snapshot.h"
#include "plan.h"
#include "options.h"
#include "capacity.h"
#include "typelp.h"

/*
 * Re-plan the jobs order[0..np) of s into a copy of cap (running jobs only)
 * by the heuristic's passes, with the jobs window[0..nw) pinned to the
 * configuration the LP over holdcap (running jobs and the round's holds)
 * chose for them; guard and best are mx_job_guards()'s. On entry p is the
 * heuristic's plan of the round (the LP's starting point for jobs without
 * a previous plan); on MX_TYPELP_OK it holds the new plan, otherwise it is
 * unchanged. deadline_ms
 * (mx_thread_cpu_ms() scale) is the LP's safety stop.
 */
mx_typelp_result mx_typeplan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
							 const mx_capacity *holdcap, const int *order, int np,
							 const int *window, int nw, const unsigned char *guard,
							 const double *best, double deadline_ms, mx_plan *p,
							 mx_typelp_stats *st);

/*
 * The LP spreads the window's demand over the types; it does not mean to
 * keep GPUs idle. Each job of window[0..nw) (in that order) planned in p
 * to start later, while one of its own configurations fits work (running
 * jobs and every plan, its own taken out) now for its whole run and ends
 * it sooner, starts on that one now (the earliest end, then the fewest
 * GPUs, then the first type): backfilling that moves no other plan
 * (docs/model.md, "The LP's backfill"). work is kept up to date. Returns
 * how many jobs moved.
 */
int			mx_typeplan_backfill(const mx_snapshot *s, const mx_options *o, mx_capacity *work,
								 const int *window, int nw, mx_plan *p);

#endif
