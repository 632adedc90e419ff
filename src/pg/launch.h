/*
 * launch.h — allocating GPUs to jobs whose planned start has come.
 */
#ifndef MIXDNN_LAUNCH_H
#define MIXDNN_LAUNCH_H

#include "postgres.h"

/*
 * Launch every planned job whose planned_start <= mixdnn.now() and whose
 * GPUs are free: gang-allocate, write gpu_holds and job_parts, set
 * launching and NOTIFY mixdnn_launch. Sets *unplaced to the number of due
 * jobs whose GPUs were still held; re-planning them is the caller's
 * (due.h). With all_or_none, nothing is launched when any due job cannot
 * be placed: the plan those starts belong to is stale. Returns how many
 * jobs were launched.
 */
int			mx_launch_due(int *unplaced, bool all_or_none);

#endif
