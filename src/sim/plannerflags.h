/*
 * plannerflags.h — the planner's options (options.h's table) as getopt_long
 * options, for bin/mixdnn-sim and bin/mixdnn-bench alike.
 */
#ifndef MIXDNN_PLANNERFLAGS_H
#define MIXDNN_PLANNERFLAGS_H

#include <getopt.h>
#include <stdio.h>

#include "options.h"

/* getopt_long values of the planner options: PLANNER_FLAG_BASE + table index. */
#define PLANNER_FLAG_BASE 1000

/*
 * Appends the planner options to longopts, which holds n entries and room
 * for max, and ends it with the null entry. Returns the new count.
 */
int			planner_flags_add(struct option *longopts, int n, int max);

/*
 * c, a value getopt_long returned: 1 when it was a planner option and is set
 * in *o; 0 when it is none; -1 after printing why its value is bad.
 */
int			planner_flag_apply(mx_options *o, int c, const char *arg, const char *prog);

/* The help lines of the planner options. */
void		planner_flags_usage(FILE *f);

#endif
