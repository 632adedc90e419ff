/*
 * plan_limits.c — keeps a round's plan inside the times the core plans with
 * (plan_limits.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan_limits.h"

int
mx_runtime_ok(double runtime)
{
	return isfinite(runtime) && runtime > 0 && runtime <= MX_MAX_RUNTIME_S;
}

#define LATE_REASON "its plan would end after 9999-12-31, the last time the scheduler plans"

int
mx_ends_in_calendar(double start, double runtime)
{
	return start + runtime <= MX_MAX_EPOCH_S;
}

static void
unplan(mx_assignment *a, const char *reason)
{
	a->status = MX_UNPLANNABLE;
	a->type = -1;
	a->gpus = 0;
	a->start = NAN;
	a->end = NAN;
	mx_plan_set_reason(a, reason);
}

void
mx_unplan_late(mx_assignment *a)
{
	unplan(a, LATE_REASON);
}

int
mx_plan_enforce_limits(const mx_snapshot *s, mx_plan *p)
{
	int			i,
				changed = 0;

	for (i = 0; i < p->n; i++)
	{
		mx_assignment *a = &p->a[i];
		const char *refuse = a->job >= 0 && a->job < s->njobs ? s->jobs[a->job].refuse : NULL;

		if (refuse != NULL)
		{
			if (a->status != MX_UNPLANNABLE || strcmp(a->reason, refuse) != 0)
				changed++;
			unplan(a, refuse);
			continue;
		}
		if (a->status != MX_PLANNED)
			continue;
		if (isfinite(a->start) && isfinite(a->end) && a->start >= s->now - 1.0 &&
			a->end >= a->start && a->end <= MX_MAX_EPOCH_S)
			continue;
		unplan(a, LATE_REASON);
		changed++;
	}
	return changed;
}
