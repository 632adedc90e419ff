/*
 * overrun.c — the overrun rule (overrun.h).
 *
 * Why a share of the overrun and not a fixed grace: an estimate that has
 * been outlived says little about the rest. With log-normal estimate
 * errors the expected rest of an overdue job grows with how far it is
 * past its estimate (about 0.6 x the overrun at sigma = 0.5, 2.2 x at
 * sigma = 1, once the overrun equals the estimate); a fixed minute keeps
 * its GPUs "about to free" for hours, and every round plans the jobs
 * behind it, and moves soft jobs off other types, for an end that does
 * not come. docs/model.md, "The overrun rule", has the measurements.
 */
#include <math.h>

#include "overrun.h"

double
mx_overrun_end(double expected_end, double now, double grace_s, double factor)
{
	double		rest;

	if (expected_end > now)
		return expected_end;
	if (!(grace_s > 0) || !isfinite(grace_s))
		grace_s = 0;
	rest = !isfinite(expected_end) || !(factor > 0) || !isfinite(factor) ? 0 : factor * (now - expected_end);
	return now + (rest > grace_s ? rest : grace_s);
}
