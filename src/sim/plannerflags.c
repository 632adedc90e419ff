/*
 * plannerflags.c — the planner's options on the command line
 * (plannerflags.h): one table (src/core/options.c) parsed and range-checked
 * the same way by the simulator and the benchmark.
 */
#include <stdio.h>
#include <string.h>

#include "plannerflags.h"

int
planner_flags_add(struct option *longopts, int n, int max)
{
	int			i;

	for (i = 0; i < mx_noption_specs && n < max - 1; i++, n++)
	{
		const mx_option_spec *s = &mx_option_specs[i];

		longopts[n].name = s->name;
		longopts[n].has_arg = s->arg ? required_argument : no_argument;
		longopts[n].flag = NULL;
		longopts[n].val = PLANNER_FLAG_BASE + i;
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	return n;
}

int
planner_flag_apply(mx_options *o, int c, const char *arg, const char *prog)
{
	char		err[256];

	if (c < PLANNER_FLAG_BASE || c >= PLANNER_FLAG_BASE + mx_noption_specs)
		return 0;
	if (mx_option_set(o, &mx_option_specs[c - PLANNER_FLAG_BASE], arg, err, sizeof(err)) < 0)
	{
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	return 1;
}

void
planner_flags_usage(FILE *f)
{
	int			i;

	for (i = 0; i < mx_noption_specs; i++)
	{
		const mx_option_spec *s = &mx_option_specs[i];
		char		left[64];

		snprintf(left, sizeof(left), "--%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "");
		fprintf(f, "  %-22s %s\n", left, s->help);
	}
}
