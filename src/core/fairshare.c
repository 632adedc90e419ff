/*
 * fairshare.c — the owners' fair-share factors (fairshare.h).
 */
#include <math.h>
#include <stdlib.h>

#include "fairshare.h"
#include "overrun.h"

static int
owner_of(const mx_snapshot *s, int owner)
{
	return (s->nowners > 0 && owner >= 0 && owner < s->nowners) ? owner : -1;
}

double
mx_decayed_usage(double rate, double from, double to, double now, double half_life_s)
{
	double		k;

	if (to > now)
		to = now;
	if (!(to > from) || !(rate > 0))
		return 0;
	if (!(half_life_s > 0))
		return rate * (to - from);
	k = log(2.0) / half_life_s;
	/* integral of rate * e^(-k (now - t)) dt from `from` to `to` */
	return rate / k * (exp(-k * (now - to)) - exp(-k * (now - from)));
}

int
mx_tenancy_factors(const mx_snapshot *s, const mx_options *o,
				   double *factor, double *entitlement, double *usage_share)
{
	double	   *usage = calloc((size_t) (s->nowners > 0 ? s->nowners : 1), sizeof(double));
	double		total_u = 0,
				total_s = 0,
				hl = o->fair_share_half_life_s > 0 ? o->fair_share_half_life_s : MX_DEFAULT_HALF_LIFE_S;
	int			i;

	unsigned char *active = calloc((size_t) (s->nowners > 0 ? s->nowners : 1), 1);

	if (usage == NULL || active == NULL)
	{
		free(usage);
		free(active);
		return -1;
	}
	/* Entitlements are shares among the owners with waiting or running jobs. */
	for (i = 0; i < s->njobs; i++)
		if (owner_of(s, s->jobs[i].owner) >= 0)
			active[s->jobs[i].owner] = 1;
	for (i = 0; i < s->nparts; i++)
		if (owner_of(s, s->parts[i].owner) >= 0)
			active[s->parts[i].owner] = 1;
	/*
	 * GPUs held now count until their expected end (at most one
	 * half-life): usage already granted, so a burst weighs at once. Past
	 * that end, until the end the planner assumes (the overrun rule).
	 */
	for (i = 0; i < s->nparts; i++)
	{
		const mx_running_part *rp = &s->parts[i];
		int			ow = owner_of(s, rp->owner);
		double		left = mx_overrun_end(rp->expected_end, s->now, o->overrun_s, mx_overrun_factor(o)) - s->now;

		if (!(left > 0))
			left = 0;
		if (left > hl)
			left = hl;
		if (ow >= 0 && rp->node >= 0 && rp->node < s->nnodes && s->nodes[rp->node].type >= 0)
			usage[ow] += rp->gpus * s->types[s->nodes[rp->node].type].speed * left;
	}
	for (i = 0; i < s->nowners; i++)
	{
		if (!active[i])
			continue;
		if (s->owners[i].usage_s > 0 && isfinite(s->owners[i].usage_s))
			usage[i] += s->owners[i].usage_s;
		total_u += usage[i];
		total_s += s->owners[i].shares > 0 ? s->owners[i].shares : 0;
	}
	for (i = 0; i < s->nowners; i++)
	{
		double		e = (active[i] && total_s > 0 && s->owners[i].shares > 0) ? s->owners[i].shares / total_s : 0;
		double		u = (active[i] && total_u > 0) ? usage[i] / total_u : 0;
		double		f;

		/* Slurm's classic 2^(-u/e), doubled so an owner using exactly its share keeps weight 1. */
		if (total_u <= 0)
			f = 1.0;
		else if (e <= 0)
			f = u > 0 ? 1e-6 : 1.0;
		else
			f = pow(2.0, 1.0 - u / e);
		if (!(f >= 1e-6))
			f = 1e-6;
		if (factor)
			factor[i] = f;
		if (entitlement)
			entitlement[i] = e;
		if (usage_share)
			usage_share[i] = u;
	}
	free(usage);
	free(active);
	return 0;
}
