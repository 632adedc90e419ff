/*
 * fairshare.h — the owners' fair-share factors (docs/model.md, "Quotas and
 * fair share"): decayed usage against shares. tenancy.c weighs jobs with
 * them; explain, mixdnn.fair_share_usage() and the snapshot readers of the
 * extension and the simulator use them too.
 */
#ifndef MIXDNN_FAIRSHARE_H
#define MIXDNN_FAIRSHARE_H

#include "snapshot.h"
#include "options.h"

/*
 * Speed-weighted GPU-seconds of a part holding `rate` (= speed x GPUs)
 * from `from` to `to` (clipped at now), each second decayed by
 * 2^(-(now - t) / half_life_s); half_life_s <= 0: no decay.
 */
double		mx_decayed_usage(double rate, double from, double to, double now, double half_life_s);

/*
 * Per owner with waiting or running jobs (the others get e = u = 0 and
 * factor 1): entitlement e = shares / their total shares, usage share u
 * (decayed history plus speed-weighted GPUs held now x their time left
 * to the expected end, at most a half-life, over their total) and the factor 2^(1 - u/e) (1 when nobody has used anything). Arrays of s->nowners
 * entries; any may be NULL. 0, or -1 when out of memory.
 */
int			mx_tenancy_factors(const mx_snapshot *s, const mx_options *o,
							   double *factor, double *entitlement, double *usage_share);

#endif
